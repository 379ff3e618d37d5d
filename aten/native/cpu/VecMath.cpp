#include <aten/native/cpu/VecMath.h>
#include <c10/util/bit_cast.h>

#include <algorithm>
#include <cmath>

namespace ember::native::cpu {

// exp(x) = 2^k * exp(r) with k = round(x / ln 2) and |r| <= ln(2)/2; exp(r)
// by a degree-6 polynomial (Cephes' coefficients). 2^k is applied as two
// halves so that k from -150 (subnormal results) to 128 stays representable.
// The body is written out in the loop, not in a helper: a helper compiled
// for the baseline target would not be inlined into the AVX2 clone.
__attribute__((target_clones("avx2", "default"))) void exp_floats(const float* x, float* y, int64_t n) {
  constexpr float kMax = 88.72283905206835f, kMin = -103.97207708f;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    float xc = v < kMin ? kMin : v;
    xc = xc > kMax ? kMax : xc;
    const float k = std::floor(xc * 1.44269504088896341f + 0.5f);
    const float r = xc - k * 0.693359375f + k * 2.12194440e-4f;  // ln 2 split in two for precision
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    const int32_t ki = static_cast<int32_t>(k);
    const int32_t half = ki >> 1;
    const float s1 = c10::bit_cast<float>(static_cast<uint32_t>(half + 127) << 23);
    const float s2 = c10::bit_cast<float>(static_cast<uint32_t>(ki - half + 127) << 23);
    float e = p * s1 * s2;
    e = v > kMax ? INFINITY : e;
    e = v < kMin ? 0.0f : e;
    y[i] = v != v ? v : e;
  }
}

__attribute__((target_clones("avx2", "default"))) double sum_floats(const float* x, int64_t n) {
  constexpr int64_t kLanes = 32, kBlock = 4096;
  double total = 0.0;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    float lanes[kLanes] = {};
    int64_t i = start;
    for (; i + kLanes <= end; i += kLanes)
      for (int64_t j = 0; j < kLanes; ++j) lanes[j] += x[i + j];
    double block = 0.0;
    for (; i < end; ++i) block += x[i];
    for (int64_t j = 0; j < kLanes; ++j) block += lanes[j];
    total += block;
  }
  return total;
}

}  // namespace ember::native::cpu
