// SleefMathKernels.inc for AVX2 with FMA: compiled with -mavx2 -mfma
// (CMakeLists.txt), run only where cpu_capability() is AVX2 or wider; as
// SleefMathAvx512.cpp, it includes nothing but SLEEF and plain C++.
#include <aten/native/cpu/SleefMath.h>

#include <sleef.h>

#include <cstddef>

namespace {
using Vec = __m256;
inline Vec load(const float* p) { return _mm256_loadu_ps(p); }
inline void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec splat(float f) { return _mm256_set1_ps(f); }
using VecD = __m256d;
inline VecD load(const double* p) { return _mm256_loadu_pd(p); }
inline void store(double* p, VecD v) { _mm256_storeu_pd(p, v); }
inline bool any_subnormal(Vec v) {
  const Vec magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
  const Vec tiny = _mm256_and_ps(_mm256_cmp_ps(magnitude, _mm256_set1_ps(1.17549435e-38f), _CMP_LT_OQ),
                                 _mm256_cmp_ps(magnitude, _mm256_setzero_ps(), _CMP_GT_OQ));
  return _mm256_movemask_ps(tiny) != 0;
}
inline bool any_beyond(Vec v, float limit) {
  const Vec magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
  return _mm256_movemask_ps(_mm256_cmp_ps(magnitude, _mm256_set1_ps(limit), _CMP_GT_OQ)) != 0;
}
inline Vec fused(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline bool any_outside(Vec v, float lo, float hi) {
  const Vec inside = _mm256_and_ps(_mm256_cmp_ps(v, _mm256_set1_ps(lo), _CMP_GE_OQ),
                                   _mm256_cmp_ps(v, _mm256_set1_ps(hi), _CMP_LE_OQ));
  return _mm256_movemask_ps(inside) != 0xff;
}
}  // namespace

#define EMBER_SLEEF_NAMESPACE sleef_avx2
#define EMBER_SLEEF(f, ulp) Sleef_##f##f8_##ulp##avx2
#define EMBER_SLEEF_EXACT(name) Sleef_##name##f8_avx2
#define EMBER_SLEEF_D(f, ulp) Sleef_##f##d4_##ulp##avx2
#define EMBER_SLEEF_LANES 8
#include "SleefMathKernels.inc"
