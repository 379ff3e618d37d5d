#include <aten/native/cpu/SleefMath.h>

#include <aten/native/cpu/CpuCapability.h>

#include <immintrin.h>

// SLEEF's functions for one instruction set each (sleef.h declares the
// vector ones only where the including file is compiled for that set, and
// this file is compiled for baseline x86-64), each declared in a region
// compiled for its set, so that the vector arguments are passed as SLEEF
// expects them.
extern "C" float Sleef_lgammaf_u10(float);

#pragma GCC push_options
#pragma GCC target("avx512f")
extern "C" __m512 Sleef_lgammaf16_u10avx512f(__m512);

namespace ember::native::cpu {
namespace {
void lgamma_floats_avx512(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, Sleef_lgammaf16_u10avx512f(_mm512_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = Sleef_lgammaf_u10(x[i]);
}
}  // namespace
}  // namespace ember::native::cpu
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
extern "C" __m256 Sleef_lgammaf8_u10avx2(__m256);

namespace ember::native::cpu {
namespace {
void lgamma_floats_avx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, Sleef_lgammaf8_u10avx2(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = Sleef_lgammaf_u10(x[i]);
}
}  // namespace
}  // namespace ember::native::cpu
#pragma GCC pop_options

namespace ember::native::cpu {

void lgamma_floats(const float* x, float* y, int64_t n) {
  switch (cpu_capability()) {
    case CpuCapability::AVX512: return lgamma_floats_avx512(x, y, n);
    case CpuCapability::AVX2: return lgamma_floats_avx2(x, y, n);
    default:
      for (int64_t i = 0; i < n; ++i) y[i] = Sleef_lgammaf_u10(x[i]);
  }
}

}  // namespace ember::native::cpu
