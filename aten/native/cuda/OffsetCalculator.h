#pragma once
// Index math of the CUDA elementwise kernels: from a linear element index to
// each operand's byte offset, over a TensorIterator's (coalesced) shape.
// Plain C++ that nvcc compiles for the device too, so the host tests check
// the very code the kernels run.

#include <cstdint>

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember::native::cuda {

// As many dims as PyTorch's kernels take; TensorIterator merges dims first,
// so only tensors with that many non-mergeable dims reach the limit.
constexpr int kMaxDims = 25;

template <int N>
struct OffsetCalculator {
  int dims = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims][N] = {};  // bytes; dim 0 is the fastest

  // offsets[k] = byte offset of element `linear` in operand k.
  EMBER_HOST_DEVICE void get(int64_t linear, int64_t (&offsets)[N]) const {
#pragma unroll
    for (int k = 0; k < N; ++k) offsets[k] = 0;
#pragma unroll
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == dims) break;
      const int64_t size = sizes[d];
      const int64_t i = linear % size;
      linear /= size;
#pragma unroll
      for (int k = 0; k < N; ++k) offsets[k] += i * strides[d][k];
    }
  }
};

}  // namespace ember::native::cuda
