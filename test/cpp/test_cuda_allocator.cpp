// The CUDA caching allocator's bookkeeping, against a fake device with a
// fixed capacity: runs on every machine, GPU or not.

#include <c10/cuda/CachingAllocatorCore.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

using c10::cuda::CachingAllocatorCore;
using c10::cuda::DeviceMemory;
using c10::cuda::OutOfMemoryError;

namespace {

constexpr size_t MiB = size_t{1} << 20;

// Hands out addresses from a pretend address space (never dereferenced).
struct FakeDevice final : DeviceMemory {
  explicit FakeDevice(size_t capacity, int* mallocs = nullptr, int* frees = nullptr)
      : capacity(capacity), mallocs(mallocs), frees(frees) {}
  void* malloc(size_t nbytes) override {
    if (used + nbytes > capacity) return nullptr;
    used += nbytes;
    void* p = reinterpret_cast<void*>(next);
    next += nbytes + 4096;
    live[p] = nbytes;
    if (mallocs) ++*mallocs;
    return p;
  }
  void free(void* p) override {
    auto it = live.find(p);
    ASSERT_NE(it, live.end()) << "freed a pointer that is not a segment";
    used -= it->second;
    live.erase(it);
    if (frees) ++*frees;
  }
  std::pair<size_t, size_t> mem_info() override { return {capacity - used, capacity}; }

  size_t capacity, used = 0;
  uintptr_t next = 0x10000000;
  std::map<void*, size_t> live;
  int* mallocs;
  int* frees;
};

CachingAllocatorCore make(size_t capacity, int* mallocs = nullptr, int* frees = nullptr) {
  return CachingAllocatorCore(std::make_unique<FakeDevice>(capacity, mallocs, frees), "cuda:0");
}

}  // namespace

TEST(CudaCachingAllocator, RoundsAndSizesSegmentsLikePyTorch) {
  EXPECT_EQ(CachingAllocatorCore::round_size(1), 512u);
  EXPECT_EQ(CachingAllocatorCore::round_size(512), 512u);
  EXPECT_EQ(CachingAllocatorCore::round_size(513), 1024u);
  EXPECT_EQ(CachingAllocatorCore::allocation_size(512), 2 * MiB);
  EXPECT_EQ(CachingAllocatorCore::allocation_size(MiB), 2 * MiB);
  EXPECT_EQ(CachingAllocatorCore::allocation_size(MiB + 512), 20 * MiB);
  EXPECT_EQ(CachingAllocatorCore::allocation_size(11 * MiB), 12 * MiB);
}

TEST(CudaCachingAllocator, SmallBlocksShareOneSegmentAndAreReused) {
  int mallocs = 0;
  auto a = make(1024 * MiB, &mallocs);
  void* p = a.malloc(1000, 0);
  void* q = a.malloc(1000, 0);
  EXPECT_EQ(mallocs, 1);  // both from one 2 MiB segment
  EXPECT_EQ(static_cast<char*>(q) - static_cast<char*>(p), 1024);
  EXPECT_EQ(a.stats().allocated_bytes, 2048);
  EXPECT_EQ(a.stats().reserved_bytes, static_cast<int64_t>(2 * MiB));
  a.free(p);
  void* r = a.malloc(700, 0);
  EXPECT_EQ(r, p);  // the freed block is reused, not a new one
  EXPECT_EQ(mallocs, 1);
  a.free(q);
  a.free(r);
  EXPECT_EQ(a.stats().allocated_bytes, 0);
  EXPECT_EQ(a.stats().reserved_bytes, static_cast<int64_t>(2 * MiB));  // still cached
}

