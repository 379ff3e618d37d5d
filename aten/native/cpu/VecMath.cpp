#include <aten/native/cpu/VecMath.h>
#include <c10/util/bit_cast.h>

#include <algorithm>
#include <cmath>

namespace ember::native::cpu {

// Each hot loop is compiled for AVX-512, AVX2 and baseline x86-64; the
// loader picks the best the CPU has. (Clones are named by feature: "arch="
// clones are chosen by CPU model and never match AMD parts.)
#define EMBER_MATH_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

// exp(x) = 2^k * exp(r) with k = round(x / ln 2) and |r| <= ln(2)/2; exp(r)
// by a degree-6 polynomial (Cephes' coefficients). exp_parts returns p =
// exp(r) and k for an argument already clamped to a finite range; each exp
// below applies 2^k as its range allows. Always inlined, so that each
// target_clones clone gets it compiled for its own instruction set.
struct ExpParts {
  float p;
  int32_t k;
};
__attribute__((always_inline)) inline ExpParts exp_parts(float xc) {
  // Round to nearest by adding and removing 1.5 * 2^23 (exact for |x| < 2^22),
  // which vectorizes everywhere; std::floor becomes a libm call in some clones.
  constexpr float kRound = 12582912.0f;
  const float k = (xc * 1.44269504088896341f + kRound) - kRound;
  const float r = xc - k * 0.693359375f + k * 2.12194440e-4f;  // ln 2 split in two for precision
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  return {p, static_cast<int32_t>(k)};
}

__attribute__((always_inline)) inline float exp_approx(float v) {
  constexpr float kMax = 88.72283905206835f, kMin = -103.97207708f;
  float xc = v < kMin ? kMin : v;
  xc = xc > kMax ? kMax : xc;
  const auto [p, ki] = exp_parts(xc);
  // 2^k as two halves, so that k from -150 (subnormal results) to 128 stays representable.
  const int32_t half = ki >> 1;
  const float s1 = c10::bit_cast<float>(static_cast<uint32_t>(half + 127) << 23);
  const float s2 = c10::bit_cast<float>(static_cast<uint32_t>(ki - half + 127) << 23);
  float e = p * s1 * s2;
  e = v > kMax ? INFINITY : e;
  e = v < kMin ? 0.0f : e;
  return v != v ? v : e;
}

EMBER_MATH_CLONES void exp_floats(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = exp_approx(x[i]);
}

// tanh: Cephes' odd polynomial near 0 (where 1 - 2/(e^2x + 1) would cancel),
// that formula elsewhere.
EMBER_MATH_CLONES void tanh_floats(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float a = std::fabs(v);
    const float z = v * v;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    const float small = p * z * v + v;
    const float big = 1.0f - 2.0f / (exp_approx(2.0f * a) + 1.0f);
    const float signed_big = v < 0 ? -big : big;
    y[i] = a < 0.625f ? std::copysign(small, v) : signed_big;  // keeps tanh(-0) = -0
  }
}

EMBER_MATH_CLONES void sigmoid_floats(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + exp_approx(-x[i]));
}

// erf: x P(x^2) below 1; above, 1 - exp(-x^2) R(1/x), where R fits
// erfc(x) exp(x^2), which is smooth in 1/x. Both are least-squares fits of
// ours (relative error 1.4e-9 and 2.7e-9 in exact arithmetic); within 2.5
// ulp in float. erf(x) rounds to +-1 from |x| = 4 on.
__attribute__((always_inline)) inline float erf_approx(float v) {
  const float a = std::fabs(v);
  const float z = v * v;
  float p = 7.898210069573621e-05f;
  p = p * z - 0.0008024354084171713f;
  p = p * z + 0.0051900535722798164f;
  p = p * z - 0.026854808533909355f;
  p = p * z + 0.11283612428149789f;
  p = p * z - 0.37612628843313345f;
  p = p * z + 1.128379166510048f;
  const float small = v * p;
  const float u = 1.0f / std::max(a, 1.0f);
  float q = -0.03821760483455534f;
  q = q * u + 0.2646626335460971f;
  q = q * u - 0.810604173955055f;
  q = q * u + 1.4240048746192933f;
  q = q * u - 1.5240539588354713f;
  q = q * u + 0.8994859734893289f;
  q = q * u - 0.06926850819405299f;
  q = q * u - 0.28518630871889994f;
  q = q * u + 0.0030154582723016443f;
  q = q * u + 0.5637192282530884f;
  q = q * u + 2.596134831236548e-05f;
  float big = 1.0f - exp_approx(-z) * q;
  big = a >= 4.0f ? 1.0f : big;
  const float result = a < 1.0f ? small : (v < 0 ? -big : big);
  return v != v ? v : result;
}

