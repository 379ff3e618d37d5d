#pragma once
// Elementwise float functions from SLEEF's vector math library (the one
// torch's CPU kernels use; within 1 ulp), for dense float arrays,
// at the widest width cpu_capability() allows: 16 lanes on AVX-512 and 8 on
// AVX2 (SleefMathKernels.inc, compiled once per instruction set), SLEEF's
// scalar functions otherwise. For what VecMath.h does not write itself.
// sin and cos of vectors within |x| <= 8192 (within 1.5 ulp) and log of
// normal positive floats (1 ulp) are ours, faster than Debian's SLEEF 3.5;
// SLEEF's for the other vectors.
// Not asinh/acosh: SLEEF's float ones overflow to inf from |x| ~ 1.8e19 on.

#include <cstdint>

namespace ember::native::cpu {

enum class SleefUnary {
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Atanh,
  Exp2, Expm1, Log, Log2, Log10, Log1p, Erfc, Lgamma, Exp, Tanh,
  kCount
};

// Two-operand functions, the last three composed of SLEEF's pieces; the
// division ones give what BinaryOps.cpp's scalar loops give, exactly.
enum class SleefBinary { Atan2, Hypot, Pow, Fmod, Remainder, FloorDivide, Logaddexp, kCount };

using FloatsFn = void (*)(const float* x, float* y, int64_t n);
using FloatsFn2 = void (*)(const float* a, const float* b, float* y, int64_t n);
using DoublesFn = void (*)(const double* x, double* y, int64_t n);

// y[i] = f(x[i]) (f(a[i], b[i])) for i < n, at this CPU's width; null for
// expm1, erfc, exp and tanh, whose float kernels are VecMath.h's.
FloatsFn sleef_floats(SleefUnary f);
FloatsFn2 sleef_floats(SleefBinary f);
// The same for double (SLEEF's double functions, within 1 ulp, as torch's),
// or null where the C library's scalar function stays: sinh and cosh (SLEEF
// 3.5 overflows early), erfc and lgamma.
DoublesFn sleef_doubles(SleefUnary f);

// The loops of one instruction set, indexed by SleefUnary (defined in the
// file compiled for it; called only where the CPU has it).
namespace sleef_avx512 { extern const FloatsFn kLoops[]; extern const FloatsFn2 kLoops2[]; extern const DoublesFn kLoopsD[]; }
namespace sleef_avx2 { extern const FloatsFn kLoops[]; extern const FloatsFn2 kLoops2[]; extern const DoublesFn kLoopsD[]; }
namespace sleef_scalar { extern const FloatsFn kLoops[]; extern const FloatsFn2 kLoops2[]; extern const DoublesFn kLoopsD[]; }

}  // namespace ember::native::cpu
