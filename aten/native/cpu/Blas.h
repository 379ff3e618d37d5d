#pragma once
// One OpenBLAS GEMM on raw row-major data, for the CPU kernels that call
// BLAS directly (matrix products, fused attention).

#include <c10/core/ScalarType.h>

#include <cblas.h>

#include <cstdint>
#include <type_traits>

namespace ember::native::cpu {

// C = beta C + alpha op(A) op(B) for float, double and complex.
template <typename T>
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
               int64_t ldb, T beta, T* C, int64_t ldc) {
  // OpenBLAS keeps to the calling thread: Ember's pool splits the work (see
  // parallel_gemm), so two thread pools never fight over the same cores (with
  // OpenBLAS's own threads, they spin in sched_yield between GEMMs while
  // Ember's workers want the CPU).
  static const bool single_threaded = (openblas_set_num_threads(1), true);
  (void)single_threaded;
  const auto opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, opa, opb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, opa, opb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  } else if constexpr (std::is_same_v<T, c10::complex<float>>) {
    cblas_cgemm(CblasRowMajor, opa, opb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
  } else {
    cblas_zgemm(CblasRowMajor, opa, opb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
  }
}

}  // namespace ember::native::cpu
