#include <c10/cuda/CachingAllocatorCore.h>

#include <algorithm>
#include <tuple>
#include <vector>

namespace c10::cuda {

// One piece of a segment. The blocks of a segment form a list in address
// order (prev/next); the first has prev == nullptr, so a free block with
// neither neighbour is a whole segment that can go back to the device.
struct CachingAllocatorCore::Block {
  void* ptr = nullptr;
  size_t size = 0;
  StreamId stream = 0;
  BlockPool* pool = nullptr;
  Block* prev = nullptr;
  Block* next = nullptr;
  bool allocated = false;
  std::set<StreamId> stream_uses;  // other streams that used it (record_stream)
};

bool CachingAllocatorCore::BlockComparator::operator()(const Block* a, const Block* b) const {
  // Same stream first, then best fit, then address (a total order).
  return std::make_tuple(a->stream, a->size, reinterpret_cast<uintptr_t>(a->ptr)) <
         std::make_tuple(b->stream, b->size, reinterpret_cast<uintptr_t>(b->ptr));
}

CachingAllocatorCore::CachingAllocatorCore(std::unique_ptr<DeviceMemory> memory, std::string device_name)
    : memory_(std::move(memory)), device_name_(std::move(device_name)), stream_done_([](StreamId) { return true; }) {}

CachingAllocatorCore::~CachingAllocatorCore() {
  // Tensors still alive at exit keep their memory (the process is ending);
  // only the cache is handed back.
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  release_cached_segments();
}

size_t CachingAllocatorCore::round_size(size_t nbytes) {
  if (nbytes < kRounding) return kRounding;
  return (nbytes + kRounding - 1) / kRounding * kRounding;
}

size_t CachingAllocatorCore::allocation_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallSegment;
  if (rounded < kMinLargeAlloc) return kLargeSegment;
  return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

void CachingAllocatorCore::set_stream_query(std::function<bool(StreamId)> query) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  stream_done_ = std::move(query);
}

void* CachingAllocatorCore::malloc(size_t nbytes, StreamId stream) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  EMBER_CHECK(nbytes <= (size_t{1} << 62), "CUDA out of memory. Tried to allocate {} bytes on {}", nbytes,
              device_name_);
  process_deferred_frees();
  const size_t size = round_size(nbytes);
  BlockPool& pool = size <= kSmallSize ? small_pool_ : large_pool_;
  Block* block = find_free_block(pool, size, stream);
  if (block == nullptr) block = allocate_segment(pool, allocation_size(size), stream);
  if (block == nullptr) {
    // Give the cache back to the device and try once more.
    stats_.num_alloc_retries += 1;
    memory_->synchronize();
    process_deferred_frees();
    release_cached_segments();
    block = allocate_segment(pool, allocation_size(size), stream);
  }
  if (block == nullptr) raise_oom(nbytes);

  const size_t remaining = block->size - size;
  const bool split = &pool == &small_pool_ ? remaining >= kMinSplitRemainderSmall : remaining > kMinSplitRemainderLarge;
  if (split) {
    auto* rest = new Block();
    rest->ptr = static_cast<char*>(block->ptr) + size;
    rest->size = remaining;
    rest->stream = stream;
    rest->pool = &pool;
    rest->prev = block;
    rest->next = block->next;
    if (rest->next) rest->next->prev = rest;
    block->next = rest;
    block->size = size;
    pool.insert(rest);
  }
  block->allocated = true;
  allocated_[block->ptr] = block;
  stats_.allocated_bytes += static_cast<int64_t>(block->size);
  stats_.max_allocated_bytes = std::max(stats_.max_allocated_bytes, stats_.allocated_bytes);
  stats_.active_blocks += 1;
  stats_.allocations += 1;
  return block->ptr;
}

CachingAllocatorCore::Block* CachingAllocatorCore::find_free_block(BlockPool& pool, size_t size, StreamId stream) {
  Block key;
  key.stream = stream;
  key.size = size;
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.erase(it);
  return block;
}

CachingAllocatorCore::Block* CachingAllocatorCore::allocate_segment(BlockPool& pool, size_t size, StreamId stream) {
  void* ptr = memory_->malloc(size);
  if (ptr == nullptr) return nullptr;
  auto* block = new Block();
  block->ptr = ptr;
  block->size = size;
  block->stream = stream;
  block->pool = &pool;
  stats_.reserved_bytes += static_cast<int64_t>(size);
  stats_.max_reserved_bytes = std::max(stats_.max_reserved_bytes, stats_.reserved_bytes);
  stats_.segments += 1;
  stats_.device_mallocs += 1;
  return block;
}

