#include <c10/core/PythonInterpreter.h>
#include <aten/core/dispatch/Dispatcher.h>

#include <algorithm>

namespace ember {

using c10::DispatchKey;
using c10::DispatchKeySet;

namespace {
constexpr int key_index(DispatchKey k) { return static_cast<int>(k); }

// A typed kernel's parameters must be the schema's, in number and kind
// (boxed kernels read any stack): a mismatch fails at registration, naming
// the operator and key, instead of at the first call.
void check_signature(const FunctionSchema& schema, DispatchKey key, const KernelFunction& kernel) {
  if (!kernel.isTyped()) return;
  const auto& kinds = kernel.argKinds();
  EMBER_CHECK(kinds.size() == schema.arguments.size(),
              "the kernel registered for {} at {} takes {} arguments, but the schema has {}: {}",
              schema.qualified_name(), c10::toString(key), kinds.size(), schema.arguments.size(), schema.str());
  for (size_t i = 0; i < kinds.size(); ++i) {
    const SchemaType& wanted = schema.arguments[i].type;
    if (!kinds[i] || (kinds[i]->kind == wanted.kind && kinds[i]->is_list == wanted.is_list)) continue;
    SchemaType got;
    got.kind = kinds[i]->kind;
    got.is_list = kinds[i]->is_list;
    EMBER_CHECK(false, "the kernel registered for {} at {} takes {} for argument {} ({}), but the schema says {}: {}",
                schema.qualified_name(), c10::toString(key), got.str(), i + 1, schema.arguments[i].name,
                wanted.str(), schema.str());
  }
}
}  // namespace

bool OperatorEntry::hasKernelFor(DispatchKey k) const {
  auto it = registered_.find(key_index(k));
  return it != registered_.end() && !it->second.empty();
}

std::vector<DispatchKey> OperatorEntry::registeredKeys() const {
  std::vector<DispatchKey> keys;
  for (const auto& [k, kernels] : registered_)
    if (!kernels.empty()) keys.push_back(static_cast<DispatchKey>(k));
  std::sort(keys.begin(), keys.end());
  return keys;
}

// The table entry for each runtime key, in order of preference: a kernel
// registered for the key itself; for backends, a CompositeExplicitAutograd
// (dense backends only) then CompositeImplicitAutograd kernel; for Autograd, a
// CompositeImplicitAutograd kernel (its pieces record their own history);
// then the key's global fallback (often a fallthrough); else nothing.
void OperatorEntry::recompute(const std::array<KernelFunction, c10::kNumDispatchKeys>& fallbacks) {
  auto newest = [&](DispatchKey k) -> const KernelFunction* {
    auto it = registered_.find(key_index(k));
    return it == registered_.end() || it->second.empty() ? nullptr : &it->second.back();
  };
  const KernelFunction* explicit_kernel = newest(DispatchKey::CompositeExplicitAutograd);
  const KernelFunction* implicit_kernel = newest(DispatchKey::CompositeImplicitAutograd);
  bool has_backend_kernel = false;
  for (int i = 1; i < c10::kNumDispatchKeys; ++i) {
    has_backend_kernel = has_backend_kernel || (c10::isBackendKey(static_cast<DispatchKey>(i)) &&
                                                newest(static_cast<DispatchKey>(i)) != nullptr);
  }
  // A CompositeImplicitAutograd op runs no kernel of its own on the tensors:
  // the ops it decomposes into check them.
  checks_devices_ = device_check_ == DeviceCheck::SameDevice && (has_backend_kernel || explicit_kernel);
  runnable_keys_ = DispatchKeySet();
  for (int i = 1; i < c10::kNumDispatchKeys; ++i) {
    const auto k = static_cast<DispatchKey>(i);
    const KernelFunction* chosen = newest(k);
    // Explicit composites are written against strided memory: a sparse
    // backend runs only kernels registered for it (or decompositions).
    if (!chosen && c10::isDenseBackendKey(k) && explicit_kernel) chosen = explicit_kernel;
    if (!chosen && c10::isBackendKey(k)) chosen = implicit_kernel;
    if (!chosen && k == DispatchKey::Autograd && !explicit_kernel && !has_backend_kernel) chosen = implicit_kernel;
    table_[i] = chosen ? *chosen : fallbacks[i];
    if (!table_[i].isFallthrough()) runnable_keys_ = runnable_keys_.add(k);
  }
}

void OperatorEntry::report_missing_kernel(DispatchKeySet ks) const {
  const DispatchKey k = (ks & runnable_keys_).highestPriorityKey();
  std::vector<std::string> available;
  for (DispatchKey r : registeredKeys()) available.emplace_back(c10::toString(r));
  const std::string name = schema_.qualified_name();
  if (k == DispatchKey::Undefined) {
    EMBER_CHECK(false, "There were no tensor arguments to '{}' and no device to pick a backend from.", name);
  }
  EMBER_CHECK_NOT_IMPLEMENTED(false,
                              "Could not run '{}' with arguments from the '{}' backend. '{}' is only available for "
                              "these backends: [{}].",
                              name, c10::toString(k), name, fmt::join(available, ", "));
}

void OperatorEntry::set_schema(FunctionSchema schema) {
  schema_ = std::move(schema);
  needs_defined_ = 0;
  for (size_t i = 0; i < schema_.arguments.size() && i < 64; ++i) {
    const SchemaArgument& a = schema_.arguments[i];
    const bool is_out = a.kwarg_only && a.alias && a.alias->is_write;
    if (a.type.kind == SchemaType::Kind::Tensor && !a.type.optional && !a.type.elem_optional && !is_out) {
      needs_defined_ |= uint64_t{1} << i;
    }
  }
}

void OperatorEntry::report_mixed_devices(const boxing::KeySetCollector& keys) const {
  EMBER_CHECK(false,
              "{}: expected all tensors to be on the same device, but found at least two devices, {} and {}",
              schema_.qualified_name(), keys.first->device().str(), keys.elsewhere->device().str());
}

void OperatorEntry::report_undefined_argument(const boxing::KeySetCollector& keys) const {
  const int position = __builtin_ctzll(keys.undefined & needs_defined_);
  EMBER_CHECK(false, "{}: expected a defined Tensor for argument #{} '{}', but got an undefined Tensor",
              schema_.qualified_name(), position + 1, schema_.arguments[position].name);
}

void OperatorHandle::callBoxed(Stack& stack) const {
  boxing::KeySetCollector keys;
  const size_t n = std::min(stack.size(), schema().arguments.size());
  for (size_t i = 0; i < n; ++i) keys.arg(stack[stack.size() - n + i]);
  entry_->check_arguments(keys);
  const auto local = c10::tls_local_dispatch_key_set();
  redispatchBoxed((keys.result() | local.included) - local.excluded, stack);
}

void OperatorHandle::redispatchBoxed(DispatchKeySet ks, Stack& stack) const {
  entry_->lookup(ks).callBoxed(*this, ks, stack);
}

Dispatcher::Dispatcher() {
  // Functionality keys are transparent until something registers for them.
  for (int i = static_cast<int>(DispatchKey::BackendSelect); i < c10::kNumDispatchKeys; ++i) {
    fallbacks_[i] = KernelFunction::makeFallthrough();
  }
}

Dispatcher& Dispatcher::singleton() {
  static Dispatcher* d = new Dispatcher();  // leaked: static destructors may still dispatch
  return *d;
}

std::optional<OperatorHandle> Dispatcher::findSchema(std::string_view name, std::string_view overload) {
  std::string key(name);
  if (!overload.empty()) key += "." + std::string(overload);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = operators_.find(key);
  if (it == operators_.end() || it->second->def_count_ == 0) return std::nullopt;
  return OperatorHandle(it->second.get());
}

OperatorHandle Dispatcher::findSchemaOrThrow(std::string_view name, std::string_view overload) {
  auto h = findSchema(name, overload);
  EMBER_CHECK(h.has_value(), "Could not find schema for {}{}{}", name, overload.empty() ? "" : ".", overload);
  return *h;
}

std::vector<OperatorHandle> Dispatcher::allOperators() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<OperatorHandle> ops;
  for (auto& [name, entry] : operators_)
    if (entry->def_count_ > 0) ops.emplace_back(entry.get());
  return ops;
}

