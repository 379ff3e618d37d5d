#pragma once
// A minimal N-operand strided loop: walks an N-d index space in row-major
// order, merging dims that are contiguous for every operand so the inner loop
// is as long as possible. The full TensorIterator (broadcasting, promotion,
// vectorization, threads) supersedes this for the operator library.

#include <c10/util/ArrayRef.h>

#include <array>
#include <cstdint>
#include <vector>

namespace ember::native {

template <size_t N>
struct StridedOperands {
  std::array<char*, N> data;
  std::array<std::vector<int64_t>, N> byte_strides;  // one entry per dim
};

// Calls inner(ptrs, strides, n) for each innermost run, where ptrs[k] points
// at the run's first element of operand k and strides[k] is its byte stride.
template <size_t N, typename Inner>
void strided_loop(c10::IntArrayRef sizes, StridedOperands<N> ops, Inner&& inner) {
  for (int64_t s : sizes)
    if (s == 0) return;

  // Coalesce: drop size-1 dims, merge dim i into i+1 when contiguous for all.
  std::vector<int64_t> shape;
  std::array<std::vector<int64_t>, N> strides;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    bool mergeable = !shape.empty();
    for (size_t k = 0; k < N && mergeable; ++k) {
      mergeable = strides[k].back() == ops.byte_strides[k][d] * sizes[d];
    }
    if (mergeable) {
      shape.back() *= sizes[d];
      for (size_t k = 0; k < N; ++k) strides[k].back() = ops.byte_strides[k][d];
    } else {
      shape.push_back(sizes[d]);
      for (size_t k = 0; k < N; ++k) strides[k].push_back(ops.byte_strides[k][d]);
    }
  }
  if (shape.empty()) {  // a single element
    std::array<int64_t, N> zero{};
    inner(ops.data, zero, int64_t{1});
    return;
  }

  const size_t ndim = shape.size();
  const int64_t inner_size = shape[ndim - 1];
  std::array<int64_t, N> inner_strides;
  for (size_t k = 0; k < N; ++k) inner_strides[k] = strides[k][ndim - 1];

  std::vector<int64_t> counter(ndim - 1, 0);
  std::array<char*, N> ptrs = ops.data;
  while (true) {
    inner(ptrs, inner_strides, inner_size);
    // Odometer increment over the outer dims.
    size_t d = ndim - 1;
    while (d > 0) {
      --d;
      if (++counter[d] < shape[d]) {
        for (size_t k = 0; k < N; ++k) ptrs[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) ptrs[k] -= strides[k][d] * (shape[d] - 1);
      counter[d] = 0;
      if (d == 0) return;
    }
    if (ndim == 1) return;
  }
}

}  // namespace ember::native
