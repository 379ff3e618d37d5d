#pragma once
// What a backend tells the core about its devices, registered per device
// type when the backend loads (the CPU and Meta need none). The core and the
// Python binding ask through this table and never name a backend.

#include <c10/core/Device.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace c10 {

// What ember.cuda.get_device_properties reports (torch's field names).
struct DeviceProperties {
  std::string name;
  int64_t total_memory = 0;  // bytes
  int major = 0, minor = 0;  // compute capability, where the backend has one
  int multi_processor_count = 0;
};

struct DeviceHooks {
  virtual ~DeviceHooks() = default;
  // 0 when the backend is built but cannot run here; unavailable_reason() says why.
  virtual int device_count() const = 0;
  virtual std::string unavailable_reason() const = 0;
  // Throws an error that says what is missing when `index` cannot be used
  // (-1: the current device).
  virtual void check_device(int index) const = 0;
  virtual int current_device() const = 0;
  virtual void set_device(int index) const = 0;
  virtual void synchronize(int index) const = 0;
  virtual DeviceProperties device_properties(int index) const = 0;
  // Bytes free and total on device `index`.
  virtual std::pair<size_t, size_t> mem_get_info(int index) const = 0;
  virtual std::map<std::string, int64_t> memory_stats(int index) const = 0;
  virtual void reset_peak_memory_stats(int index) const = 0;
  virtual void empty_cache() const = 0;
  // Moves `nbytes` between host memory and the memory of device `index`.
  // Both buffers are dense: copy_ makes them so (and converts dtypes) on
  // whichever side has the kernels for it, so a backend supplies only this.
  virtual void copy_to_host(void* host, const void* device_data, size_t nbytes, int index) const = 0;
  virtual void copy_from_host(void* device_data, const void* host, size_t nbytes, int index) const = 0;
};

// nullptr when no backend registered hooks for `t`.
const DeviceHooks* GetDeviceHooks(DeviceType t);
void SetDeviceHooks(DeviceType t, const DeviceHooks* hooks);

// Makes `device` the current device of its type for a scope, when its
// backend has a notion of current device; a no-op otherwise.
class DeviceGuard {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  const DeviceHooks* hooks_ = nullptr;
  int previous_ = -1;
};

}  // namespace c10
