#include <c10/core/DeviceHooks.h>

#include <array>
#include <atomic>

namespace c10 {

namespace {
std::array<std::atomic<const DeviceHooks*>, kNumDeviceTypes>& table() {
  static std::array<std::atomic<const DeviceHooks*>, kNumDeviceTypes> hooks{};
  return hooks;
}
}  // namespace

const DeviceHooks* GetDeviceHooks(DeviceType t) {
  return table()[static_cast<int>(t)].load(std::memory_order_acquire);
}

void SetDeviceHooks(DeviceType t, const DeviceHooks* hooks) {
  table()[static_cast<int>(t)].store(hooks, std::memory_order_release);
}

DeviceGuard::DeviceGuard(Device device) {
  if (!device.has_index()) return;
  const DeviceHooks* hooks = GetDeviceHooks(device.type);
  if (hooks == nullptr) return;
  const int previous = hooks->current_device();
  if (previous == device.index) return;
  hooks->set_device(device.index);
  hooks_ = hooks;
  previous_ = previous;
}

DeviceGuard::~DeviceGuard() {
  if (hooks_ == nullptr) return;
  try {
    hooks_->set_device(previous_);
  } catch (...) {  // a destructor must not throw; the device stays as it is
  }
}

}  // namespace c10
