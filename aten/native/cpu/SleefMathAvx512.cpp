// SleefMathKernels.inc for AVX-512: this file alone is compiled with
// -mavx512f (CMakeLists.txt), and its loops run only where cpu_capability()
// says AVX512. It includes nothing but SLEEF and plain C++, so that no
// inline function shared with other files is compiled here for AVX-512.
#include <aten/native/cpu/SleefMath.h>

#include <sleef.h>

#include <cstddef>

namespace {
using Vec = __m512;
inline Vec load(const float* p) { return _mm512_loadu_ps(p); }
inline void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec splat(float f) { return _mm512_set1_ps(f); }
using VecD = __m512d;
inline VecD load(const double* p) { return _mm512_loadu_pd(p); }
inline void store(double* p, VecD v) { _mm512_storeu_pd(p, v); }
inline bool any_subnormal(Vec v) {
  const __m512 magnitude = _mm512_abs_ps(v);
  return (_mm512_cmp_ps_mask(magnitude, _mm512_set1_ps(1.17549435e-38f), _CMP_LT_OQ) &
          _mm512_cmp_ps_mask(magnitude, _mm512_setzero_ps(), _CMP_GT_OQ)) != 0;
}
inline bool any_beyond(Vec v, float limit) {
  return _mm512_cmp_ps_mask(_mm512_abs_ps(v), _mm512_set1_ps(limit), _CMP_GT_OQ) != 0;
}
inline Vec fused(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline bool any_outside(Vec v, float lo, float hi) {
  return (_mm512_cmp_ps_mask(v, _mm512_set1_ps(lo), _CMP_GE_OQ) & _mm512_cmp_ps_mask(v, _mm512_set1_ps(hi), _CMP_LE_OQ)) !=
         0xffff;
}
}  // namespace

#define EMBER_SLEEF_NAMESPACE sleef_avx512
#define EMBER_SLEEF(f, ulp) Sleef_##f##f16_##ulp##avx512f
#define EMBER_SLEEF_EXACT(name) Sleef_##name##f16_avx512f
#define EMBER_SLEEF_D(f, ulp) Sleef_##f##d8_##ulp##avx512f
#define EMBER_SLEEF_LANES 16
#include "SleefMathKernels.inc"
