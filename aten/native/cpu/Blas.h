#pragma once
// One GEMM on raw row-major data, for the CPU kernels that call BLAS directly
// (matrix products, fused attention). Blas.cpp picks the library per call, by
// measurement: oneDNN's sgemm or OpenBLAS for float, OpenBLAS for double and
// complex.

#include <c10/core/ScalarType.h>

#include <cstdint>

namespace ember::native::cpu {

// C = beta C + alpha op(A) op(B) for float, double and complex (C is not read
// when beta is 0), op transposing (ta, tb) and, for complex types,
// conjugating (ca, cb) as BLAS reads the operand: a lazily conjugated
// matrix costs no copy. Runs on the calling thread only: Ember's pool splits
// the work (see parallel_gemm).
template <typename T>
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
               int64_t ldb, T beta, T* C, int64_t ldc, bool ca = false, bool cb = false);

// Whether a float GEMM of this size goes to oneDNN rather than OpenBLAS.
bool sgemm_uses_onednn(int64_t m, int64_t n, int64_t k);

// C = op(A) op(B) + bias (a row of n, added to every row) in one oneDNN
// matmul, threaded by oneDNN on Ember's OpenMP team: the bias is added in
// the product's epilogue instead of a pass over C of its own.
void onednn_gemm_bias(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* A, int64_t lda,
                      const float* B, int64_t ldb, const float* bias, float* C, int64_t ldc);

// C = alpha op(A) op(B) + beta C (+ bias, a row of n, where alpha is 1) for
// bfloat16 or float16 A, B, C and bias, accumulated in float32, as one oneDNN
// matmul; `batch` such products where batch > 1, the i-th matrices starting
// i * stride_{a,b,c} elements on. False, with nothing written, where oneDNN
// has no kernel of its own for the dtype on this CPU (only its reference
// loops): the caller then computes through float32.
bool onednn_lowp_gemm(c10::ScalarType t, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const void* A,
                      int64_t lda, const void* B, int64_t ldb, float beta, const void* bias, void* C, int64_t ldc,
                      int64_t batch = 1, int64_t stride_a = 0, int64_t stride_b = 0, int64_t stride_c = 0);

}  // namespace ember::native::cpu
