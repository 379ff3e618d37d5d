#include <c10/core/Allocator.h>
#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace c10 {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugePageThreshold = 2 * kHugePage;

struct CPUAllocator final : Allocator {
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, Device(DeviceType::CPU));
    // Large buffers come fresh from the kernel (mmap) on every allocation, so
    // first touch page-faults once per 4 KiB page; on 2 MiB pages that is 512
    // times fewer faults. They are aligned to a huge page and marked for it.
    const bool huge = nbytes >= kHugePageThreshold;
    const size_t alignment = huge ? kHugePage : kCPUAlignment;
    // aligned_alloc wants a size that is a multiple of the alignment.
    const size_t rounded = (nbytes + alignment - 1) / alignment * alignment;
    void* data = std::aligned_alloc(alignment, rounded);
    EMBER_CHECK(data != nullptr, "DefaultCPUAllocator: not enough memory: you tried to allocate {} bytes.", nbytes);
#ifdef __linux__
    if (huge) madvise(data, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
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
