#include <aten/native/CPUFallback.h>

#include <aten/Functions.h>
#include <c10/util/Warning.h>

#include <mutex>
#include <unordered_set>

namespace ember::native {

namespace {

const Device kCPU(DeviceType::CPU);

bool on_device(const Tensor& t) { return t.defined() && !t.is_cpu() && !t.is_meta(); }

void warn_once(const std::string& name, DeviceType type) {
  static std::mutex mutex;
  static std::unordered_set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!warned.insert(name).second) return;
  }
  c10::warn(fmt::format("The operator '{}' is not currently supported on the {} backend and will fall back to run "
                        "on the CPU. This may have performance implications.",
                        name, c10::toString(type)));
}

// The CPU copy of a device tensor (other tensors as they are); the first
// device seen is remembered for the results.
Tensor to_cpu(const Tensor& t, std::optional<Device>& device) {
  if (!on_device(t)) return t;
  if (!device) device = t.device();
  return t.to(kCPU);
}

// Writes what the CPU kernel left in `cpu` back into the device tensor it
// stood for (out= arguments may have been resized on the CPU).
void update_on_device(const Tensor& original, const Tensor& cpu) {
  if (original.sizes() != cpu.sizes()) original.resize_(cpu.sizes());
  original.copy_(cpu);
}

}  // namespace

void cpu_fallback(const OperatorHandle& op, c10::DispatchKeySet /*ks*/, Stack& stack) {
  const FunctionSchema& schema = op.schema();
  const std::string name = schema.qualified_name();
  for (const auto& r : schema.returns) {
    EMBER_CHECK(!r.alias || r.alias->is_write,
                "The operator '{}' appears to be a view operator, but it has no implementation for this backend. View "
                "operators don't support falling back to run on the CPU, since the tensor's storage cannot be shared "
                "across devices.", name);
  }
  const size_t n = schema.arguments.size();
  EMBER_CHECK(stack.size() >= n, "cpu_fallback: '{}' expects {} arguments on the stack, got {}", name, n, stack.size());
  const size_t first = stack.size() - n;

  std::optional<Device> device;
  std::vector<Tensor> originals(n), on_cpu(n);  // the written single-tensor arguments, on the device and the CPU
  std::vector<std::vector<Tensor>> list_originals(n), lists_on_cpu(n);  // the same for written lists
  for (size_t i = 0; i < n; ++i) {
    IValue& v = stack[first + i];
    if (v.isTensor()) {
      on_cpu[i] = to_cpu(v.toTensor(), device);
      if (on_cpu[i].defined() && !on_cpu[i].is_same(v.toTensor())) originals[i] = v.toTensor();
      v = IValue(on_cpu[i]);
    } else if (v.isTensorList()) {
      const bool writes = schema.arguments[i].alias && schema.arguments[i].alias->is_write;
      std::vector<Tensor> list = v.toTensorList();
      if (writes) list_originals[i] = list;
      for (Tensor& t : list) t = to_cpu(t, device);
      if (writes) lists_on_cpu[i] = list;
      v = IValue(std::move(list));
    } else if (v.isOptionalTensorList()) {
      std::vector<std::optional<Tensor>> list = v.toOptionalTensorList();
      for (auto& t : list) {
        if (t) t = to_cpu(*t, device);
      }
      v = IValue(std::move(list));
    } else if (v.isDevice() && v.toDevice().type != DeviceType::CPU && !v.toDevice().is_meta()) {
      // Factories name the device instead of passing a tensor on it.
      if (!device) device = v.toDevice();
      v = IValue(kCPU);
    }
  }
  EMBER_CHECK(device.has_value(), "cpu_fallback: '{}' was dispatched to a backend but has no argument on a device",
              name);
  warn_once(name, device->type);

  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);

  // Arguments the operator wrote are updated on the device; results written
  // into one are that argument itself, other results move to the device.
  std::vector<bool> copied(n, false);
  const auto copy_back = [&](size_t i) {
    if (copied[i]) return;
    update_on_device(originals[i], on_cpu[i]);
    copied[i] = true;
  };
  const auto write_back = [&](const AliasInfo& alias) -> std::optional<Tensor> {
    for (size_t i = 0; i < n; ++i) {
      const auto& a = schema.arguments[i].alias;
      if (a && a->is_write && a->set == alias.set && originals[i].defined()) {
        copy_back(i);
        return originals[i];
      }
    }
    return std::nullopt;
  };
  const size_t results = stack.size() - first;
  for (size_t j = 0; j < results && j < schema.returns.size(); ++j) {
    IValue& r = stack[first + j];
    const auto& alias = schema.returns[j].alias;
    if (alias && alias->is_write) {
      if (auto original = write_back(*alias)) r = IValue(*original);
    } else if (r.isTensor()) {
      if (r.toTensor().defined()) r = IValue(r.toTensor().to(*device));
    } else if (r.isTensorList()) {
      std::vector<Tensor> list = r.toTensorList();
      for (Tensor& t : list) t = t.to(*device);
      r = IValue(std::move(list));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& a = schema.arguments[i].alias;
    if (a && a->is_write && originals[i].defined()) copy_back(i);
    for (size_t k = 0; k < list_originals[i].size(); ++k) {
      Tensor& original = list_originals[i][k];
      if (on_device(original)) update_on_device(original, lists_on_cpu[i][k]);
    }
  }
}

}  // namespace ember::native