std::vector<OperatorHandle> Dispatcher::findOverloads(std::string_view name) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<OperatorHandle> ops;
  auto it = overloads_.find(std::string(name));
  if (it == overloads_.end()) return ops;
  for (OperatorEntry* entry : it->second)
    if (entry->def_count_ > 0) ops.emplace_back(entry);
  return ops;
}

OperatorEntry& Dispatcher::entry_for(const std::string& qualified_name) {
  auto& slot = operators_[qualified_name];
  if (!slot) {
    FunctionSchema placeholder;
    placeholder.name = qualified_name;
    slot = std::make_unique<OperatorEntry>(std::move(placeholder));
    slot->recompute(fallbacks_);
  }
  return *slot;
}

std::function<void()> Dispatcher::registerDef(FunctionSchema schema, DeviceCheck device_check) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string name = schema.qualified_name();
  OperatorEntry& entry = entry_for(name);
  if (entry.def_count_ > 0) {
    // Under ember::deploy each interpreter defines the custom operators of
    // the code it runs: the same schema again is one more definer.
    EMBER_CHECK(c10::python_interpreter_count() > 1 && entry.schema().str() == schema.str(),
                "Tried to register an operator ({}) with the same name and overload name multiple times.",
                schema.str());
    ++entry.def_count_;
    return [this, name] {
      std::lock_guard<std::mutex> lock(mutex_);
      --operators_[name]->def_count_;
    };
  }
  // Impls may have arrived first (static initialization order); keep them, checked now.
  for (const auto& [index, kernels] : entry.registered_) {
    for (const KernelFunction& kernel : kernels) check_signature(schema, static_cast<DispatchKey>(index), kernel);
  }
  auto& overloads = overloads_[schema.name];
  if (std::find(overloads.begin(), overloads.end(), &entry) == overloads.end()) {
    const auto later = std::find_if(overloads.begin(), overloads.end(), [&](const OperatorEntry* other) {
      return other->schema().overload > schema.overload;
    });
    overloads.insert(later, &entry);
  }
  entry.set_schema(std::move(schema));
  entry.def_count_ = 1;
  entry.device_check_ = device_check;
  entry.recompute(fallbacks_);
  return [this, name] {
    std::lock_guard<std::mutex> lock(mutex_);
    --operators_[name]->def_count_;
  };
}

