#pragma once
// LAPACK (the Fortran interface OpenBLAS exports) for the four dtypes
// ember.linalg computes in, as overloads on the element type: one call
// site serves float, double, complex<float> and complex<double>. Matrices
// are column-major; sizes are LAPACK's 32-bit ints (checked by callers).
// Character arguments carry Fortran's hidden length arguments. Triangular
// solves use BLAS (cblas).

#include <cblas.h>

#include <complex>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ember::native::lapack {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

extern "C" {
void spotrf_(const char*, const int*, float*, const int*, int*, size_t);
void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void cpotrf_(const char*, const int*, cfloat*, const int*, int*, size_t);
void zpotrf_(const char*, const int*, cdouble*, const int*, int*, size_t);

void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void cgetrf_(const int*, const int*, cfloat*, const int*, int*, int*);
void zgetrf_(const int*, const int*, cdouble*, const int*, int*, int*);

void sgetrs_(const char*, const int*, const int*, const float*, const int*, const int*, float*, const int*, int*,
             size_t);
void dgetrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*, const int*, int*,
             size_t);
void cgetrs_(const char*, const int*, const int*, const cfloat*, const int*, const int*, cfloat*, const int*, int*,
             size_t);
void zgetrs_(const char*, const int*, const int*, const cdouble*, const int*, const int*, cdouble*, const int*, int*,
             size_t);

void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void cgeqrf_(const int*, const int*, cfloat*, const int*, cfloat*, cfloat*, const int*, int*);
void zgeqrf_(const int*, const int*, cdouble*, const int*, cdouble*, cdouble*, const int*, int*);

void sorgqr_(const int*, const int*, const int*, float*, const int*, const float*, float*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*, const int*, int*);
void cungqr_(const int*, const int*, const int*, cfloat*, const int*, const cfloat*, cfloat*, const int*, int*);
void zungqr_(const int*, const int*, const int*, cdouble*, const int*, const cdouble*, cdouble*, const int*, int*);

void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*, const int*,
             int*, size_t, size_t);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*,
             const int*, int*, size_t, size_t);
void cheevd_(const char*, const char*, const int*, cfloat*, const int*, float*, cfloat*, const int*, float*,
             const int*, int*, const int*, int*, size_t, size_t);
void zheevd_(const char*, const char*, const int*, cdouble*, const int*, double*, cdouble*, const int*, double*,
             const int*, int*, const int*, int*, size_t, size_t);

void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*, float*,
             const int*, float*, const int*, int*, int*, size_t);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*,
             const int*, double*, const int*, int*, int*, size_t);
void cgesdd_(const char*, const int*, const int*, cfloat*, const int*, float*, cfloat*, const int*, cfloat*,
             const int*, cfloat*, const int*, float*, int*, int*, size_t);
void zgesdd_(const char*, const int*, const int*, cdouble*, const int*, double*, cdouble*, const int*, cdouble*,
             const int*, cdouble*, const int*, double*, int*, int*, size_t);

void sgeev_(const char*, const char*, const int*, float*, const int*, float*, float*, float*, const int*, float*,
            const int*, float*, const int*, int*, size_t, size_t);
void dgeev_(const char*, const char*, const int*, double*, const int*, double*, double*, double*, const int*,
            double*, const int*, double*, const int*, int*, size_t, size_t);
void cgeev_(const char*, const char*, const int*, cfloat*, const int*, cfloat*, cfloat*, const int*, cfloat*,
            const int*, cfloat*, const int*, float*, int*, size_t, size_t);
void zgeev_(const char*, const char*, const int*, cdouble*, const int*, cdouble*, cdouble*, const int*, cdouble*,
            const int*, cdouble*, const int*, double*, int*, size_t, size_t);

// Bunch-Kaufman LDL^T (sytrf; hetrf: LDL^H) and its solve.
void ssytrf_(const char*, const int*, float*, const int*, int*, float*, const int*, int*, size_t);
void dsytrf_(const char*, const int*, double*, const int*, int*, double*, const int*, int*, size_t);
void csytrf_(const char*, const int*, cfloat*, const int*, int*, cfloat*, const int*, int*, size_t);
void zsytrf_(const char*, const int*, cdouble*, const int*, int*, cdouble*, const int*, int*, size_t);
void chetrf_(const char*, const int*, cfloat*, const int*, int*, cfloat*, const int*, int*, size_t);
void zhetrf_(const char*, const int*, cdouble*, const int*, int*, cdouble*, const int*, int*, size_t);