EMBER_MATH_CLONES void erf_floats(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = erf_approx(x[i]);
}

// exp(-x^2 / 2), flushed to 0 once that leaves float's normal range (|x| >
// 13.2), which spares exp_approx's range and NaN handling: every caller
// multiplies by x, which carries a NaN through.
__attribute__((always_inline)) inline float gauss(float x) {
  const float w = -0.5f * x * x;
  const auto [p, k] = exp_parts(w < -87.0f ? -87.0f : w);
  const float e = p * c10::bit_cast<float>(static_cast<uint32_t>(k + 127) << 23);
  return w < -87.0f ? 0.0f : e;
}

// The standard normal's upper tail Q(|x|) = erfc(|x| / sqrt 2) / 2 as
// t g(x) S(t), with g = gauss and t = 1 / (1 + |x| / 4): S is smooth on the t
// that matter ([0.23, 1]), and S(t) here is a degree-8 least-squares fit of
// ours (relative error 5e-8 in exact arithmetic). One exp, shared with the
// density that gelu's gradient needs, and one division; the tail keeps its
// relative accuracy, which Phi(x) for x < 0 needs.
struct NormalParts {
  float gauss;       // exp(-x^2 / 2)
  float upper_tail;  // Q(|x|)
};
__attribute__((always_inline)) inline NormalParts normal_parts(float x) {
  const float t = 1.0f / (1.0f + 0.25f * std::fabs(x));
  float s = 2.653110306e-02f;
  s = s * t - 1.568053490e-01f;
  s = s * t + 3.045480748e-01f;
  s = s * t - 2.156530238e-01f;
  s = s * t + 2.087673092e-01f;
  s = s * t + 2.984406187e-02f;
  s = s * t + 1.045660858e-01f;
  s = s * t + 9.839681967e-02f;
  s = s * t + 9.980489365e-02f;
  const float g = gauss(x);
  return {g, t * g * s};
}

// Phi(x), the standard normal CDF, from the parts.
__attribute__((always_inline)) inline float normal_cdf(float x, float upper_tail) {
  return x < 0 ? upper_tail : 1.0f - upper_tail;
}

// gelu(x) = x Phi(x).
EMBER_MATH_CLONES void gelu_floats(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = v * normal_cdf(v, normal_parts(v).upper_tail);
  }
}

// grad * (Phi(x) + x phi(x)), phi the standard normal density.
EMBER_MATH_CLONES void gelu_backward_floats(const float* grad, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const auto [g, tail] = normal_parts(v);
    y[i] = grad[i] * (normal_cdf(v, tail) + v * g * 0.3989422804014327f);  // 1 / sqrt(2 pi)
  }
}

// The tanh approximation: 0.5 x (1 + tanh(u)) = x sigmoid(2u), with
// u = sqrt(2 / pi) (x + 0.044715 x^3); one exp and one division.
__attribute__((always_inline)) inline float gelu_tanh_sigmoid(float x) {
  const float two_u = 1.5957691216057308f * (x + 0.044715f * x * x * x);
  return 1.0f / (1.0f + exp_approx(-two_u));
}

EMBER_MATH_CLONES void gelu_tanh_floats(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * gelu_tanh_sigmoid(x[i]);
}

// d/dx x s(2u) = s + x s (1 - s) 2u', with 2u' = 2 sqrt(2 / pi) (1 + 3 * 0.044715 x^2).
EMBER_MATH_CLONES void gelu_tanh_backward_floats(const float* grad, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float s = gelu_tanh_sigmoid(v);
    const float du = 1.5957691216057308f * (1.0f + 0.134145f * v * v);
    y[i] = grad[i] * (s + v * s * (1.0f - s) * du);
  }
}

EMBER_MATH_CLONES double sum_floats(const float* x, int64_t n) {
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

// Sum of f(i) over [0, n) in 16 float lanes (vectorized), combined at the end.
template <typename F>
__attribute__((always_inline)) inline float lane_sum(int64_t n, F&& f) {
  constexpr int64_t kLanes = 16;
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] += f(i + j);
  float total = 0.0f;
  for (; i < n; ++i) total += f(i);
  for (int64_t j = 0; j < kLanes; ++j) total += lanes[j];
  return total;
}

