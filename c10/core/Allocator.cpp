#include <c10/core/Allocator.h>
#include <c10/core/SmallBlockCache.h>
#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <list>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace c10 {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kLargeBlock = size_t{128} << 10;
// Freed large blocks kept for reuse, at most this many bytes in all.
constexpr size_t kMaxCachedBytes = size_t{256} << 20;
// A cached block serves requests down to this fraction of its size.
constexpr size_t kMaxOversize = 8;

// Buffers from glibc's mmap threshold (128 KiB) up would otherwise come
// fresh from the kernel on every allocation and go back on every free (or
// with the heap's top when glibc trims it), page-faulting on each first touch:
// in a training step that repeats the same shapes, that is most of the time
// of a memory-bound kernel. Large blocks are therefore rounded to a size
// class and, when freed, kept (up to kMaxCachedBytes) for the next request
// that fits. A cached block also serves smaller requests, down to
// 1/kMaxOversize of its size: a network whose activations shrink layer by
// layer (ResNet) then reuses the early layers' blocks instead of keeping one
// set per size (ResNet-18 inference's allocations, replayed: 89 MiB held for
// 58 MiB live instead of 137). When the cache is full, the blocks freed
// longest ago make room: a program that moves on to new shapes (the next
// model, a longer sequence) should not fault on every call because its first
// shapes fill the cache. (A 256x256 complex FFT along columns took 110 or
// 550 us depending on what glibc had trimmed before its 512 KiB result was
// allocated.) Blocks of 4 MiB and up are also aligned to and advised onto
// 2 MiB pages, 512 times fewer faults when they are new.
class LargeBlockCache {
 public:
  static LargeBlockCache& instance() {
    static LargeBlockCache* cache = new LargeBlockCache();  // leaked: tensors may be freed during exit
    return *cache;
  }

  static size_t size_class(size_t nbytes) {
    // Steps of at most 1/8 of the size (1/4 from 128 KiB to 256 KiB), so
    // that rounding wastes little: 2 MiB steps made ResNet-18's 6.1 MiB
    // activations 8 MiB blocks.
    const size_t step = nbytes >= (size_t{32} << 20)  ? kHugePage
                        : nbytes >= (size_t{4} << 20) ? size_t{512} << 10
                        : nbytes >= (size_t{1} << 20) ? size_t{128} << 10
                                                      : size_t{32} << 10;
    return (nbytes + step - 1) / step * step;
  }

  void* allocate(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // Best fit: the smallest cached block that holds the request and is
      // at most kMaxOversize times its size.
      auto it = by_size_.lower_bound(bytes);
      if (it != by_size_.end() && it->first / kMaxOversize <= bytes) {
        const auto entry = it->second;
        const size_t block = entry->bytes;
        void* data = entry->data;
        by_size_.erase(it);
        by_age_.erase(entry);
        cached_ -= block;
        live_[data] = block;
        return data;
      }
    }
    const bool huge = bytes >= 2 * kHugePage;
    // posix_memalign, unlike aligned_alloc, takes sizes that are not a
    // multiple of the alignment (a block's size class is a multiple of 32 KiB).
    void* data = nullptr;
    if (posix_memalign(&data, huge ? kHugePage : kCPUAlignment, bytes) != 0) return nullptr;
#ifdef __linux__
    if (huge) madvise(data, bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
    std::lock_guard<std::mutex> lock(mutex_);
    live_[data] = bytes;
    return data;
  }

  static void release(void* data) { instance().give_back(data); }

 private:
  struct Cached {
    size_t bytes;
    void* data;
  };
  using Age = std::list<Cached>::iterator;

  void give_back(void* data) {
    std::vector<void*> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = live_.find(data);
      if (it == live_.end()) {  // not ours (cannot happen through DataPtr): let malloc have it
        std::free(data);
        return;
      }
      const size_t bytes = it->second;
      live_.erase(it);
      if (bytes > kMaxCachedBytes) {
        evicted.push_back(data);
      } else {
        while (cached_ + bytes > kMaxCachedBytes) {
          const Cached oldest = by_age_.back();
          auto [first, last] = by_size_.equal_range(oldest.bytes);
          while (first->second->data != oldest.data) ++first;
          by_size_.erase(first);
          by_age_.pop_back();
          cached_ -= oldest.bytes;
          evicted.push_back(oldest.data);
        }
        by_age_.push_front(Cached{bytes, data});
        // Ahead of the blocks of its size: the next request of that size
        // takes the block freed last, still in cache (rotating through
        // several equal blocks made a 1M-float add 2x slower).
        by_size_.emplace_hint(by_size_.lower_bound(bytes), bytes, by_age_.begin());
        cached_ += bytes;
      }
    }
    for (void* block : evicted) std::free(block);  // outside the lock: returning memory can be slow
  }

  std::mutex mutex_;
  std::list<Cached> by_age_;                  // cached blocks, most recently freed first
  std::multimap<size_t, Age> by_size_;            // the same blocks by size class
  std::unordered_map<void*, size_t> live_;        // handed out, with their size class
  size_t cached_ = 0;
};

struct CPUAllocator final : Allocator {
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, Device(DeviceType::CPU));
    // No allocation can be this large, and rounding it up to a size class
    // or to the alignment would wrap around to a small block.
    EMBER_CHECK(nbytes <= static_cast<size_t>(std::numeric_limits<ptrdiff_t>::max()),
                "DefaultCPUAllocator: not enough memory: you tried to allocate {} bytes.", nbytes);
    if (nbytes >= kLargeBlock) {
      void* data = LargeBlockCache::instance().allocate(LargeBlockCache::size_class(nbytes));
      EMBER_CHECK(data != nullptr, "DefaultCPUAllocator: not enough memory: you tried to allocate {} bytes.", nbytes);
      return DataPtr(data, data, &LargeBlockCache::release, Device(DeviceType::CPU));
    }
    if (nbytes <= kSmallBlockMax) {
      DataPtr block = allocate_small_block(nbytes);
      EMBER_CHECK(block, "DefaultCPUAllocator: not enough memory: you tried to allocate {} bytes.", nbytes);
      return block;
    }
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
  void copy_data(void*, const void*, size_t) const override {}
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

void Allocator::copy_data(void* dst, const void* src, size_t nbytes) const { std::memcpy(dst, src, nbytes); }

Allocator* GetCPUAllocator() { return &cpu_allocator; }

Allocator* GetAllocator(DeviceType t) {
  Allocator* a = allocators()[static_cast<int>(t)].load(std::memory_order_acquire);
  EMBER_CHECK(a != nullptr, "no allocator is registered for device type {}; was Ember built with {} support?",
              toString(t), toString(t));
  return a;
}

bool HasAllocator(DeviceType t) { return allocators()[static_cast<int>(t)].load(std::memory_order_acquire) != nullptr; }

void SetAllocator(DeviceType t, Allocator* allocator) {
  allocators()[static_cast<int>(t)].store(allocator, std::memory_order_release);
}

}  // namespace c10
