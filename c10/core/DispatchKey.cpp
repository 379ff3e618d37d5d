#include <c10/core/DispatchKey.h>
#include <c10/util/Exception.h>

#include <iterator>

namespace c10 {

namespace {
constexpr std::string_view kKeyNames[] = {
    "Undefined", "CPU",    "CUDA",    "Meta",
    "PrivateUse1", "SparseCPU", "Lazy", "BackendSelect", "Negative", "Conjugate", "ADInplaceOrView", "Autograd",
    "Tracer", "AutocastCPU", "AutocastCUDA", "Python", "NumKeys", "CompositeExplicitAutograd",
    "CompositeImplicitAutograd"};
constexpr int kNumKeyNames = static_cast<int>(std::size(kKeyNames));
static_assert(kNumKeyNames == static_cast<int>(DispatchKey::CompositeImplicitAutograd) + 1);
}  // namespace

std::string_view toString(DispatchKey k) {
  const int i = static_cast<int>(k);
  return i < kNumKeyNames ? kKeyNames[i] : "Unknown";
}

DispatchKey parseDispatchKey(std::string_view name) {
  for (int i = 0; i < kNumKeyNames; ++i) {
    if (kKeyNames[i] == name && i != static_cast<int>(DispatchKey::NumKeys)) return static_cast<DispatchKey>(i);
  }
  EMBER_CHECK_VALUE(false, "unknown dispatch key '{}'", name);
}

DispatchKey backendKey(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return DispatchKey::CPU;
    case DeviceType::CUDA: return DispatchKey::CUDA;
    case DeviceType::Meta: return DispatchKey::Meta;
    case DeviceType::PrivateUse1: return DispatchKey::PrivateUse1;
    case DeviceType::Lazy: return DispatchKey::Lazy;
  }
  return DispatchKey::Undefined;
}

DispatchKey autocastKey(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return DispatchKey::AutocastCPU;
    case DeviceType::CUDA: return DispatchKey::AutocastCUDA;
    case DeviceType::Meta:
    case DeviceType::PrivateUse1:
    case DeviceType::Lazy: break;
  }
  return DispatchKey::Undefined;
}

DispatchKey sparseBackendKey(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return DispatchKey::SparseCPU;
    case DeviceType::CUDA:
    case DeviceType::Meta:
    case DeviceType::PrivateUse1:
    case DeviceType::Lazy: break;
  }
  return DispatchKey::Undefined;
}

}  // namespace c10
