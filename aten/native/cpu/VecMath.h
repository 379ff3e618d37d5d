#pragma once
// Hot loops over contiguous float arrays, written so the compiler
// vectorizes them, and compiled twice (AVX2 and baseline x86-64) with
// the better one chosen when the library loads.

#include <cstdint>

namespace ember::native::cpu {

// y[i] = exp(x[i]); within 2 ulp on [-87, 88], inf/0 beyond, NaN kept.
void exp_floats(const float* x, float* y, int64_t n);
void tanh_floats(const float* x, float* y, int64_t n);
void sigmoid_floats(const float* x, float* y, int64_t n);
// erf within 2.5 ulp; gelu (exact form) and its gradient built on it.
void erf_floats(const float* x, float* y, int64_t n);
void gelu_floats(const float* x, float* y, int64_t n);
void gelu_backward_floats(const float* grad, const float* x, float* y, int64_t n);
// Sum of n floats, accumulated in float lanes per block and double across
// blocks: vector speed with error far below naive float summation.
double sum_floats(const float* x, int64_t n);

}  // namespace ember::native::cpu
