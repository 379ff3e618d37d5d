#include <aten/native/cpu/VecMath.h>

#include <aten/native/cpu/CpuCapability.h>
#include <c10/util/bit_cast.h>

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace ember::native::cpu {

namespace {

// One instruction set's copy of every kernel.
struct Kernels {
  decltype(&cpu::exp_floats) exp_floats;
  decltype(&cpu::expm1_floats) expm1_floats;
  decltype(&cpu::tanh_floats) tanh_floats;
  decltype(&cpu::sigmoid_floats) sigmoid_floats;
  decltype(&cpu::silu_floats) silu_floats;
  decltype(&cpu::erf_floats) erf_floats;
  decltype(&cpu::erfc_floats) erfc_floats;
  decltype(&cpu::erfinv_floats) erfinv_floats;
  decltype(&cpu::gelu_floats) gelu_floats;
  decltype(&cpu::gelu_backward_floats) gelu_backward_floats;
  decltype(&cpu::gelu_tanh_floats) gelu_tanh_floats;
  decltype(&cpu::gelu_tanh_backward_floats) gelu_tanh_backward_floats;
  decltype(&cpu::sum_floats) sum_floats;
  decltype(&cpu::row_moments_floats) row_moments_floats;
  decltype(&cpu::normalize_row_floats) normalize_row_floats;
  decltype(&cpu::layer_norm_backward_rows_floats) layer_norm_backward_rows_floats;
  decltype(&cpu::softmax_rows_floats) softmax_rows_floats;
  decltype(&cpu::softmax_backward_rows_floats) softmax_backward_rows_floats;
  decltype(&cpu::logsumexp_rows_floats) logsumexp_rows_floats;
  decltype(&cpu::scaled_softmax_rows_floats) scaled_softmax_rows_floats;
  decltype(&cpu::online_softmax_rows_floats) online_softmax_rows_floats;
  decltype(&cpu::exp_minus_rows_floats) exp_minus_rows_floats;
  decltype(&cpu::adam_step_floats) adam_step_floats;
  decltype(&cpu::accumulate_rows_floats) accumulate_rows_floats;
  decltype(&cpu::bfloat16_to_floats) bfloat16_to_floats;
  decltype(&cpu::floats_to_bfloat16) floats_to_bfloat16;
  decltype(&cpu::sum_squared_deviations_floats) sum_squared_deviations_floats;
  decltype(&cpu::gradient_sums_floats) gradient_sums_floats;
  decltype(&cpu::scale_shift_floats) scale_shift_floats;
  decltype(&cpu::batch_norm_backward_floats) batch_norm_backward_floats;
  decltype(&cpu::extreme_rows_floats) extreme_rows_floats;
  decltype(&cpu::extreme_columns_floats) extreme_columns_floats;
  decltype(&cpu::half_to_floats) half_to_floats;
  decltype(&cpu::floats_to_half) floats_to_half;
};

}  // namespace

// The kernels are compiled three times, for AVX-512, AVX2 with FMA and
// baseline x86-64, each copy in a namespace of its own (FMA helps the AVX2
// copy, exp of 1M floats 738 -> 587 us on AMD EPYC, and slows the AVX-512
// one, 386 -> 476 us); cpu_capability() picks one
// when a kernel is first called (EMBER_CPU_CAPABILITY can pick a smaller
// one). Features, not CPU models, name the sets: "arch=" targets are chosen
// by model and never match AMD parts.
// Each copy also gets its conversion of 8 floats to and from IEEE half
// (F16C where there is AVX2; GCC does not vectorize _Float16 casts).
#pragma GCC push_options
#pragma GCC target("avx512f,f16c")
namespace avx512 {
inline void half8_to_floats(const uint16_t* x, float* y) {
  _mm256_storeu_ps(y, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x))));
}
inline void floats8_to_half(const float* x, uint16_t* y) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm256_cvtps_ph(_mm256_loadu_ps(x), _MM_FROUND_TO_NEAREST_INT));
}
#include "VecMathKernels.inc"
}  // namespace avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
namespace avx2 {
inline void half8_to_floats(const uint16_t* x, float* y) {
  _mm256_storeu_ps(y, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x))));
}
inline void floats8_to_half(const float* x, uint16_t* y) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm256_cvtps_ph(_mm256_loadu_ps(x), _MM_FROUND_TO_NEAREST_INT));
}
#include "VecMathKernels.inc"
}  // namespace avx2
#pragma GCC pop_options

namespace baseline {
inline void half8_to_floats(const uint16_t* x, float* y) {
  for (int i = 0; i < 8; ++i) y[i] = static_cast<float>(c10::bit_cast<_Float16>(x[i]));
}
inline void floats8_to_half(const float* x, uint16_t* y) {
  for (int i = 0; i < 8; ++i) y[i] = c10::bit_cast<uint16_t>(static_cast<_Float16>(x[i]));
}
#include "VecMathKernels.inc"
}  // namespace baseline

namespace {

const Kernels& kernels() {
  static const Kernels& chosen = cpu_capability() == CpuCapability::AVX512 ? avx512::kKernels
                                 : cpu_capability() == CpuCapability::AVX2 ? avx2::kKernels
                                                                           : baseline::kKernels;
  return chosen;
}

}  // namespace

void exp_floats(const float* x, float* y, int64_t n) {
  kernels().exp_floats(x, y, n);
}

