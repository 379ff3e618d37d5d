#pragma once
// Registering operators and kernels, as with TORCH_LIBRARY:
//
//   EMBER_LIBRARY(myops, m) { m.def("scale(Tensor self, float factor) -> Tensor"); }
//   EMBER_LIBRARY_IMPL(myops, CPU, m) { m.impl("scale", &scale_cpu); }
//
// A Library object can also be made directly; destroying it undoes its
// registrations, which is how tests add operators without leaving traces.

#include <aten/core/dispatch/Dispatcher.h>

#include <set>

namespace ember {

class Library {
 public:
  enum class Kind { DEF, IMPL, FRAGMENT };

  Library(Kind kind, std::string ns, std::optional<c10::DispatchKey> key = std::nullopt);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  Library(Library&&) = default;

  // Defines an operator in this library's namespace.
  Library& def(std::string_view schema, DeviceCheck device_check = DeviceCheck::SameDevice);
  // Defines it and registers `fn` as its CompositeImplicitAutograd kernel.
  template <typename Return, typename... Args>
  Library& def(std::string_view schema, Return (*fn)(Args...)) {
    def(schema);
    return impl(std::string(parse_schema(schema, ns_).qualified_name()), c10::DispatchKey::CompositeImplicitAutograd,
                KernelFunction::makeFromUnboxedFunction(fn));
  }

  // Registers a kernel for "name" or "name.overload" under the library's key.
  template <typename Return, typename... Args>
  Library& impl(std::string_view name, Return (*fn)(Args...)) {
    return impl(name, library_key(), KernelFunction::makeFromUnboxedFunction(fn));
  }
  // ... or from a lambda (see KernelFunction::makeFromUnboxedLambda).
  template <typename Lambda, typename = decltype(&Lambda::operator())>
  Library& impl(std::string_view name, Lambda fn) {
    return impl(name, library_key(), KernelFunction::makeFromUnboxedLambda(std::move(fn)));
  }
  Library& impl(std::string_view name, KernelFunction kernel) { return impl(name, library_key(), std::move(kernel)); }
  Library& impl(std::string_view name, c10::DispatchKey key, KernelFunction kernel);

  // A boxed kernel for every operator at the library's key (or `key`).
  Library& fallback(KernelFunction kernel);
  Library& fallback(c10::DispatchKey key, KernelFunction kernel);

  const std::string& ns() const { return ns_; }
  // The key impl() registers at without one; `name` with the namespace.
  c10::DispatchKey library_key() const;
  std::string qualify(std::string_view name) const;

 private:

  Kind kind_;
  std::string ns_;
  std::optional<c10::DispatchKey> key_;
  std::vector<std::function<void()>> undo_;
  std::set<std::pair<std::string, c10::DispatchKey>> implemented_;  // (op, key) pairs this library registered
};

// A boxed fallback at a mode key (the operator log's Python key, the
// tracer's key), registered by the first call for that key and kept until
// the process exits: threads may dispatch through it until then.
void install_mode_fallback(c10::DispatchKey key, KernelFunction::BoxedFn fn);

namespace detail {
// Runs a registration function on a Library that lives until program exit.
struct StaticLibraryInit {
  StaticLibraryInit(Library::Kind kind, const char* ns, std::optional<c10::DispatchKey> key, void (*init)(Library&));
};
}  // namespace detail

}  // namespace ember

// Macros only because static registration needs unique names at namespace
// scope; the work is done by Library.
#define EMBER_CONCAT_INNER(a, b) a##b
#define EMBER_CONCAT(a, b) EMBER_CONCAT_INNER(a, b)

#define EMBER_LIBRARY(ns, m)                                                                              \
  static void EMBER_CONCAT(ember_library_init_, ns)(::ember::Library&);                                   \
  static const ::ember::detail::StaticLibraryInit EMBER_CONCAT(ember_library_static_, ns)(                \
      ::ember::Library::Kind::DEF, #ns, std::nullopt, &EMBER_CONCAT(ember_library_init_, ns));            \
  void EMBER_CONCAT(ember_library_init_, ns)(::ember::Library & m)

#define EMBER_LIBRARY_FRAGMENT(ns, m) EMBER_LIBRARY_FRAGMENT_UID(ns, m, __COUNTER__)
#define EMBER_LIBRARY_FRAGMENT_UID(ns, m, uid)                                                            \
  static void EMBER_CONCAT(ember_fragment_init_, uid)(::ember::Library&);                                 \
  static const ::ember::detail::StaticLibraryInit EMBER_CONCAT(ember_fragment_static_, uid)(              \
      ::ember::Library::Kind::FRAGMENT, #ns, std::nullopt, &EMBER_CONCAT(ember_fragment_init_, uid));     \
  void EMBER_CONCAT(ember_fragment_init_, uid)(::ember::Library & m)

#define EMBER_LIBRARY_IMPL(ns, key, m) EMBER_LIBRARY_IMPL_UID(ns, key, m, __COUNTER__)
#define EMBER_LIBRARY_IMPL_UID(ns, key, m, uid)                                                           \
  static void EMBER_CONCAT(ember_impl_init_, uid)(::ember::Library&);                                     \
  static const ::ember::detail::StaticLibraryInit EMBER_CONCAT(ember_impl_static_, uid)(                  \
      ::ember::Library::Kind::IMPL, #ns, ::c10::DispatchKey::key, &EMBER_CONCAT(ember_impl_init_, uid)); \
  void EMBER_CONCAT(ember_impl_init_, uid)(::ember::Library & m)