void ssytrs_(const char*, const int*, const int*, const float*, const int*, const int*, float*, const int*, int*,
             size_t);
void dsytrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*, const int*, int*,
             size_t);
void csytrs_(const char*, const int*, const int*, const cfloat*, const int*, const int*, cfloat*, const int*, int*,
             size_t);
void zsytrs_(const char*, const int*, const int*, const cdouble*, const int*, const int*, cdouble*, const int*, int*,
             size_t);
void chetrs_(const char*, const int*, const int*, const cfloat*, const int*, const int*, cfloat*, const int*, int*,
             size_t);
void zhetrs_(const char*, const int*, const int*, const cdouble*, const int*, const int*, cdouble*, const int*, int*,
             size_t);

}

// ---- overloads by element type ----------------------------------------------------

inline void potrf(char uplo, int n, float* a, int lda, int* info) { spotrf_(&uplo, &n, a, &lda, info, 1); }
inline void potrf(char uplo, int n, double* a, int lda, int* info) { dpotrf_(&uplo, &n, a, &lda, info, 1); }
inline void potrf(char uplo, int n, cfloat* a, int lda, int* info) { cpotrf_(&uplo, &n, a, &lda, info, 1); }
inline void potrf(char uplo, int n, cdouble* a, int lda, int* info) { zpotrf_(&uplo, &n, a, &lda, info, 1); }

inline void getrf(int m, int n, float* a, int lda, int* ipiv, int* info) { sgetrf_(&m, &n, a, &lda, ipiv, info); }
inline void getrf(int m, int n, double* a, int lda, int* ipiv, int* info) { dgetrf_(&m, &n, a, &lda, ipiv, info); }
inline void getrf(int m, int n, cfloat* a, int lda, int* ipiv, int* info) { cgetrf_(&m, &n, a, &lda, ipiv, info); }
inline void getrf(int m, int n, cdouble* a, int lda, int* ipiv, int* info) { zgetrf_(&m, &n, a, &lda, ipiv, info); }

