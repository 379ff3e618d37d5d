// The index math of the CUDA elementwise kernels, run on the host: the same
// header nvcc compiles into the kernels.

#include <aten/native/cuda/OffsetCalculator.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

using ember::native::cuda::IntDivider;
using ember::native::cuda::OffsetCalculator;

TEST(CudaIndexMath, IntDividerIsExactBelowTwoToThe31) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> numerator(0, (1u << 31) - 1);
  const uint32_t divisors[] = {1, 2, 3, 5, 7, 10, 64, 100, 1000, 2048, 4095, 65537, 1u << 20, 123456789,
                               (1u << 31) - 1};
  for (uint32_t d : divisors) {
    const IntDivider div(d);
    for (uint32_t n : {0u, 1u, d - 1, d, d + 1, (1u << 31) - 1}) EXPECT_EQ(div.div(n), n / d) << n << " / " << d;
    for (int i = 0; i < 2000; ++i) {
      const uint32_t n = numerator(rng);
      ASSERT_EQ(div.div(n), n / d) << n << " / " << d;
    }
  }
}

TEST(CudaIndexMath, OffsetsMatchABruteForceWalk) {
  // Three operands over a [5, 3, 4] iteration space (dim 0 fastest): a
  // contiguous output, a transposed input and a broadcast input.
  OffsetCalculator<3> calc;
  calc.dims = 3;
  const int64_t sizes[3] = {5, 3, 4};
  const int64_t strides[3][3] = {{4, 60, 0}, {20, 4, 8}, {60, 12, 24}};
  for (int d = 0; d < 3; ++d) {
    calc.sizes[d] = sizes[d];
    for (int k = 0; k < 3; ++k) calc.strides[d][k] = strides[d][k];
  }
  calc.init_dividers();
  int64_t linear = 0;
  for (int64_t c = 0; c < 4; ++c)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t a = 0; a < 5; ++a, ++linear) {
        int64_t wide[3], narrow[3];
        calc.get(linear, wide);
        calc.get32(static_cast<uint32_t>(linear), narrow);
        for (int k = 0; k < 3; ++k) {
          const int64_t want = a * strides[0][k] + b * strides[1][k] + c * strides[2][k];
          EXPECT_EQ(wide[k], want);
          EXPECT_EQ(narrow[k], want);
        }
      }
  EXPECT_TRUE(OffsetCalculator<3>::fits_32bit((int64_t{1} << 31) - 1));
  EXPECT_FALSE(OffsetCalculator<3>::fits_32bit(int64_t{1} << 31));
}