void erfinv_floats(const float* x, float* y, int64_t n) {
  kernels().erfinv_floats(x, y, n);
}

void expm1_floats(const float* x, float* y, int64_t n) {
  kernels().expm1_floats(x, y, n);
}

void tanh_floats(const float* x, float* y, int64_t n) {
  kernels().tanh_floats(x, y, n);
}

void sigmoid_floats(const float* x, float* y, int64_t n) {
  kernels().sigmoid_floats(x, y, n);
}

void silu_floats(const float* x, float* y, int64_t n) {
  kernels().silu_floats(x, y, n);
}

void erf_floats(const float* x, float* y, int64_t n) {
  kernels().erf_floats(x, y, n);
}

void erfc_floats(const float* x, float* y, int64_t n) {
  kernels().erfc_floats(x, y, n);
}

void gelu_floats(const float* x, float* y, int64_t n) {
  kernels().gelu_floats(x, y, n);
}

void gelu_backward_floats(const float* grad, const float* x, float* y, int64_t n) {
  kernels().gelu_backward_floats(grad, x, y, n);
}

void gelu_tanh_floats(const float* x, float* y, int64_t n) {
  kernels().gelu_tanh_floats(x, y, n);
}

void gelu_tanh_backward_floats(const float* grad, const float* x, float* y, int64_t n) {
  kernels().gelu_tanh_backward_floats(grad, x, y, n);
}

double sum_floats(const float* x, int64_t n) {
  return kernels().sum_floats(x, n);
}

void row_moments_floats(const float* x, int64_t n, float eps, float* mean, float* rstd) {
  kernels().row_moments_floats(x, n, eps, mean, rstd);
}

void normalize_row_floats(const float* x, int64_t n, float mean, float rstd, const float* w, const float* b, float* y) {
  kernels().normalize_row_floats(x, n, mean, rstd, w, b, y);
}

void layer_norm_backward_rows_floats(const float* dy, const float* x, const float* w, const float* mean,
                                     const float* rstd, float* dx, float* dw, float* db, int64_t rows, int64_t n) {
  kernels().layer_norm_backward_rows_floats(dy, x, w, mean, rstd, dx, dw, db, rows, n);
}

void softmax_rows_floats(const float* x, float* y, int64_t rows, int64_t n, bool log, bool safe) {
  kernels().softmax_rows_floats(x, y, rows, n, log, safe);
}

void softmax_backward_rows_floats(const float* g, const float* y, float* dx, int64_t rows, int64_t n, bool log) {
  kernels().softmax_backward_rows_floats(g, y, dx, rows, n, log);
}

void logsumexp_rows_floats(const float* x, float* lse, int64_t rows, int64_t n) {
  kernels().logsumexp_rows_floats(x, lse, rows, n);
}

void scaled_softmax_rows_floats(const float* x, const float* lse, const float* scale, float* dx, int64_t rows,
                                int64_t n) {
  kernels().scaled_softmax_rows_floats(x, lse, scale, dx, rows, n);
}

void online_softmax_rows_floats(float* s, int64_t rows, int64_t n, float* m, float* l, float* alpha) {
  kernels().online_softmax_rows_floats(s, rows, n, m, l, alpha);
}

void exp_minus_rows_floats(float* s, const float* lse, int64_t rows, int64_t n) {
  kernels().exp_minus_rows_floats(s, lse, rows, n);
}

void adam_step_floats(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, int64_t n,
                      const AdamCoefficients& c) {
  kernels().adam_step_floats(param, grad, exp_avg, exp_avg_sq, n, c);
}

void half_to_floats(const uint16_t* x, float* y, int64_t n) { kernels().half_to_floats(x, y, n); }
void floats_to_half(const float* x, uint16_t* y, int64_t n) { kernels().floats_to_half(x, y, n); }

void extreme_rows_floats(const float* x, float* out, int64_t rows, int64_t n, bool is_max) {
  kernels().extreme_rows_floats(x, out, rows, n, is_max);
}

void extreme_columns_floats(const float* x, int64_t stride, float* out, int64_t rows, int64_t cols, bool is_max) {
  kernels().extreme_columns_floats(x, stride, out, rows, cols, is_max);
}

void accumulate_rows_floats(const float* x, int64_t stride, int64_t rows, double* acc, int64_t n) {
  kernels().accumulate_rows_floats(x, stride, rows, acc, n);
}

void bfloat16_to_floats(const uint16_t* x, float* y, int64_t n) {
  kernels().bfloat16_to_floats(x, y, n);
}

void floats_to_bfloat16(const float* x, uint16_t* y, int64_t n) {
  kernels().floats_to_bfloat16(x, y, n);
}

double sum_squared_deviations_floats(const float* x, int64_t n, float mean) {
  return kernels().sum_squared_deviations_floats(x, n, mean);
}

void gradient_sums_floats(const float* g, const float* x, int64_t n, float mean, double* sum_g, double* sum_g_dev) {
  kernels().gradient_sums_floats(g, x, n, mean, sum_g, sum_g_dev);
}

void scale_shift_floats(const float* x, float* y, int64_t n, float scale, float shift) {
  kernels().scale_shift_floats(x, y, n, scale, shift);
}

void batch_norm_backward_floats(const float* g, const float* x, float* dx, int64_t n, float mean, float scale,
                                float mean_g, float proj) {
  kernels().batch_norm_backward_floats(g, x, dx, n, mean, scale, mean_g, proj);
}

}  // namespace ember::native::cpu
