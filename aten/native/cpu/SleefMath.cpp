// SLEEF's scalar functions (any x86-64) and the choice among the tables.
#include <aten/native/cpu/SleefMath.h>

#include <aten/native/cpu/CpuCapability.h>

#include <sleef.h>

#include <cmath>
#include <cstddef>

namespace {
using Vec = float;
inline Vec load(const float* p) { return *p; }
inline void store(float* p, Vec v) { *p = v; }
inline Vec splat(float f) { return f; }
inline bool any_beyond(Vec v, float limit) { return std::fabs(v) > limit; }
}  // namespace

#define EMBER_SLEEF_NAMESPACE sleef_scalar
#define EMBER_SLEEF(f, ulp) Sleef_##f##f_##ulp
#define EMBER_SLEEF_LANES 1
#include "SleefMathKernels.inc"

namespace ember::native::cpu {

FloatsFn sleef_floats(SleefUnary f) {
  static const FloatsFn* const table = cpu_capability() == CpuCapability::AVX512 ? sleef_avx512::kLoops
                                       : cpu_capability() == CpuCapability::AVX2 ? sleef_avx2::kLoops
                                                                                 : sleef_scalar::kLoops;
  return table[static_cast<int>(f)];
}

}  // namespace ember::native::cpu
