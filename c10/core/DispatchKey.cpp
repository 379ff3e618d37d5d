#include <c10/core/DispatchKey.h>

namespace c10 {

std::string_view toString(DispatchKey k) {
  constexpr std::string_view names[kNumDispatchKeys] = {
      "Undefined", "CPU", "CUDA", "Meta", "PrivateUse1", "BackendSelect", "ADInplaceOrView", "Autograd", "Autocast",
      "Python"};
  const int i = static_cast<int>(k);
  return i < kNumDispatchKeys ? names[i] : "Unknown";
}

DispatchKey backendKey(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return DispatchKey::CPU;
    case DeviceType::CUDA: return DispatchKey::CUDA;
    case DeviceType::Meta: return DispatchKey::Meta;
    case DeviceType::PrivateUse1: return DispatchKey::PrivateUse1;
  }
  return DispatchKey::Undefined;
}

}  // namespace c10
