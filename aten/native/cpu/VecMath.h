#pragma once
// Hot loops over contiguous float arrays, written so the compiler
// vectorizes them, and compiled for AVX-512, AVX2 and baseline x86-64
// (VecMathKernels.inc), the copy chosen by cpu_capability().

#include <cstdint>

namespace ember::native::cpu {

// y[i] = exp(x[i]); within 2 ulp on [-87, 88], inf/0 beyond, NaN kept.
void exp_floats(const float* x, float* y, int64_t n);
// y[i] = expm1(x[i]); within 2 ulp, small x keep their relative accuracy.
void expm1_floats(const float* x, float* y, int64_t n);
void tanh_floats(const float* x, float* y, int64_t n);
void sigmoid_floats(const float* x, float* y, int64_t n);
void silu_floats(const float* x, float* y, int64_t n);
// erf within 2.5 ulp; gelu (exact form) and its gradient, from a normal
// tail approximation with full relative accuracy for negative inputs.
void erf_floats(const float* x, float* y, int64_t n);
// erfc within about half an ulp, evaluated in double.
void erfc_floats(const float* x, float* y, int64_t n);
// erfinv within about half an ulp, evaluated in double.
void erfinv_floats(const float* x, float* y, int64_t n);
void gelu_floats(const float* x, float* y, int64_t n);
void gelu_backward_floats(const float* grad, const float* x, float* y, int64_t n);
// gelu's tanh approximation and its gradient, as x sigmoid(2u).
void gelu_tanh_floats(const float* x, float* y, int64_t n);
void gelu_tanh_backward_floats(const float* grad, const float* x, float* y, int64_t n);
// Sum of n floats, accumulated in float lanes per block and double across
// blocks: vector speed with error far below naive float summation.
double sum_floats(const float* x, int64_t n);

// Softmax (log: log_softmax; safe: all -inf rows give zeros) of `rows`
// contiguous rows of n floats, y = exp(x - max) / sum.
void softmax_rows_floats(const float* x, float* y, int64_t rows, int64_t n, bool log, bool safe);
// Its backward for each row: dx = y (g - sum(g y)); for log_softmax
// (y = log p), dx = g - exp(y) sum(g).
void softmax_backward_rows_floats(const float* g, const float* y, float* dx, int64_t rows, int64_t n, bool log);
// Cross entropy's rows: the log-sum-exp of each row, and scale[r] times the
// softmax recovered from it (x - lse <= 0 up to rounding).
void logsumexp_rows_floats(const float* x, float* lse, int64_t rows, int64_t n);
void scaled_softmax_rows_floats(const float* x, const float* lse, const float* scale, float* dx, int64_t rows,
                                int64_t n);

// Fused attention (aten/native/Attention.cpp): the online softmax update of
// one block of scores, and the probabilities again from the log-sum-exp.
void online_softmax_rows_floats(float* s, int64_t rows, int64_t n, float* m, float* l, float* alpha);
void exp_minus_rows_floats(float* s, const float* lse, int64_t rows, int64_t n);

// One Adam update over n elements (see FusedAdam.cpp for the coefficients).
struct AdamCoefficients {
  float sign, decay, coupled_decay, one_minus_beta1, beta2, one_minus_beta2, inv_bias_correction2_sqrt, eps,
      neg_step_size;
};
void adam_step_floats(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, int64_t n,
                      const AdamCoefficients& c);
// max (is_max) or min of each of `rows` rows of n > 0 floats, and of each
// column of a rows x cols matrix (rows > 0, `stride` apart); NaN where one
// is NaN.
void extreme_rows_floats(const float* x, float* out, int64_t rows, int64_t n, bool is_max);
void extreme_columns_floats(const float* x, int64_t stride, float* out, int64_t rows, int64_t cols, bool is_max);
// acc[j] += x[r stride + j] for r < rows, j < n: column sums into double
// accumulators.
void accumulate_rows_floats(const float* x, int64_t stride, int64_t rows, double* acc, int64_t n);

// Layer norm, one row of n floats at a time. Moments: the mean and
// 1 / sqrt(biased variance + eps), in two passes (no cancellation).
void row_moments_floats(const float* x, int64_t n, float eps, float* mean, float* rstd);
// y = (x - mean) * rstd * w + b; w and b may be null.
void normalize_row_floats(const float* x, int64_t n, float mean, float rstd, const float* w, const float* b,
                          float* y);
// The backward of `rows` contiguous rows of n: dx (if not null) =
// rstd (g - mean(g) - xhat mean(g xhat)) with g = dy w (w may be null), and
// dw += dy xhat, db += dy (either may be null). One call per block of rows.
void layer_norm_backward_rows_floats(const float* dy, const float* x, const float* w, const float* mean,
                                     const float* rstd, float* dx, float* dw, float* db, int64_t rows, int64_t n);

// Batch norm, one run of n values of a channel at a time: sum((x - mean)^2);
// sum(g) and sum(g (x - mean)); y = x scale + shift; and the input gradient
// dx = scale (g - mean_g - (x - mean) proj).
double sum_squared_deviations_floats(const float* x, int64_t n, float mean);
void gradient_sums_floats(const float* g, const float* x, int64_t n, float mean, double* sum_g, double* sum_g_dev);
void scale_shift_floats(const float* x, float* y, int64_t n, float scale, float shift);
void batch_norm_backward_floats(const float* g, const float* x, float* dx, int64_t n, float mean, float scale,
                                float mean_g, float proj);

// bfloat16 (as its bits) to float and back, rounding to nearest even with
// NaNs kept quiet: how float kernels serve bfloat16 tensors (FloatStaging.h).
// float16 (as its bits) to and from float, rounding to nearest even.
void half_to_floats(const uint16_t* x, float* y, int64_t n);
void floats_to_half(const float* x, uint16_t* y, int64_t n);
void bfloat16_to_floats(const uint16_t* x, float* y, int64_t n);
void floats_to_bfloat16(const float* x, uint16_t* y, int64_t n);

}  // namespace ember::native::cpu