EMBER_MATH_CLONES void row_moments_floats(const float* x, int64_t n, float eps,
                                                                          float* mean, float* rstd) {
  const float mu = lane_sum(n, [&](int64_t i) { return x[i]; }) / static_cast<float>(n);
  const float var = lane_sum(n, [&](int64_t i) {
                      const float d = x[i] - mu;
                      return d * d;
                    }) /
                    static_cast<float>(n);
  *mean = mu;
  *rstd = 1.0f / std::sqrt(var + eps);
}

EMBER_MATH_CLONES void normalize_row_floats(const float* x, int64_t n, float mean,
                                                                            float rstd, const float* w,
                                                                            const float* b, float* y) {
  if (w && b) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
  } else if (w) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i];
  } else if (b) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd + b[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd;
  }
}

// Each branch on w, dw and db is taken once per row, outside the loops, so
// every loop is a plain vector loop.
EMBER_MATH_CLONES void layer_norm_backward_rows_floats(const float* dy, const float* x, const float* w,
                                                       const float* mean, const float* rstd, float* dx, float* dw,
                                                       float* db, int64_t rows, int64_t n) {
  const float inv_n = 1.0f / static_cast<float>(n);
  for (int64_t r = 0; r < rows; ++r, dy += n, x += n) {
    const float mu = mean[r], inv = rstd[r];
    if (dx) {
      float* d = dx + r * n;
      if (w) {
        const float g_mean = lane_sum(n, [&](int64_t i) { return dy[i] * w[i]; }) * inv_n;
        const float gx_mean = lane_sum(n, [&](int64_t i) { return dy[i] * w[i] * (x[i] - mu); }) * inv * inv_n;
        for (int64_t i = 0; i < n; ++i) d[i] = inv * (dy[i] * w[i] - g_mean - (x[i] - mu) * inv * gx_mean);
      } else {
        const float g_mean = lane_sum(n, [&](int64_t i) { return dy[i]; }) * inv_n;
        const float gx_mean = lane_sum(n, [&](int64_t i) { return dy[i] * (x[i] - mu); }) * inv * inv_n;
        for (int64_t i = 0; i < n; ++i) d[i] = inv * (dy[i] - g_mean - (x[i] - mu) * inv * gx_mean);
      }
    }
    if (dw)
      for (int64_t i = 0; i < n; ++i) dw[i] += dy[i] * (x[i] - mu) * inv;
    if (db)
      for (int64_t i = 0; i < n; ++i) db[i] += dy[i];
  }
}

__attribute__((always_inline)) inline float row_max(const float* x, int64_t n) {
  constexpr int64_t kLanes = 16;
  float lanes[kLanes];
  for (int64_t j = 0; j < kLanes; ++j) lanes[j] = x[0];
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] = x[i + j] > lanes[j] ? x[i + j] : lanes[j];
  float m = lanes[0];
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  for (int64_t j = 0; j < kLanes; ++j) m = lanes[j] > m ? lanes[j] : m;
  return m;
}

// exp for v <= 0 only (softmax's x - max): no overflow to handle, and below
// -87 (where the result would be subnormal) it returns 0, so 2^k is one
// exponent-field write. NaN propagates through the compare-free clamp.
__attribute__((always_inline)) inline float exp_nonpositive(float v) {
  constexpr float kMin = -87.0f;
  const auto [p, k] = exp_parts(v < kMin ? kMin : v);
  const float e = p * c10::bit_cast<float>(static_cast<uint32_t>(k + 127) << 23);
  return v < kMin ? 0.0f : e;
}

// Whole blocks of rows per call: short rows (65 classes) would otherwise
// pay a call through the clone resolver per pass per row.
EMBER_MATH_CLONES void softmax_rows_floats(const float* x, float* y, int64_t rows, int64_t n, bool log, bool safe) {
  for (int64_t r = 0; r < rows; ++r, x += n, y += n) {
    float m = n > 0 ? row_max(x, n) : -INFINITY;
    if (safe && m == -INFINITY) {
      for (int64_t i = 0; i < n; ++i) y[i] = 0.0f;
      continue;
    }
    if (std::isinf(m)) m = m > 0 ? m : 0.0f;
    const float total = lane_sum(n, [&](int64_t i) { return y[i] = exp_nonpositive(x[i] - m); });
    if (log) {
      const float shift = m + std::log(total);
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
    } else {
      const float inv = 1.0f / total;
      for (int64_t i = 0; i < n; ++i) y[i] *= inv;
    }
  }
}