void CachingAllocatorCore::free(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  auto it = allocated_.find(ptr);
  EMBER_INTERNAL_ASSERT(it != allocated_.end());
  Block* block = it->second;
  allocated_.erase(it);
  block->allocated = false;
  stats_.allocated_bytes -= static_cast<int64_t>(block->size);
  stats_.active_blocks -= 1;
  if (!block->stream_uses.empty()) {
    deferred_.insert(block);
    process_deferred_frees();
    return;
  }
  free_block(block);
}

void CachingAllocatorCore::record_stream(void* ptr, StreamId stream) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  auto it = allocated_.find(ptr);
  EMBER_CHECK(it != allocated_.end(), "record_stream: the pointer was not allocated by the CUDA caching allocator");
  if (stream != it->second->stream) it->second->stream_uses.insert(stream);
}

void CachingAllocatorCore::process_deferred_frees() {
  std::vector<Block*> ready;
  for (Block* block : deferred_) {
    const bool done = std::all_of(block->stream_uses.begin(), block->stream_uses.end(),
                                  [&](StreamId s) { return stream_done_(s); });
    if (done) ready.push_back(block);
  }
  for (Block* block : ready) {
    deferred_.erase(block);
    block->stream_uses.clear();
    free_block(block);
  }
}

void CachingAllocatorCore::merge(Block* dst, Block* src, BlockPool& pool) {
  if (!src || src->allocated || deferred_.count(src)) return;
  if (dst->prev == src) {  // src lies before dst
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev) dst->prev->next = dst;
  } else {
    dst->next = src->next;
    if (dst->next) dst->next->prev = dst;
  }
  dst->size += src->size;
  pool.erase(src);
  delete src;
}

void CachingAllocatorCore::free_block(Block* block) {
  BlockPool& pool = *block->pool;
  merge(block, block->prev, pool);
  merge(block, block->next, pool);
  pool.insert(block);
}

bool CachingAllocatorCore::release_cached_segments() {
  bool released = false;
  for (BlockPool* pool : {&small_pool_, &large_pool_}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* block = *it;
      if (block->prev == nullptr && block->next == nullptr) {
        memory_->free(block->ptr);
        stats_.reserved_bytes -= static_cast<int64_t>(block->size);
        stats_.segments -= 1;
        it = pool->erase(it);
        delete block;
        released = true;
      } else {
        ++it;
      }
    }
  }
  return released;
}

void CachingAllocatorCore::empty_cache() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  memory_->synchronize();
  process_deferred_frees();
  release_cached_segments();
}

MemoryStats CachingAllocatorCore::stats() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return stats_;
}

void CachingAllocatorCore::reset_peak_stats() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  stats_.max_allocated_bytes = stats_.allocated_bytes;
  stats_.max_reserved_bytes = stats_.reserved_bytes;
}

namespace {
std::string format_bytes(size_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (size_t{1} << 30)) return fmt::format("{:.2f} GiB", b / (1 << 30));
  if (bytes >= (size_t{1} << 20)) return fmt::format("{:.2f} MiB", b / (1 << 20));
  if (bytes >= (size_t{1} << 10)) return fmt::format("{:.2f} KiB", b / (1 << 10));
  return fmt::format("{} bytes", bytes);
}
}  // namespace

void CachingAllocatorCore::raise_oom(size_t requested) {
  stats_.num_ooms += 1;
  const auto [free_bytes, total_bytes] = memory_->mem_info();
  const size_t allocated = static_cast<size_t>(stats_.allocated_bytes);
  const size_t reserved = static_cast<size_t>(stats_.reserved_bytes);
  throw OutOfMemoryError(
      fmt::format("CUDA out of memory. Tried to allocate {}. Device {} has a total capacity of {} of which {} is "
                  "free. Of the memory in use, {} is allocated by Ember, and {} is reserved by Ember but unallocated.",
                  format_bytes(requested), device_name_, format_bytes(total_bytes), format_bytes(free_bytes),
                  format_bytes(allocated), format_bytes(reserved - allocated)),
      __FILE__, __LINE__);
}

}  // namespace c10::cuda
