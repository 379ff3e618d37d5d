#include <c10/core/SmallBlockCache.h>

#include <array>
#include <cstdlib>
#include <utility>

namespace c10 {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCaching = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCaching = false;
#else
constexpr bool kCaching = true;
#endif
#else
constexpr bool kCaching = true;
#endif

constexpr size_t kSmallest = kCPUAlignment;  // class 0; each class doubles the block size
constexpr int kNumClasses = 10;              // 64 B ... 32 KiB
static_assert(kSmallest << (kNumClasses - 1) == kSmallBlockMax);

constexpr size_t block_bytes(int size_class) { return kSmallest << size_class; }

int size_class_of(size_t nbytes) {
  int k = 0;
  while (block_bytes(k) < nbytes) ++k;
  return k;
}

// A cached block holds the link to the next one in its first bytes.
struct FreeBlock {
  FreeBlock* next;
};

struct ThreadCache {
  FreeBlock* head[kNumClasses] = {};
  size_t count[kNumClasses] = {};

  void drain() {
    for (int k = 0; k < kNumClasses; ++k) {
      while (head[k] != nullptr) std::free(std::exchange(head[k], head[k]->next));
      count[k] = 0;
    }
  }
};

// The cache pointer is trivially destructible, so it stays readable while
// the thread's other thread_locals are destroyed: a tensor freed then (by
// another thread_local's destructor) finds it null and goes to free().
thread_local ThreadCache* this_thread_cache = nullptr;
thread_local bool this_thread_exiting = false;

struct CacheOwner {
  ThreadCache cache;
  CacheOwner() { this_thread_cache = &cache; }
  ~CacheOwner() {
    this_thread_cache = nullptr;
    this_thread_exiting = true;
    cache.drain();
  }
};

ThreadCache* thread_cache() {
  if (this_thread_cache == nullptr && !this_thread_exiting) {
    thread_local CacheOwner owner;  // constructed on first use in each thread
  }
  return this_thread_cache;
}

template <int K>
void release(void* data) {
  ThreadCache* cache = thread_cache();
  if (cache == nullptr || cache->count[K] * block_bytes(K) >= kSmallBlockCacheBytes) {
    std::free(data);
    return;
  }
  auto* block = static_cast<FreeBlock*>(data);
  block->next = cache->head[K];
  cache->head[K] = block;
  ++cache->count[K];
}

template <int... K>
constexpr std::array<DeleterFn, kNumClasses> make_releasers(std::integer_sequence<int, K...>) {
  return {&release<K>...};
}
constexpr std::array<DeleterFn, kNumClasses> kRelease = make_releasers(std::make_integer_sequence<int, kNumClasses>());

}  // namespace

DataPtr allocate_small_block(size_t nbytes) {
  const int k = size_class_of(nbytes);
  const Device cpu(DeviceType::CPU);
  if (!kCaching) {
    void* data = std::aligned_alloc(kCPUAlignment, block_bytes(k));
    return data ? DataPtr(data, data, &std::free, cpu) : DataPtr(nullptr, cpu);
  }
  if (ThreadCache* cache = thread_cache(); cache != nullptr && cache->head[k] != nullptr) {
    FreeBlock* block = cache->head[k];
    cache->head[k] = block->next;
    --cache->count[k];
    return DataPtr(block, block, kRelease[k], cpu);
  }
  void* data = std::aligned_alloc(kCPUAlignment, block_bytes(k));
  return data ? DataPtr(data, data, kRelease[k], cpu) : DataPtr(nullptr, cpu);
}

}  // namespace c10