TEST(CudaCachingAllocator, FreedNeighboursMergeBackIntoTheSegment) {
  int mallocs = 0, frees = 0;
  auto a = make(1024 * MiB, &mallocs, &frees);
  void* x = a.malloc(3 * MiB, 0);  // a 20 MiB segment, split
  void* y = a.malloc(3 * MiB, 0);
  void* z = a.malloc(3 * MiB, 0);
  EXPECT_EQ(mallocs, 1);
  a.free(y);
  a.free(x);
  a.free(z);
  // Whole again: one 20 MiB request fits without a new segment.
  void* big = a.malloc(20 * MiB, 0);
  EXPECT_EQ(big, x);
  EXPECT_EQ(mallocs, 1);
  a.free(big);
  a.empty_cache();
  EXPECT_EQ(frees, 1);
  EXPECT_EQ(a.stats().reserved_bytes, 0);
  EXPECT_EQ(a.stats().segments, 0);
}

TEST(CudaCachingAllocator, LargeRequestsGetTheirOwnRoundedSegment) {
  int mallocs = 0;
  auto a = make(1024 * MiB, &mallocs);
  void* p = a.malloc(50 * MiB + 1, 0);
  EXPECT_EQ(a.stats().reserved_bytes, static_cast<int64_t>(52 * MiB));
  a.free(p);
  void* q = a.malloc(51 * MiB, 0);  // fits the cached segment
  EXPECT_EQ(q, p);
  EXPECT_EQ(mallocs, 1);
  a.free(q);
}

TEST(CudaCachingAllocator, BlocksAreReusedOnlyByTheirStream) {
  int mallocs = 0;
  auto a = make(1024 * MiB, &mallocs);
  void* p = a.malloc(4 * MiB, /*stream=*/1);
  a.free(p);
  void* q = a.malloc(4 * MiB, /*stream=*/2);
  EXPECT_NE(q, p);
  EXPECT_EQ(mallocs, 2);
  a.free(q);
}

TEST(CudaCachingAllocator, RecordStreamDefersReuseUntilThatStreamIsDone) {
  auto a = make(1024 * MiB);
  bool stream2_done = false;
  a.set_stream_query([&](c10::cuda::StreamId s) { return s != 2 || stream2_done; });
  void* p = a.malloc(4096, 1);
  a.record_stream(p, 2);
  a.free(p);
  void* q = a.malloc(4096, 1);
  EXPECT_NE(q, p);  // stream 2 may still read p
  stream2_done = true;
  void* r = a.malloc(4096, 1);
  EXPECT_EQ(r, p);
  a.free(q);
  a.free(r);
}

TEST(CudaCachingAllocator, OutOfMemoryReleasesTheCacheAndRetriesFirst) {
  int frees = 0;
  auto a = make(64 * MiB, nullptr, &frees);
  void* p = a.malloc(40 * MiB, 0);
  a.free(p);  // 40 MiB cached, only 24 MiB left on the device
  void* q = a.malloc(50 * MiB, 0);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(frees, 1);
  EXPECT_EQ(a.stats().num_alloc_retries, 1);
  a.free(q);
}

TEST(CudaCachingAllocator, OutOfMemorySaysRequestedReservedAndFree) {
  auto a = make(64 * MiB);
  void* p = a.malloc(30 * MiB, 0);
  try {
    a.malloc(100 * MiB, 0);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_STREQ(e.what(),
                 "CUDA out of memory. Tried to allocate 100.00 MiB. Device cuda:0 has a total capacity of 64.00 MiB "
                 "of which 34.00 MiB is free. Of the memory in use, 30.00 MiB is allocated by Ember, and 0 bytes is "
                 "reserved by Ember but unallocated.");
  }
  EXPECT_EQ(a.stats().num_ooms, 1);
  a.free(p);
  // A huge request fails at once instead of asking the device.
  EXPECT_THROW(a.malloc(size_t{1} << 63, 0), c10::Error);
}

TEST(CudaCachingAllocator, PeakStatsTrackAndReset) {
  auto a = make(1024 * MiB);
  void* p = a.malloc(8 * MiB, 0);
  void* q = a.malloc(8 * MiB, 0);
  a.free(q);
  EXPECT_EQ(a.stats().max_allocated_bytes, static_cast<int64_t>(16 * MiB));
  a.reset_peak_stats();
  EXPECT_EQ(a.stats().max_allocated_bytes, static_cast<int64_t>(8 * MiB));
  a.free(p);
  EXPECT_EQ(a.malloc(0, 0), nullptr);
}
