#pragma once
// Memory ownership. A DataPtr is the data pointer plus whatever must be
// released with it (a context and its deleter): for memory Ember allocated the
// context is the allocation itself; for memory borrowed from NumPy or DLPack
// it is the foreign owner, released by its own rules.

#include <c10/core/Device.h>

#include <cstddef>
#include <memory>

namespace c10 {

using DeleterFn = void (*)(void*);

class DataPtr {
 public:
  DataPtr() : ctx_(nullptr, &noop) {}
  DataPtr(void* data, Device device) : data_(data), ctx_(nullptr, &noop), device_(device) {}
  DataPtr(void* data, void* ctx, DeleterFn deleter, Device device)
      : data_(data), ctx_(ctx, deleter ? deleter : &noop), device_(device) {}

  void* get() const { return data_; }
  void* context() const { return ctx_.get(); }
  DeleterFn deleter() const { return ctx_.get_deleter(); }
  Device device() const { return device_; }
  explicit operator bool() const { return data_ != nullptr; }

  void clear() {
    ctx_.reset();
    data_ = nullptr;
  }

 private:
  static void noop(void*) {}
  void* data_ = nullptr;
  std::unique_ptr<void, DeleterFn> ctx_;
  Device device_;
};

struct Allocator {
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
  // Copies bytes between two allocations of this allocator (resize_ keeps
  // the old contents this way); device memory overrides it.
  virtual void copy_data(void* dst, const void* src, size_t nbytes) const;
};

// Alignment of CPU allocations: a cache line, which also satisfies AVX-512.
constexpr size_t kCPUAlignment = 64;

Allocator* GetCPUAllocator();
// One allocator per device type; backends install theirs at load time.
Allocator* GetAllocator(DeviceType t);
void SetAllocator(DeviceType t, Allocator* allocator);
// Whether a backend has installed an allocator for `t`.
bool HasAllocator(DeviceType t);

}  // namespace c10
