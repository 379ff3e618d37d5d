#include <c10/core/Allocator.h>
#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>

namespace c10 {

namespace {

struct CPUAllocator final : Allocator {
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, Device(DeviceType::CPU));
    // aligned_alloc wants a size that is a multiple of the alignment.
    const size_t rounded = (nbytes + kCPUAlignment - 1) / kCPUAlignment * kCPUAlignment;
    void* data = std::aligned_alloc(kCPUAlignment, rounded);
    EMBER_CHECK(data != nullptr, "DefaultCPUAllocator: not enough memory: you tried to allocate {} bytes.", nbytes);
    return DataPtr(data, data, &std::free, Device(DeviceType::CPU));
  }
};

// Meta tensors have shapes and dtypes but no data.
struct MetaAllocator final : Allocator {
  DataPtr allocate(size_t) override { return DataPtr(nullptr, Device(DeviceType::Meta)); }
};

CPUAllocator cpu_allocator;
MetaAllocator meta_allocator;

struct AllocatorTable {
  AllocatorTable() {
    slots[static_cast<int>(DeviceType::CPU)] = &cpu_allocator;
    slots[static_cast<int>(DeviceType::Meta)] = &meta_allocator;
  }
  std::array<std::atomic<Allocator*>, kNumDeviceTypes> slots{};
};

std::array<std::atomic<Allocator*>, kNumDeviceTypes>& allocators() {
  static AllocatorTable table;
  return table.slots;
}

}  // namespace

Allocator* GetCPUAllocator() { return &cpu_allocator; }

Allocator* GetAllocator(DeviceType t) {
  Allocator* a = allocators()[static_cast<int>(t)].load(std::memory_order_acquire);
  EMBER_CHECK(a != nullptr, "no allocator is registered for device type {}; was Ember built with {} support?",
              toString(t), toString(t));
  return a;
}

void SetAllocator(DeviceType t, Allocator* allocator) {
  allocators()[static_cast<int>(t)].store(allocator, std::memory_order_release);
}

}  // namespace c10
