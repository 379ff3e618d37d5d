#include <aten/native/cpu/VecMath.h>
#include <c10/util/bit_cast.h>

#include <algorithm>
#include <cmath>

namespace ember::native::cpu {

namespace {

inline float pow2(int32_t e) { return c10::bit_cast<float>(static_cast<uint32_t>(e + 127) << 23); }

// exp(x) = 2^k * exp(r) with k = round(x / ln 2) and |r| <= ln(2)/2; exp(r)
// by a degree-6 polynomial (Cephes' coefficients). 2^k is applied as two
// halves so that k from -150 (subnormal results) to 128 stays representable.
inline float exp_one(float x) {
  constexpr float kMax = 88.72283905206835f, kMin = -103.97207708f;
  const float xc = std::min(std::max(x, kMin), kMax);
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
  const float y = p * pow2(half) * pow2(ki - half);
  return x != x ? x : (x > kMax ? INFINITY : (x < kMin ? 0.0f : y));
}

}  // namespace

__attribute__((target_clones("arch=haswell", "default"))) void exp_floats(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = exp_one(x[i]);
}

__attribute__((target_clones("arch=haswell", "default"))) double sum_floats(const float* x, int64_t n) {
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
