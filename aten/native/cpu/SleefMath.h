#pragma once
// Elementwise functions over contiguous float arrays from SLEEF's vector
// math library (the one torch's CPU kernels use), at the widest vector
// width cpu_capability() allows: 16 lanes on AVX-512, 8 on AVX2, SLEEF's
// scalar function otherwise and for the tails. For functions that
// VecMath.h does not write itself.

#include <cstdint>

namespace ember::native::cpu {

// y[i] = lgamma(x[i]), within 1 ulp.
void lgamma_floats(const float* x, float* y, int64_t n);

}  // namespace ember::native::cpu
