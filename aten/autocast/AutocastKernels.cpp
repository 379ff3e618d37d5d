// One boxed kernel serves every op of the policy table: it casts the op's
// floating tensor arguments as the op's policy says, then passes the call on
// below the autocast key. Ops outside the table fall through the key.

#include <aten/autocast/AutocastMode.h>
#include <aten/autocast/AutocastPolicies.h>
#include <aten/core/dispatch/Library.h>

#include <mutex>

namespace ember::autocast {
namespace {

// Calls with an explicit dtype= ask for their result type: autocast keeps out.
bool has_explicit_dtype(const FunctionSchema& schema, const IValue* args) {
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    if (schema.arguments[i].name == "dtype" && !args[i].isNone()) return true;
  }
  return false;
}

template <typename F>
void for_each_tensor(const IValue& v, F&& f) {
  if (v.isTensor()) {
    f(v.toTensor());
  } else if (v.isTensorList()) {
    for (const Tensor& t : v.toTensorList()) f(t);
  } else if (v.isOptionalTensorList()) {
    for (const auto& t : v.toOptionalTensorList()) {
      if (t) f(*t);
    }
  }
}

IValue cast_value(const IValue& v, ScalarType dtype, DeviceType device) {
  if (v.isTensor()) return IValue(cast(v.toTensor(), dtype, device));
  if (v.isTensorList()) {
    std::vector<Tensor> out;
    out.reserve(v.toTensorList().size());
    for (const Tensor& t : v.toTensorList()) out.push_back(cast(t, dtype, device));
    return IValue(std::move(out));
  }
  if (v.isOptionalTensorList()) {
    std::vector<std::optional<Tensor>> out;
    for (const auto& t : v.toOptionalTensorList()) {
      out.push_back(t ? std::optional<Tensor>(cast(*t, dtype, device)) : std::nullopt);
    }
    return IValue(std::move(out));
  }
  return v;
}

// The dtype a policy runs the op in, given its arguments.
ScalarType target_dtype(CastPolicy policy, const IValue* args, size_t n, DeviceType device) {
  if (policy == CastPolicy::Float32) return ScalarType::Float;
  ScalarType to = get_autocast_dtype(device);
  if (policy == CastPolicy::Promote) {
    for (size_t i = 0; i < n; ++i) {
      for_each_tensor(args[i], [&](const Tensor& t) {
        if (is_eligible(t, device)) to = c10::promoteTypes(to, t.scalar_type());
      });
    }
  }
  return to;
}

void autocast_call(CastPolicy policy, DeviceType device, const OperatorHandle& op, c10::DispatchKeySet ks,
                   Stack& stack) {
  const c10::DispatchKey key = c10::autocastKey(device);
  const FunctionSchema& schema = op.schema();
  if (policy == CastPolicy::Banned) check_not_banned(schema.qualified_name().substr(6), device);  // past "aten::"
  const size_t n = schema.arguments.size();
  EMBER_CHECK(stack.size() >= n, "autocast {}: expected {} arguments on the stack, got {}", schema.name, n,
              stack.size());
  IValue* args = stack.data() + (stack.size() - n);
  // Casts run below autocast too: they are ops, and recorded by autograd.
  c10::ExcludeDispatchKeyGuard below_autocast(key);
  if (!has_explicit_dtype(schema, args)) {
    const ScalarType dtype = target_dtype(policy, args, n, device);
    for (size_t i = 0; i < n; ++i) args[i] = cast_value(args[i], dtype, device);
  }
  op.redispatchBoxed(ks.remove(key), stack);
}

EMBER_LIBRARY_IMPL(_, AutocastCPU, m) { m.fallback(KernelFunction::makeFallthrough()); }
EMBER_LIBRARY_IMPL(_, AutocastCUDA, m) { m.fallback(KernelFunction::makeFallthrough()); }

}  // namespace

void register_autocast_kernels() {
  // At first use rather than at load: the ops must be defined first, and
  // static registrations in other files run in no set order.
  static std::once_flag once;
  std::call_once(once, [] {
    static auto* library = new Library(Library::Kind::IMPL, "aten");
    for (const PolicyRow& row : policy_table()) {
      const std::string_view op = row.op;
      const size_t dot = op.find('.');
      const std::string name = "aten::" + std::string(op.substr(0, dot));
      const std::string overload = dot == std::string_view::npos ? "" : std::string(op.substr(dot + 1));
      if (!Dispatcher::singleton().findSchema(name, overload)) continue;  // a Python function, or not in Ember
      for (const DeviceType device : {DeviceType::CPU, DeviceType::CUDA}) {
        const CastPolicy policy = device == DeviceType::CPU ? row.cpu : row.cuda;
        if (policy == CastPolicy::None) continue;
        library->impl(op, c10::autocastKey(device),
                      KernelFunction::makeFromBoxed([policy, device](const OperatorHandle& h, c10::DispatchKeySet ks,
                                                                     Stack& stack) {
                        autocast_call(policy, device, h, ks, stack);
                      }));
      }
    }
  });
}

}  // namespace ember::autocast
