#pragma once
// One GEMM on raw row-major data, for the CPU kernels that call BLAS directly
// (matrix products, fused attention). Blas.cpp picks the library per call, by
// measurement: oneDNN's sgemm or OpenBLAS for float, OpenBLAS for double and
// complex.

#include <c10/core/ScalarType.h>

#include <cstdint>

namespace ember::native::cpu {

// C = beta C + alpha op(A) op(B) for float, double and complex (C is not read
// when beta is 0). Runs on the calling thread only: Ember's pool splits the
// work (see parallel_gemm).
template <typename T>
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
               int64_t ldb, T beta, T* C, int64_t ldc);

// Whether a float GEMM of this size goes to oneDNN rather than OpenBLAS.
bool sgemm_uses_onednn(int64_t m, int64_t n, int64_t k);

// C = op(A) op(B) + bias (a row of n, added to every row) in one oneDNN
// matmul, threaded by oneDNN on Ember's OpenMP team: the bias is added in
// the product's epilogue instead of a pass over C of its own.
void onednn_gemm_bias(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* A, int64_t lda,
                      const float* B, int64_t ldb, const float* bias, float* C, int64_t ldc);

}  // namespace ember::native::cpu