inline void getrs(char trans, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b, int ldb, int* info) {
  sgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
inline void getrs(char trans, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b, int ldb,
                  int* info) {
  dgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
inline void getrs(char trans, int n, int nrhs, const cfloat* a, int lda, const int* ipiv, cfloat* b, int ldb,
                  int* info) {
  cgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
inline void getrs(char trans, int n, int nrhs, const cdouble* a, int lda, const int* ipiv, cdouble* b, int ldb,
                  int* info) {
  zgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}

inline void geqrf(int m, int n, float* a, int lda, float* tau, float* work, int lwork, int* info) {
  sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}
inline void geqrf(int m, int n, double* a, int lda, double* tau, double* work, int lwork, int* info) {
  dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}
inline void geqrf(int m, int n, cfloat* a, int lda, cfloat* tau, cfloat* work, int lwork, int* info) {
  cgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}
inline void geqrf(int m, int n, cdouble* a, int lda, cdouble* tau, cdouble* work, int lwork, int* info) {
  zgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}

// orgqr for reals, ungqr for complex: Q from the Householder reflectors.
inline void orgqr(int m, int n, int k, float* a, int lda, const float* tau, float* work, int lwork, int* info) {
  sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
inline void orgqr(int m, int n, int k, double* a, int lda, const double* tau, double* work, int lwork, int* info) {
  dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
inline void orgqr(int m, int n, int k, cfloat* a, int lda, const cfloat* tau, cfloat* work, int lwork, int* info) {
  cungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
inline void orgqr(int m, int n, int k, cdouble* a, int lda, const cdouble* tau, cdouble* work, int lwork, int* info) {
  zungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}

// syevd / heevd; rwork is unused for reals.
inline void heevd(char jobz, char uplo, int n, float* a, int lda, float* w, float* work, int lwork, float*, int,
                  int* iwork, int liwork, int* info) {
  ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
inline void heevd(char jobz, char uplo, int n, double* a, int lda, double* w, double* work, int lwork, double*, int,
                  int* iwork, int liwork, int* info) {
  dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
inline void heevd(char jobz, char uplo, int n, cfloat* a, int lda, float* w, cfloat* work, int lwork, float* rwork,
                  int lrwork, int* iwork, int liwork, int* info) {
  cheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
}
inline void heevd(char jobz, char uplo, int n, cdouble* a, int lda, double* w, cdouble* work, int lwork,
                  double* rwork, int lrwork, int* iwork, int liwork, int* info) {
  zheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
}

inline void gesdd(char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt, int ldvt,
                  float* work, int lwork, float*, int* iwork, int* info) {
  sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
inline void gesdd(char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu, double* vt, int ldvt,
                  double* work, int lwork, double*, int* iwork, int* info) {
  dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
inline void gesdd(char jobz, int m, int n, cfloat* a, int lda, float* s, cfloat* u, int ldu, cfloat* vt, int ldvt,
                  cfloat* work, int lwork, float* rwork, int* iwork, int* info) {
  cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1);
}
inline void gesdd(char jobz, int m, int n, cdouble* a, int lda, double* s, cdouble* u, int ldu, cdouble* vt,
                  int ldvt, cdouble* work, int lwork, double* rwork, int* iwork, int* info) {
  zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1);
}

// Eigenvalues w and right eigenvectors v (column-major, unit norm) of a
// general matrix a (overwritten), complex for every input dtype: the real
// routines' conjugate pairs (wr +- i wi, vectors vr[j] +- i vr[j+1]) are
// unpacked into complex columns.
template <typename R>
void geev_real(void (*routine)(const char*, const char*, const int*, R*, const int*, R*, R*, R*, const int*, R*,
                               const int*, R*, const int*, int*, size_t, size_t),
               int n, R* a, std::complex<R>* w, std::complex<R>* v, int* info) {
  std::vector<R> wr(n), wi(n), vr(static_cast<size_t>(n) * n);
  R dummy = 0, work_size = 0;
  const int one = 1, lda = std::max(n, 1), lwork_query = -1;
  routine("N", "V", &n, a, &lda, wr.data(), wi.data(), &dummy, &one, vr.data(), &lda, &work_size, &lwork_query, info,
          1, 1);
  std::vector<R> work(static_cast<size_t>(work_size) + 1);
  const int lwork = static_cast<int>(work.size());
  routine("N", "V", &n, a, &lda, wr.data(), wi.data(), &dummy, &one, vr.data(), &lda, work.data(), &lwork, info, 1,
          1);
  for (int j = 0; j < n; ++j) {
    w[j] = std::complex<R>(wr[j], wi[j]);
    const R* col = vr.data() + static_cast<size_t>(j) * n;
    if (wi[j] > 0 && j + 1 < n) {
      const R* next = col + n;
      for (int i = 0; i < n; ++i) {
        v[static_cast<size_t>(j) * n + i] = std::complex<R>(col[i], next[i]);
        v[static_cast<size_t>(j + 1) * n + i] = std::complex<R>(col[i], -next[i]);
      }
      w[j + 1] = std::complex<R>(wr[j + 1], wi[j + 1]);
      ++j;
    } else {
      for (int i = 0; i < n; ++i) v[static_cast<size_t>(j) * n + i] = col[i];
    }
  }
}

template <typename R>
void geev_complex(void (*routine)(const char*, const char*, const int*, std::complex<R>*, const int*, std::complex<R>*,
                                  std::complex<R>*, const int*, std::complex<R>*, const int*, std::complex<R>*,
                                  const int*, R*, int*, size_t, size_t),
                  int n, std::complex<R>* a, std::complex<R>* w, std::complex<R>* v, int* info) {
  std::vector<R> rwork(2 * static_cast<size_t>(n) + 1);
  std::complex<R> dummy{}, work_size{};
  const int one = 1, lda = std::max(n, 1), lwork_query = -1;
  routine("N", "V", &n, a, &lda, w, &dummy, &one, v, &lda, &work_size, &lwork_query, rwork.data(), info, 1, 1);
  std::vector<std::complex<R>> work(static_cast<size_t>(work_size.real()) + 1);
  const int lwork = static_cast<int>(work.size());
  routine("N", "V", &n, a, &lda, w, &dummy, &one, v, &lda, work.data(), &lwork, rwork.data(), info, 1, 1);
}

inline void geev(int n, float* a, cfloat* w, cfloat* v, int* info) { geev_real<float>(sgeev_, n, a, w, v, info); }
inline void geev(int n, double* a, cdouble* w, cdouble* v, int* info) { geev_real<double>(dgeev_, n, a, w, v, info); }
inline void geev(int n, cfloat* a, cfloat* w, cfloat* v, int* info) { geev_complex<float>(cgeev_, n, a, w, v, info); }
inline void geev(int n, cdouble* a, cdouble* w, cdouble* v, int* info) {
  geev_complex<double>(zgeev_, n, a, w, v, info);
}

// LDL^T of a symmetric matrix (lower triangle), or LDL^H of a Hermitian one
// (hermitian only changes complex types; for reals the two are one).
inline void sytrf(bool, int n, float* a, int lda, int* ipiv, float* work, int lwork, int* info) {
  ssytrf_("L", &n, a, &lda, ipiv, work, &lwork, info, 1);
}
inline void sytrf(bool, int n, double* a, int lda, int* ipiv, double* work, int lwork, int* info) {
  dsytrf_("L", &n, a, &lda, ipiv, work, &lwork, info, 1);
}
inline void sytrf(bool hermitian, int n, cfloat* a, int lda, int* ipiv, cfloat* work, int lwork, int* info) {
  (hermitian ? chetrf_ : csytrf_)("L", &n, a, &lda, ipiv, work, &lwork, info, 1);
}
inline void sytrf(bool hermitian, int n, cdouble* a, int lda, int* ipiv, cdouble* work, int lwork, int* info) {
  (hermitian ? zhetrf_ : zsytrf_)("L", &n, a, &lda, ipiv, work, &lwork, info, 1);
}

inline void sytrs(bool, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b, int ldb, int* info) {
  ssytrs_("L", &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
inline void sytrs(bool, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b, int ldb, int* info) {
  dsytrs_("L", &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
inline void sytrs(bool hermitian, int n, int nrhs, const cfloat* a, int lda, const int* ipiv, cfloat* b, int ldb,
                  int* info) {
  (hermitian ? chetrs_ : csytrs_)("L", &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
inline void sytrs(bool hermitian, int n, int nrhs, const cdouble* a, int lda, const int* ipiv, cdouble* b, int ldb,
                  int* info) {
  (hermitian ? zhetrs_ : zsytrs_)("L", &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}

// A X = B for triangular A, B overwritten by X (BLAS trsm: a zero on the
// diagonal gives inf/nan, as in torch, rather than an error).
inline void trsm_left(bool upper, bool unit, int n, int k, const float* a, int lda, float* b, int ldb) {
  cblas_strsm(CblasColMajor, CblasLeft, upper ? CblasUpper : CblasLower, CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
              n, k, 1.0f, a, lda, b, ldb);
}
inline void trsm_left(bool upper, bool unit, int n, int k, const double* a, int lda, double* b, int ldb) {
  cblas_dtrsm(CblasColMajor, CblasLeft, upper ? CblasUpper : CblasLower, CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
              n, k, 1.0, a, lda, b, ldb);
}
inline void trsm_left(bool upper, bool unit, int n, int k, const cfloat* a, int lda, cfloat* b, int ldb) {
  const cfloat one(1);
  cblas_ctrsm(CblasColMajor, CblasLeft, upper ? CblasUpper : CblasLower, CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
              n, k, &one, a, lda, b, ldb);
}
inline void trsm_left(bool upper, bool unit, int n, int k, const cdouble* a, int lda, cdouble* b, int ldb) {
  const cdouble one(1);
  cblas_ztrsm(CblasColMajor, CblasLeft, upper ? CblasUpper : CblasLower, CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
              n, k, &one, a, lda, b, ldb);
}

}  // namespace ember::native::lapack
