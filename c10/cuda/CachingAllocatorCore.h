#pragma once
// The bookkeeping of the CUDA caching allocator, free of any CUDA header so
// that every machine tests it against a fake device. It follows PyTorch's
// design: requests are rounded to 512 bytes; blocks under 1 MiB come from
// 2 MiB segments of the small pool, larger ones from segments of their own
// (20 MiB, or the request rounded to 2 MiB) in the large pool; a segment is
// split to serve a request and freed neighbours merge again. A free block is
// reused only by the stream it was last used on, unless record_stream said
// other streams used it too (then it waits until those are done: the caller
// passes a query). When the device is full, cached blocks are released and
// the allocation retried once before the out-of-memory error.

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace c10::cuda {

using StreamId = uintptr_t;  // an opaque stream handle; 0 is the default stream

// The device memory calls the allocator makes. The real one wraps
// cudaMalloc/cudaFree; tests use a fake with a fixed capacity.
struct DeviceMemory {
  virtual ~DeviceMemory() = default;
  // Returns nullptr when the device has no room (no exception).
  virtual void* malloc(size_t nbytes) = 0;
  virtual void free(void* ptr) = 0;
  // Bytes free on the device and its total size, for the OOM message.
  virtual std::pair<size_t, size_t> mem_info() = 0;
  // Waits for outstanding work before segments go back to the device.
  virtual void synchronize() {}
};

using c10::OutOfMemoryError;

struct MemoryStats {
  int64_t allocated_bytes = 0;       // handed to tensors now
  int64_t reserved_bytes = 0;        // obtained from the device (cached or in use)
  int64_t active_blocks = 0;
  int64_t segments = 0;
  int64_t max_allocated_bytes = 0;
  int64_t max_reserved_bytes = 0;
  int64_t num_alloc_retries = 0;     // allocations that released the cache and tried again
  int64_t num_ooms = 0;
  int64_t allocations = 0;           // malloc calls served in all
  int64_t device_mallocs = 0;        // of those, how many went to the device
};

class CachingAllocatorCore {
 public:
  static constexpr size_t kRounding = 512;
  static constexpr size_t kSmallSize = size_t{1} << 20;       // requests up to this go to the small pool
  static constexpr size_t kSmallSegment = size_t{2} << 20;    // segments of the small pool
  static constexpr size_t kLargeSegment = size_t{20} << 20;   // segments for requests of 1-10 MiB
  static constexpr size_t kMinLargeAlloc = size_t{10} << 20;  // above this, a segment of the request's size
  static constexpr size_t kRoundLarge = size_t{2} << 20;
  static constexpr size_t kMinSplitRemainderSmall = kRounding;
  static constexpr size_t kMinSplitRemainderLarge = kSmallSize;

  // `device_name` appears in the out-of-memory message ("cuda:0").
  CachingAllocatorCore(std::unique_ptr<DeviceMemory> memory, std::string device_name);
  ~CachingAllocatorCore();

  // A block of at least `nbytes` for use on `stream`. nbytes == 0 gives nullptr.
  void* malloc(size_t nbytes, StreamId stream);
  void free(void* ptr);
  // `ptr` is also used on `stream`: its block is not reused before the
  // work queued there up to now is done (checked with the query below).
  void record_stream(void* ptr, StreamId stream);
  // Releases every cached segment that is wholly free.
  void empty_cache();
  MemoryStats stats() const;
  void reset_peak_stats();
  // Whether work recorded on a stream (see record_stream) has finished:
  // set by the device backend; tests use it to model busy streams.
  void set_stream_query(std::function<bool(StreamId)> query);

  static size_t round_size(size_t nbytes);
  static size_t allocation_size(size_t rounded);

 private:
  struct Block;
  struct BlockComparator {
    bool operator()(const Block* a, const Block* b) const;
  };
  using BlockPool = std::set<Block*, BlockComparator>;

  Block* find_free_block(BlockPool& pool, size_t size, StreamId stream);
  Block* allocate_segment(BlockPool& pool, size_t size, StreamId stream);
  void free_block(Block* block);
  bool release_cached_segments();
  void process_deferred_frees();
  void merge(Block* dst, Block* src, BlockPool& pool);
  [[noreturn]] void raise_oom(size_t requested);

  std::unique_ptr<DeviceMemory> memory_;
  std::string device_name_;
  mutable std::recursive_mutex mutex_;
  BlockPool small_pool_, large_pool_;
  std::unordered_map<void*, Block*> allocated_;
  std::unordered_set<Block*> deferred_;  // freed but waiting for other streams
  std::function<bool(StreamId)> stream_done_;
  MemoryStats stats_;
};

}  // namespace c10::cuda