EMBER_MATH_CLONES void softmax_backward_rows_floats(const float* g, const float* y, float* dx, int64_t rows,
                                                    int64_t n, bool log) {
  for (int64_t r = 0; r < rows; ++r, g += n, y += n, dx += n) {
    if (log) {
      const float total = lane_sum(n, [&](int64_t i) { return g[i]; });
      for (int64_t i = 0; i < n; ++i) dx[i] = g[i] - exp_approx(y[i]) * total;
    } else {
      const float dot = lane_sum(n, [&](int64_t i) { return g[i] * y[i]; });
      for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (g[i] - dot);
    }
  }
}

// log(sum(exp(x))) of each row: NaN where the row holds +inf (inf - inf, as
// log_softmax gives), -inf where every entry is -inf.
EMBER_MATH_CLONES void logsumexp_rows_floats(const float* x, float* lse, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r, x += n) {
    const float m = row_max(x, n);
    if (std::isinf(m)) {
      lse[r] = m > 0 ? NAN : m;
      continue;
    }
    lse[r] = m + std::log(lane_sum(n, [&](int64_t i) { return exp_nonpositive(x[i] - m); }));
  }
}

// dx = scale[r] exp(x - lse[r]) for each row: the softmax, scaled, from the
// saved log-sum-exp.
EMBER_MATH_CLONES void scaled_softmax_rows_floats(const float* x, const float* lse, const float* scale, float* dx,
                                                  int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r, x += n, dx += n) {
    const float shift = lse[r], s = scale[r];
    if (!std::isfinite(shift)) {  // a row of -inf or with +inf: NaN, as log_softmax's backward gives
      for (int64_t i = 0; i < n; ++i) dx[i] = NAN;
      continue;
    }
    for (int64_t i = 0; i < n; ++i) dx[i] = s * exp_nonpositive(x[i] - shift);
  }
}

// Flash attention's online softmax over one block of scores: for each of
// `rows` rows of n, m[r] becomes max(m[r], the block's max), the scores
// become exp(s - m[r]), l[r] (the running sum) is rescaled by alpha[r] =
// exp(old m - new m) and the block's sum added; the caller rescales the
// row's accumulated output by alpha[r]. While every score so far is -inf
// (masked), the block gives zeros and nothing changes.
EMBER_MATH_CLONES void online_softmax_rows_floats(float* s, int64_t rows, int64_t n, float* m, float* l,
                                                  float* alpha) {
  for (int64_t r = 0; r < rows; ++r, s += n) {
    const float block_max = row_max(s, n);
    const float m_new = block_max > m[r] ? block_max : m[r];
    if (m_new == -INFINITY) {
      for (int64_t i = 0; i < n; ++i) s[i] = 0.0f;
      alpha[r] = 1.0f;
      continue;
    }
    alpha[r] = exp_nonpositive(m[r] - m_new);
    l[r] = l[r] * alpha[r] + lane_sum(n, [&](int64_t i) { return s[i] = exp_nonpositive(s[i] - m_new); });
    m[r] = m_new;
  }
}

// s = exp(s - lse[r]) for each row: attention's probabilities again from
// the saved log-sum-exp (zeros where lse is -inf: every score masked).
EMBER_MATH_CLONES void exp_minus_rows_floats(float* s, const float* lse, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r, s += n) {
    const float shift = lse[r];
    if (shift == -INFINITY) {
      for (int64_t i = 0; i < n; ++i) s[i] = 0.0f;
      continue;
    }
    for (int64_t i = 0; i < n; ++i) s[i] = exp_nonpositive(s[i] - shift);
  }
}

EMBER_MATH_CLONES void adam_step_floats(float* __restrict param, const float* __restrict grad,
                                          float* __restrict exp_avg, float* __restrict exp_avg_sq, int64_t n,
                                          const AdamCoefficients& c) {
  const AdamCoefficients k = c;  // by value: the loop must not reload through a pointer
  for (int64_t i = 0; i < n; ++i) {
    const float p = param[i];
    const float g = k.sign * grad[i] + k.coupled_decay * p;
    const float m = exp_avg[i] + k.one_minus_beta1 * (g - exp_avg[i]);
    const float v = exp_avg_sq[i] * k.beta2 + k.one_minus_beta2 * g * g;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    param[i] = p * k.decay + k.neg_step_size * (m / (std::sqrt(v) * k.inv_bias_correction2_sqrt + k.eps));
  }
}

EMBER_MATH_CLONES void accumulate_row_floats(const float* __restrict x, double* __restrict acc, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += static_cast<double>(x[j]);
}

}  // namespace ember::native::cpu
