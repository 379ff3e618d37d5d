// Plugs the CUDA backend into the core's per-device-type tables when this
// library loads: the allocator and the device hooks (which also move
// bytes between host and GPU for copy_). Nothing in c10/ or
// aten/core names CUDA; they find it here.

#include <c10/core/DeviceHooks.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <aten/native/cuda/CUDAContext.h>

namespace ember::native::cuda {

namespace {

namespace cc = c10::cuda;

// The device an index names: -1 is the current one.
int resolve(int index) { return index < 0 ? cc::current_device() : index; }

struct CUDAHooks final : c10::DeviceHooks {
  int device_count() const override { return cc::device_count(); }
  std::string unavailable_reason() const override { return cc::unavailable_reason(); }
  void check_device(int index) const override { cc::check_device(index < 0 ? 0 : index); }
  int current_device() const override { return cc::current_device(); }
  void set_device(int index) const override { cc::set_device(index); }
  void synchronize(int index) const override {
    c10::DeviceGuard guard(c10::Device(c10::DeviceType::CUDA, static_cast<int8_t>(resolve(index))));
    cc::device_synchronize();
  }
  c10::DeviceProperties device_properties(int index) const override { return cc::device_properties(resolve(index)); }
  std::pair<size_t, size_t> mem_get_info(int index) const override {
    c10::DeviceGuard guard(c10::Device(c10::DeviceType::CUDA, resolve(index)));
    return cc::mem_get_info();
  }
  std::map<std::string, int64_t> memory_stats(int index) const override {
    const cc::MemoryStats s = cc::CUDACachingAllocator::stats(resolve(index));
    return {{"allocated_bytes.all.current", s.allocated_bytes},
            {"allocated_bytes.all.peak", s.max_allocated_bytes},
            {"reserved_bytes.all.current", s.reserved_bytes},
            {"reserved_bytes.all.peak", s.max_reserved_bytes},
            {"active.all.current", s.active_blocks},
            {"segment.all.current", s.segments},
            {"num_alloc_retries", s.num_alloc_retries},
            {"num_ooms", s.num_ooms},
            {"num_device_alloc", s.device_mallocs},
            {"allocation.all.allocated", s.allocations}};
  }
  void reset_peak_memory_stats(int index) const override {
    cc::CUDACachingAllocator::reset_peak_stats(resolve(index));
  }
  void empty_cache() const override {
    if (cc::device_count() > 0) cc::CUDACachingAllocator::empty_cache();
  }
  void copy_to_host(void* host, const void* device_data, size_t nbytes, int index) const override {
    c10::DeviceGuard guard(c10::Device(c10::DeviceType::CUDA, static_cast<int8_t>(resolve(index))));
    memcpy_sync(host, device_data, nbytes, cudaMemcpyDeviceToHost);
  }
  void copy_from_host(void* device_data, const void* host, size_t nbytes, int index) const override {
    c10::DeviceGuard guard(c10::Device(c10::DeviceType::CUDA, static_cast<int8_t>(resolve(index))));
    memcpy_sync(device_data, host, nbytes, cudaMemcpyHostToDevice);
  }
};

const bool registered = [] {
  static CUDAHooks hooks;
  c10::SetDeviceHooks(c10::DeviceType::CUDA, &hooks);
  c10::SetAllocator(c10::DeviceType::CUDA, cc::CUDACachingAllocator::get());
  return true;
}();

}  // namespace

}  // namespace ember::native::cuda
