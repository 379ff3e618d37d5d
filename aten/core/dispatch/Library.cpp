#include <aten/core/dispatch/Library.h>

#include <map>
#include <mutex>

namespace ember {

Library::Library(Kind kind, std::string ns, std::optional<c10::DispatchKey> key)
    : kind_(kind), ns_(std::move(ns)), key_(key) {}

Library::~Library() {
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) (*it)();
}

Library& Library::def(std::string_view schema, DeviceCheck device_check) {
  EMBER_CHECK(kind_ != Kind::IMPL, "Library {}: def() is not allowed in an IMPL library", ns_);
  FunctionSchema parsed = parse_schema(schema, ns_);
  EMBER_CHECK(parsed.name.rfind(ns_ + "::", 0) == 0, "Library {}: cannot define {} in another namespace", ns_,
              parsed.name);
  undo_.push_back(Dispatcher::singleton().registerDef(std::move(parsed), device_check));
  return *this;
}

Library& Library::impl(std::string_view name, c10::DispatchKey key, KernelFunction kernel) {
  const std::string qualified = qualify(name);
  EMBER_CHECK(implemented_.count({qualified, key}) == 0, "Library {}: {} is registered twice for {}", ns_, qualified,
              c10::toString(key));
  undo_.push_back(Dispatcher::singleton().registerImpl(qualified, key, std::move(kernel)));
  implemented_.emplace(qualified, key);
  return *this;
}

Library& Library::fallback(KernelFunction kernel) {
  EMBER_CHECK(key_.has_value(), "Library {}: fallback() needs a library with a dispatch key", ns_);
  return fallback(*key_, std::move(kernel));
}

Library& Library::fallback(c10::DispatchKey key, KernelFunction kernel) {
  EMBER_CHECK(kind_ == Kind::IMPL && ns_ == "_",
              "Library {}: a fallback serves every namespace, so it is registered from an IMPL library of "
              "namespace '_'", ns_);
  undo_.push_back(Dispatcher::singleton().registerFallback(key, std::move(kernel)));
  return *this;
}

c10::DispatchKey Library::library_key() const {
  // Without a key, kernels register as CompositeImplicitAutograd (as in torch.library).
  return key_.value_or(c10::DispatchKey::CompositeImplicitAutograd);
}

std::string Library::qualify(std::string_view name) const {
  return name.find("::") == std::string_view::npos ? ns_ + "::" + std::string(name) : std::string(name);
}

namespace detail {
StaticLibraryInit::StaticLibraryInit(Library::Kind kind, const char* ns, std::optional<c10::DispatchKey> key,
                                     void (*init)(Library&)) {
  static std::vector<std::unique_ptr<Library>>* libraries = new std::vector<std::unique_ptr<Library>>();
  libraries->push_back(std::make_unique<Library>(kind, ns, key));
  init(*libraries->back());
}
}  // namespace detail

void install_mode_fallback(c10::DispatchKey key, KernelFunction::BoxedFn fn) {
  static std::mutex mutex;
  // Never destroyed; held here (not dropped) so that leak checkers see them reachable.
  static auto* installed = new std::map<c10::DispatchKey, std::unique_ptr<Library>>();
  std::lock_guard<std::mutex> lock(mutex);
  if (installed->count(key)) return;
  auto library = std::make_unique<Library>(Library::Kind::IMPL, "_", key);
  library->fallback(KernelFunction::makeFromBoxed(std::move(fn)));
  installed->emplace(key, std::move(library));
}

}  // namespace ember
