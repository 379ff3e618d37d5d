#pragma once
// Intra-op parallelism: parallel_for splits a range over the OpenMP thread
// team (the calling thread one of them), the team oneDNN's kernels use too.
// Nested calls run serially, so kernels can use parallel_for without caring
// who called them.

#include <algorithm>
#include <cstdint>
#include <functional>

namespace ember {

// Defaults to the number of cores, or EMBER_NUM_THREADS / OMP_NUM_THREADS.
int get_num_threads();
// Like torch.set_num_threads: the team has this size from the next parallel_for on.
void set_num_threads(int n);
bool in_parallel_region();
// OpenMP's thread count is each thread's own, and threads started by users
// or libraries (Python threads, an ember::deploy server's) begin with
// OpenMP's default: what runs on OpenMP itself (oneDNN's primitives and
// sgemm) is called after this, which gives the calling thread the count
// set_num_threads chose.
void use_num_threads_on_this_thread();

namespace detail {
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain_size,
                       const std::function<void(int64_t, int64_t)>& f);
}

// Calls f(chunk_begin, chunk_end) over [begin, end) in chunks of at least
// grain_size elements; serial when the range is small or already inside a
// parallel region. The first exception thrown by a chunk is rethrown here.
// The grain of a row-wise kernel: rows of `row_length` elements per task,
// about 16K elements each, so that a task is worth a thread's wake-up.
inline int64_t rows_per_task(int64_t row_length) {
  return std::max<int64_t>(1, 16384 / std::max<int64_t>(row_length, 1));
}

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (begin >= end) return;
  if (end - begin <= grain_size || in_parallel_region() || get_num_threads() == 1) {
    f(begin, end);
    return;
  }
  detail::parallel_for_impl(begin, end, grain_size, f);
}

}  // namespace ember
