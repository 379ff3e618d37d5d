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
#if defined(__CUDA_ARCH__)
#define EMBER_UNROLL _Pragma("unroll")
#else
#define EMBER_UNROLL
#endif

namespace ember::native::cuda {

// Division by a divisor fixed at launch, as a multiply-high, an add and a
// shift (Granlund and Montgomery): the offset calculator divides by every
// dim's size for every element, and a hardware division costs a GPU many
// times a multiply. Exact for numerators and divisors below 2^31.
struct IntDivider {
  uint32_t divisor = 1;
  uint32_t magic = 1;
  uint32_t shift = 0;

  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }

  EMBER_HOST_DEVICE uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t high = __umulhi(n, magic);
#else
    const uint32_t high = static_cast<uint32_t>((static_cast<uint64_t>(n) * magic) >> 32);
#endif
    return (high + n) >> shift;
  }
};

// As many dims as PyTorch's kernels take; TensorIterator merges dims first,
// so only tensors with that many non-mergeable dims reach the limit.
constexpr int kMaxDims = 25;

template <int N>
struct OffsetCalculator {
  int dims = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims][N] = {};  // bytes; dim 0 is the fastest
  IntDivider dividers[kMaxDims] = {};  // of sizes, for get32

  // Whether get32 may be used: every linear index and size below 2^31.
  static bool fits_32bit(int64_t numel) { return numel < (int64_t{1} << 31); }
  void init_dividers() {
    for (int d = 0; d < dims; ++d) dividers[d] = IntDivider(static_cast<uint32_t>(sizes[d]));
  }

  // get() for a 32-bit linear index, dividing with the precomputed dividers.
  EMBER_HOST_DEVICE void get32(uint32_t linear, int64_t (&offsets)[N]) const {
EMBER_UNROLL
    for (int k = 0; k < N; ++k) offsets[k] = 0;
EMBER_UNROLL
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == dims) break;
      const uint32_t next = dividers[d].div(linear);
      const int64_t i = linear - next * dividers[d].divisor;
      linear = next;
EMBER_UNROLL
      for (int k = 0; k < N; ++k) offsets[k] += i * strides[d][k];
    }
  }

  // offsets[k] = byte offset of element `linear` in operand k.
  EMBER_HOST_DEVICE void get(int64_t linear, int64_t (&offsets)[N]) const {
EMBER_UNROLL
    for (int k = 0; k < N; ++k) offsets[k] = 0;
EMBER_UNROLL
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == dims) break;
      const int64_t size = sizes[d];
      const int64_t i = linear % size;
      linear /= size;
EMBER_UNROLL
      for (int k = 0; k < N; ++k) offsets[k] += i * strides[d][k];
    }
  }
};

}  // namespace ember::native::cuda
