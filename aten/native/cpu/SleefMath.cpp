// SLEEF's scalar functions (any x86-64) and the choice among the tables.
#include <aten/native/cpu/SleefMath.h>

#include <aten/native/cpu/CpuCapability.h>

#include <sleef.h>

#include <cstddef>

namespace {
using Vec = float;
inline Vec load(const float* p) { return *p; }
inline void store(float* p, Vec v) { *p = v; }
inline Vec splat(float f) { return f; }
using VecD = double;
inline VecD load(const double* p) { return *p; }
inline void store(double* p, VecD v) { *p = v; }
inline bool any_subnormal(Vec v) { return v != 0.0f && __builtin_fabsf(v) < 1.17549435e-38f; }
inline bool any_beyond(Vec v, float limit) { return __builtin_fabsf(v) > limit; }
inline Vec fused(Vec a, Vec b, Vec c) { return __builtin_fmaf(a, b, c); }
inline bool any_outside(Vec v, float lo, float hi) { return !(lo <= v && v <= hi); }
}  // namespace

#define EMBER_SLEEF_NAMESPACE sleef_scalar
#define EMBER_SLEEF(f, ulp) Sleef_##f##f_##ulp
#define EMBER_SLEEF_EXACT(name) Sleef_##name##f
#define EMBER_SLEEF_D(f, ulp) Sleef_##f##_##ulp
#define EMBER_SLEEF_LANES 1
#include "SleefMathKernels.inc"

namespace ember::native::cpu {

FloatsFn sleef_floats(SleefUnary f) {
  static const FloatsFn* const table = cpu_capability() == CpuCapability::AVX512 ? sleef_avx512::kLoops
                                       : cpu_capability() == CpuCapability::AVX2 ? sleef_avx2::kLoops
                                                                                 : sleef_scalar::kLoops;
  return table[static_cast<int>(f)];
}

DoublesFn sleef_doubles(SleefUnary f) {
  static const DoublesFn* const table = cpu_capability() == CpuCapability::AVX512 ? sleef_avx512::kLoopsD
                                        : cpu_capability() == CpuCapability::AVX2 ? sleef_avx2::kLoopsD
                                                                                  : sleef_scalar::kLoopsD;
  return table[static_cast<int>(f)];
}

FloatsFn2 sleef_floats(SleefBinary f) {
  static const FloatsFn2* const table = cpu_capability() == CpuCapability::AVX512 ? sleef_avx512::kLoops2
                                        : cpu_capability() == CpuCapability::AVX2 ? sleef_avx2::kLoops2
                                                                                  : sleef_scalar::kLoops2;
  return table[static_cast<int>(f)];
}

}  // namespace ember::native::cpu
