#pragma once
// The dispatcher: operators registered by schema, each with a kernel table
// indexed by DispatchKey. A call computes the key set of its arguments
// (adjusted by the thread-local include/exclude sets), drops keys whose
// kernel is a fallthrough, and runs the kernel of the highest key left.

#include <aten/core/dispatch/FunctionSchema.h>
#include <aten/core/dispatch/KernelFunction.h>
#include <c10/core/LocalDispatchKeySet.h>

#include <array>
#include <list>
#include <mutex>
#include <unordered_map>

namespace ember {

class Dispatcher;

// One operator: its schema, what was registered for it, and the resolved
// table the hot path reads.
// Whether an op's tensors must share a device (native_functions.yaml's
// `device_check`): copy_ is the op that moves data between devices.
enum class DeviceCheck { SameDevice, NoCheck };

class OperatorEntry {
 public:
  explicit OperatorEntry(FunctionSchema schema) { set_schema(std::move(schema)); }

  const FunctionSchema& schema() const { return schema_; }
  // The kernel that serves `ks`, or an error naming the op and the key.
  const KernelFunction& lookup(c10::DispatchKeySet ks) const {
    const c10::DispatchKey k = (ks & runnable_keys_).highestPriorityKey();
    const KernelFunction& kernel = table_[static_cast<size_t>(k)];
    if (__builtin_expect(!kernel.isValid(), 0)) report_missing_kernel(ks);
    return kernel;
  }
  bool hasKernelFor(c10::DispatchKey k) const;
  // Refuses undefined Tensors where the schema wants one, and tensors on
  // different devices, unless the op takes them (DeviceCheck::NoCheck) or
  // only decomposes into ops that check.
  void check_arguments(const boxing::KeySetCollector& keys) const {
    if (__builtin_expect((keys.undefined & needs_defined_) != 0, 0)) report_undefined_argument(keys);
    if (__builtin_expect(keys.elsewhere != nullptr, 0) && checks_devices_) report_mixed_devices(keys);
  }
  // Registered keys, for error messages and introspection.
  std::vector<c10::DispatchKey> registeredKeys() const;

 private:
  friend class Dispatcher;
  [[noreturn]] void report_missing_kernel(c10::DispatchKeySet ks) const;
  [[noreturn]] void report_mixed_devices(const boxing::KeySetCollector& keys) const;
  [[noreturn]] void report_undefined_argument(const boxing::KeySetCollector& keys) const;
  void set_schema(FunctionSchema schema);
  void recompute(const std::array<KernelFunction, c10::kNumDispatchKeys>& fallbacks);

  FunctionSchema schema_;
  // Direct registrations per key (including the two alias keys), newest last.
  std::unordered_map<int, std::list<KernelFunction>> registered_;
  std::array<KernelFunction, c10::kNumDispatchKeys> table_{};
  c10::DispatchKeySet runnable_keys_;  // keys whose table entry is not a fallthrough
  int def_count_ = 0;
  DeviceCheck device_check_ = DeviceCheck::SameDevice;
  bool checks_devices_ = true;  // device_check_, unless the op is only a CompositeImplicitAutograd kernel
  // Bit i: argument i is a `Tensor` or `Tensor[]` kernels read, so it must be
  // defined. Out arguments may be undefined: kernels allocate them then, and
  // functional ops call their out variant that way.
  uint64_t needs_defined_ = 0;
};

class OperatorHandle {
 public:
  explicit OperatorHandle(OperatorEntry* entry) : entry_(entry) {}
  const FunctionSchema& schema() const { return entry_->schema(); }
  OperatorEntry& entry() const { return *entry_; }

  // Runs the op on the stack (arguments in, results out).
  void callBoxed(Stack& stack) const;
  // Like callBoxed but starting from `ks`, for kernels that pass the call on.
  void redispatchBoxed(c10::DispatchKeySet ks, Stack& stack) const;

  // The thread-local include/exclude sets adjust the keys once, here; a
  // redispatch takes the keys it is given as they are.
  template <typename Return, typename... Args>
  Return call(Args... args) const {
    boxing::KeySetCollector keys;
    (keys.arg(args), ...);
    entry_->check_arguments(keys);
    const auto local = c10::tls_local_dispatch_key_set();
    return redispatch<Return, Args...>((keys.result() | local.included) - local.excluded,
                                       std::forward<Args>(args)...);
  }

  template <typename Return, typename... Args>
  Return redispatch(c10::DispatchKeySet ks, Args... args) const {
    return entry_->lookup(ks).template call<Return, Args...>(*this, ks, std::forward<Args>(args)...);
  }

 private:
  OperatorEntry* entry_;
};

// A handle whose C++ signature is fixed, e.g. TypedOperatorHandle<Tensor(const Tensor&, int64_t)>.
template <typename Sig>
class TypedOperatorHandle;
template <typename Return, typename... Args>
class TypedOperatorHandle<Return(Args...)> : public OperatorHandle {
 public:
  explicit TypedOperatorHandle(OperatorHandle h) : OperatorHandle(h) {}
  Return call(Args... args) const { return OperatorHandle::call<Return, Args...>(std::forward<Args>(args)...); }
  Return redispatch(c10::DispatchKeySet ks, Args... args) const {
    return OperatorHandle::redispatch<Return, Args...>(ks, std::forward<Args>(args)...);
  }
};

class Dispatcher {
 public:
  static Dispatcher& singleton();

  // "aten::add" + "Tensor"; nullopt when no such operator is defined.
  std::optional<OperatorHandle> findSchema(std::string_view name, std::string_view overload = "");
  OperatorHandle findSchemaOrThrow(std::string_view name, std::string_view overload = "");
  template <typename Sig>
  TypedOperatorHandle<Sig> findTyped(std::string_view name, std::string_view overload = "") {
    return TypedOperatorHandle<Sig>(findSchemaOrThrow(name, overload));
  }
  std::vector<OperatorHandle> allOperators();
  // Every defined overload of "ns::name", the plain one ("") first, then by
  // overload name.
  std::vector<OperatorHandle> findOverloads(std::string_view name);

  // Registration. Each returns an undo action, run when the registering
  // Library is destroyed, so tests can add ops and leave no trace.
  std::function<void()> registerDef(FunctionSchema schema, DeviceCheck device_check = DeviceCheck::SameDevice);
  std::function<void()> registerImpl(const std::string& qualified_name, c10::DispatchKey key, KernelFunction kernel);
  std::function<void()> registerFallback(c10::DispatchKey key, KernelFunction kernel);

 private:
  Dispatcher();
  OperatorEntry& entry_for(const std::string& qualified_name);
  void recompute_all();

  std::mutex mutex_;
  // Stable addresses: handles point into these entries.
  std::unordered_map<std::string, std::unique_ptr<OperatorEntry>> operators_;
  // "ns::name" -> the entries ever defined under it, sorted by overload name;
  // an undone definition stays listed with def_count_ 0.
  std::unordered_map<std::string, std::vector<OperatorEntry*>> overloads_;
  std::array<KernelFunction, c10::kNumDispatchKeys> fallbacks_{};
};

}  // namespace ember