std::function<void()> Dispatcher::registerImpl(const std::string& qualified_name, DispatchKey key,
                                               KernelFunction kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  OperatorEntry& entry = entry_for(qualified_name);
  if (entry.def_count_ > 0) check_signature(entry.schema(), key, kernel);
  auto& kernels = entry.registered_[key_index(key)];
  kernels.push_back(std::move(kernel));
  auto position = std::prev(kernels.end());
  entry.recompute(fallbacks_);
  return [this, qualified_name, key, position] {
    std::lock_guard<std::mutex> lock(mutex_);
    OperatorEntry& e = *operators_[qualified_name];
    e.registered_[key_index(key)].erase(position);
    e.recompute(fallbacks_);
  };
}

std::function<void()> Dispatcher::registerFallback(DispatchKey key, KernelFunction kernel) {
  EMBER_CHECK(!c10::isAliasKey(key) && key != DispatchKey::Undefined, "cannot register a fallback for key {}",
              c10::toString(key));
  std::lock_guard<std::mutex> lock(mutex_);
  const int i = key_index(key);
  KernelFunction previous = fallbacks_[i];
  fallbacks_[i] = std::move(kernel);
  recompute_all();
  return [this, i, previous] {
    std::lock_guard<std::mutex> lock(mutex_);
    fallbacks_[i] = previous;
    recompute_all();
  };
}

void Dispatcher::recompute_all() {
  for (auto& [name, entry] : operators_) entry->recompute(fallbacks_);
}

}  // namespace ember
