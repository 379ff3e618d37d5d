// ember.linalg's decompositions and solvers on LAPACK, over any leading
// batch dims: each op copies its input into column-major matrices (LAPACK's
// layout, and never the caller's memory, which LAPACK overwrites), runs the
// routine on each matrix, and returns its results in that layout (as torch
// does). Meta tensors get the shapes and dtypes only.

#include <aten/Functions.h>
#include <aten/core/ExpandUtils.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/Parallel.h>
#include <aten/native/cpu/Lapack.h>

#include <climits>
#include <cmath>
#include <tuple>
#include <vector>

namespace ember::native {

namespace {

bool is_lapack_type(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::ComplexFloat ||
         t == ScalarType::ComplexDouble;
}

void check_matrices(const Tensor& A, const char* op, bool square, const char* name = "A") {
  EMBER_CHECK(A.dim() >= 2, "{}: The input tensor {} must have at least 2 dimensions.", op, name);
  if (square) {
    EMBER_CHECK(A.size(-1) == A.size(-2), "{}: {} must be batches of square matrices, but they are {} by {} matrices",
                op, name, A.size(-2), A.size(-1));
  }
  EMBER_CHECK(is_lapack_type(A.scalar_type()),
              "{}: Expected a floating point or complex tensor as input. Got {}", op, c10::toString(A.scalar_type()));
  EMBER_CHECK(A.size(-1) <= INT_MAX / 2 && A.size(-2) <= INT_MAX / 2,
              "{}: matrices of {} by {} are too large for LAPACK's 32-bit sizes", op, A.size(-2), A.size(-1));
}

// A copy of A laid out as column-major matrices, batches one after another.
Tensor column_major_copy(const Tensor& A) { return A.mT().clone(MemoryFormat::Contiguous).mT(); }

// A itself when it is laid out so already (for inputs LAPACK only reads).
Tensor column_major(const Tensor& A) {
  const bool ready = !A.is_conj() && !A.is_neg() && A.mT().is_contiguous();
  return ready ? A : column_major_copy(A);
}

// f(begin, end) over the batch, a few matrices per task: LAPACK runs on one
// thread (OpenBLAS is kept single-threaded), so the batch is what splits.
template <typename F>
void for_each_batch(int64_t batch, int64_t matrix_elements, const F& f) {
  parallel_for(0, batch, std::max<int64_t>(1, 4096 / std::max<int64_t>(matrix_elements, 1)), f);
}

std::vector<int64_t> batch_shape(const Tensor& A) { return std::vector<int64_t>(A.sizes().begin(), A.sizes().end() - 2); }

int64_t batch_count(const Tensor& A) {
  int64_t n = 1;
  for (int64_t i = 0; i < A.dim() - 2; ++i) n *= A.size(i);
  return n;
}

// Runs f(tag) with the C++ element type of t (float, double or their complex).
template <typename F>
void visit_lapack_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: return f(float{});
    case ScalarType::Double: return f(double{});
    case ScalarType::ComplexFloat: return f(lapack::cfloat{});
    case ScalarType::ComplexDouble: return f(lapack::cdouble{});
    default: EMBER_CHECK(false, "linalg: unsupported dtype {}", c10::toString(t));
  }
}

template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <typename T>
using real_t = typename RealOf<T>::type;

// "(Batch element 3): " for batched inputs, nothing for a single matrix.
std::string batch_prefix(const Tensor& A, int64_t b) {
  return A.dim() > 2 ? fmt::format("(Batch element {}): ", b) : std::string();
}

// The first batch element whose LAPACK info is positive (the routine
// failed there), with that info; batch -1 when none did.
struct Failure {
  int64_t batch = -1;
  int info = 0;
  explicit operator bool() const { return batch >= 0; }
};

Failure first_failure(const int* infos, int64_t count) {
  for (int64_t b = 0; b < count; ++b)
    if (infos[b] > 0) return {b, infos[b]};
  return {};
}

Failure first_failure(const Tensor& info) {
  if (info.is_meta()) return {};
  const Tensor flat = info.reshape({-1}).contiguous();
  return first_failure(flat.data_ptr<int>(), flat.numel());
}

// Batch dims of A and B broadcast, each expanded to them.
std::pair<Tensor, Tensor> broadcast_batches(const Tensor& A, const Tensor& B) {
  std::vector<int64_t> batch = infer_size(batch_shape(A), batch_shape(B), "linalg");
  std::vector<int64_t> a_shape = batch, b_shape = batch;
  a_shape.insert(a_shape.end(), {A.size(-2), A.size(-1)});
  b_shape.insert(b_shape.end(), {B.size(-2), B.size(-1)});
  return {A.expand(a_shape), B.expand(b_shape)};
}

// A pivoted factorization's outputs as LAPACK fills them: A's column-major
// copy (factored in place), k pivots and an info per matrix.
struct PivotedFactors {
  Tensor factors, pivots, info;
};

PivotedFactors pivoted_factor_outputs(const Tensor& A, int64_t k) {
  std::vector<int64_t> pivot_shape = batch_shape(A);
  pivot_shape.push_back(k);
  return {column_major_copy(A), ember::empty(pivot_shape, ScalarType::Int, A.device()),
          ember::zeros(batch_shape(A), ScalarType::Int, A.device())};
}

// The operands of a solve from a pivoted factorization of n x n matrices:
// the factors and B broadcast over their batch dims, the factors
// column-major, X a column-major copy of B (LAPACK overwrites it with the
// solution), and the pivots as LAPACK's ints, each checked to lie in
// [lowest, n] without 0 (any other would make LAPACK read out of bounds).
struct PivotedSolve {
  Tensor factors, pivots, X;
};

PivotedSolve pivoted_solve_operands(const Tensor& F, const Tensor& pivots, const Tensor& B, int64_t lowest,
                                    const char* op) {
  const int64_t n = F.size(-1);
  auto [F_b, B_b] = broadcast_batches(F, B);
  std::vector<int64_t> pivot_shape = batch_shape(F_b);
  pivot_shape.push_back(n);
  PivotedSolve s{column_major(F_b), pivots.expand(pivot_shape).to(ScalarType::Int).contiguous(),
                 column_major_copy(B_b)};
  if (s.X.is_meta() || s.X.numel() == 0) return s;
  const int* p = s.pivots.data_ptr<int>();
  for (int64_t i = 0; i < s.pivots.numel(); ++i) {
    EMBER_CHECK(p[i] != 0 && p[i] >= lowest && p[i] <= n,
                "{}: pivots must be LAPACK's 1-based pivots in [{}, {}] (without 0), as the factorization returns "
                "them, but found {}", op, lowest, n, p[i]);
  }
  return s;
}

}  // namespace

// ---- Cholesky ---------------------------------------------------------------------

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  check_matrices(A, "linalg.cholesky", true);
  Tensor L = column_major_copy(A);
  Tensor info = ember::zeros(batch_shape(A), ScalarType::Int, A.device());
  if (L.is_meta() || L.numel() == 0) return {L, info};
  const int n = static_cast<int>(A.size(-1));
  visit_lapack_type(A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* data = static_cast<T*>(L.data_ptr());
    int* infos = info.data_ptr<int>();
    for_each_batch(batch_count(A), n * n, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) lapack::potrf(upper ? 'U' : 'L', n, data + b * n * n, n, &infos[b]);
    });
  });
  if (upper) L.triu_(); else L.tril_();
  if (check_errors) {
    const Failure f = first_failure(info);
    EMBER_CHECK_LINALG(!f, "linalg.cholesky: {}The factorization could not be completed because the input is not "
                "positive-definite (the leading minor of order {} is not positive-definite).",
                batch_prefix(A, f.batch), f.info);
  }
  return {L, info};
}

// ---- LU -----------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  check_matrices(A, "linalg.lu_factor", false);
  EMBER_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  const int m = static_cast<int>(A.size(-2)), n = static_cast<int>(A.size(-1)), k = std::min(m, n);
  PivotedFactors outputs = pivoted_factor_outputs(A, k);
  Tensor &LU = outputs.factors, &pivots = outputs.pivots, &info = outputs.info;
  if (LU.is_meta() || LU.numel() == 0) return {LU, pivots, info};
  visit_lapack_type(A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* data = static_cast<T*>(LU.data_ptr());
    int* piv = pivots.data_ptr<int>();
    int* infos = info.data_ptr<int>();
    for_each_batch(batch_count(A), m * n, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) lapack::getrf(m, n, data + b * m * n, std::max(m, 1), piv + b * k, &infos[b]);
    });
  });
  if (check_errors) {
    const Failure f = first_failure(info);
    EMBER_CHECK_LINALG(!f, "linalg.lu_factor: {}U[{},{}] is zero and using it on lu_solve would result in a division by "
                "zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                "linalg.lu_factor_ex(A, pivot)", batch_prefix(A, f.batch), f.info, f.info);
  }
  return {LU, pivots, info};
}

Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  check_matrices(LU, "linalg.lu_solve", true, "LU");
  EMBER_CHECK(B.dim() >= 2, "linalg.lu_solve: The input tensor B must have at least 2 dimensions.");
  EMBER_CHECK(LU.scalar_type() == B.scalar_type(),
              "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type {} and B of type {} "
              "instead", c10::toString(LU.scalar_type()), c10::toString(B.scalar_type()));
  EMBER_CHECK(pivots.scalar_type() == ScalarType::Int, "linalg.lu_solve: pivots should be a Tensor of scalar type Int");
  EMBER_CHECK(pivots.dim() >= 1 && pivots.size(-1) == LU.size(-1),
              "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape {} "
              "instead", c10::str_sizes(pivots.sizes()));
  if (!left) {  // X A = B  <=>  A^H X^H = B^H
    return ember::linalg_lu_solve(LU, pivots, B.mH(), true, !adjoint).mH();
  }
  const int64_t n = LU.size(-1);
  EMBER_CHECK(B.size(-2) == n, "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B ({}x{} and {}x{})",
              n, n, B.size(-2), B.size(-1));
  PivotedSolve operands = pivoted_solve_operands(LU, pivots, B, 1, "linalg.lu_solve");
  const Tensor &A_c = operands.factors, &piv = operands.pivots, &X = operands.X;
  if (X.is_meta() || X.numel() == 0) return X;
  const int ni = static_cast<int>(n), k = static_cast<int>(B.size(-1));
  const bool complex = LU.is_complex();
  visit_lapack_type(LU.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = static_cast<const T*>(A_c.data_ptr());
    T* x = static_cast<T*>(X.data_ptr());
    const int* p = piv.data_ptr<int>();
    for_each_batch(batch_count(X), n * (n + k), [&](int64_t begin, int64_t end) {
      int info = 0;
      for (int64_t b = begin; b < end; ++b) {
        lapack::getrs(adjoint ? (complex ? 'C' : 'T') : 'N', ni, k, a + b * n * n, std::max(ni, 1), p + b * n,
                      x + b * n * k, std::max(ni, 1), &info);
      }
    });
  });
  return X;
}

// ---- LDL (Bunch-Kaufman) --------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, bool hermitian, bool check_errors) {
  check_matrices(A, "linalg.ldl_factor_ex", true);
  // LAPACK reads and writes the lower triangle only; the upper one is
  // zeroed so that LD holds nothing but the factorization.
  const int n = static_cast<int>(A.size(-1));
  PivotedFactors outputs = pivoted_factor_outputs(A, n);
  Tensor &LD = outputs.factors, &pivots = outputs.pivots, &info = outputs.info;
  if (LD.is_meta() || LD.numel() == 0) return {LD, pivots, info};
  visit_lapack_type(A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(LD.data_ptr());
    int* piv = pivots.data_ptr<int>();
    int* infos = info.data_ptr<int>();
    T work_size{};
    int query_info = 0;
    lapack::sytrf(hermitian, n, a, n, piv, &work_size, -1, &query_info);
    for_each_batch(batch_count(A), n * n, [&](int64_t begin, int64_t end) {
      std::vector<T> work(static_cast<size_t>(std::real(work_size)) + 1);
      for (int64_t b = begin; b < end; ++b)
        lapack::sytrf(hermitian, n, a + b * n * n, n, piv + b * n, work.data(), static_cast<int>(work.size()),
                      &infos[b]);
    });
  });
  LD.tril_();
  if (check_errors) {
    const Failure f = first_failure(info);
    EMBER_CHECK_LINALG(!f, "linalg.ldl_factor: {}The factorization could not be completed because the input is singular "
                "(D[{},{}] is exactly zero).", batch_prefix(A, f.batch), f.info, f.info);
  }
  return {LD, pivots, info};
}

Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  check_matrices(LD, "linalg.ldl_solve", true, "LD");
  EMBER_CHECK(B.dim() >= 2, "linalg.ldl_solve: The input tensor B must have at least 2 dimensions.");
  EMBER_CHECK(LD.scalar_type() == B.scalar_type(),
              "linalg.ldl_solve: Expected LD and B to have the same dtype, but found LD of type {} and B of type {} "
              "instead", c10::toString(LD.scalar_type()), c10::toString(B.scalar_type()));
  EMBER_CHECK(c10::isIntegralType(pivots.scalar_type(), false),
              "linalg.ldl_solve: Expected pivots to be integers. Got {}", c10::toString(pivots.scalar_type()));
  const int64_t n = LD.size(-1);
  EMBER_CHECK(pivots.sizes() == LD.sizes().slice(0, LD.dim() - 1),
              "linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape {} "
              "instead", c10::str_sizes(pivots.sizes()));
  EMBER_CHECK(B.size(-2) == n, "linalg.ldl_solve: Incompatible shapes of LD and B for the equation LD X = B ({}x{} "
              "and {}x{})", n, n, B.size(-2), B.size(-1));
  // Bunch-Kaufman's 2x2 blocks are marked by negative pivots.
  PivotedSolve operands = pivoted_solve_operands(LD, pivots, B, -n, "linalg.ldl_solve");
  const Tensor &A_c = operands.factors, &piv = operands.pivots, &X = operands.X;
  if (X.is_meta() || X.numel() == 0) return X;
  const int ni = static_cast<int>(n), k = static_cast<int>(B.size(-1));
  visit_lapack_type(LD.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = static_cast<const T*>(A_c.data_ptr());
    T* x = static_cast<T*>(X.data_ptr());
    const int* p = piv.data_ptr<int>();
    for_each_batch(batch_count(X), n * (n + k), [&](int64_t begin, int64_t end) {
      int info = 0;
      for (int64_t b = begin; b < end; ++b)
        lapack::sytrs(hermitian, ni, k, a + b * n * n, std::max(ni, 1), p + b * n, x + b * n * k, std::max(ni, 1),
                      &info);
    });
  });
  return X;
}

// ---- solve, inverse, determinants ----------------------------------------------------

std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  check_matrices(A, "linalg.solve", true);
  EMBER_CHECK(A.scalar_type() == B.scalar_type(),
              "linalg.solve: Expected A and B to have the same dtype, but found A of type {} and B of type {} instead",
              c10::toString(A.scalar_type()), c10::toString(B.scalar_type()));
  // B is a vector (or a batch of them) when it has one dim less than A and
  // matches A's shape without its last dim, as in torch.
  const bool vector = B.dim() == 1 || (left && B.dim() == A.dim() - 1 && B.sizes() == A.sizes().slice(0, A.dim() - 1));
  const Tensor rhs = vector ? B.unsqueeze(left ? -1 : -2) : B;
  EMBER_CHECK(rhs.dim() >= 2, "linalg.solve: The input tensor B must have at least 1 dimension.");
  const int64_t n = A.size(-1);
  EMBER_CHECK((left ? rhs.size(-2) : rhs.size(-1)) == n,
              "linalg.solve: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})",
              left ? "AX = B" : "XA = B", n, n, rhs.size(-2), rhs.size(-1));
  auto [LU, pivots, info] = ember::linalg_lu_factor_ex(A, true, false);
  if (check_errors) {
    const Failure f = first_failure(info);
    EMBER_CHECK_LINALG(!f, "torch.linalg.solve: {}The solver failed because the input matrix is singular.",
                batch_prefix(A, f.batch));
  }
  Tensor X = ember::linalg_lu_solve(LU, pivots, rhs, left, false);
  return {vector ? X.squeeze(left ? -1 : -2) : X, info};
}

namespace {

// U's diagonal and the permutation's sign (+-1, A's dtype) of A = P L U:
// det A = sign * prod(diag).
std::pair<Tensor, Tensor> lu_diagonal_and_sign(const Tensor& A) {
  auto [LU, pivots, info] = ember::linalg_lu_factor_ex(A, true, false);
  // Each row swap (pivot i != i) flips the sign.
  const Tensor positions = ember::arange(1, A.size(-1) + 1, 1, ScalarType::Int, A.device());
  const Tensor swaps = pivots.ne(positions).sum(IntArrayRef({-1}));
  return {LU.diagonal(0, -2, -1), (1 - 2 * ember::remainder(swaps, 2)).to(A.scalar_type())};
}

}  // namespace

Tensor linalg_det(const Tensor& A) {
  check_matrices(A, "linalg.det", true);
  if (A.is_meta()) return ember::empty(batch_shape(A), A.scalar_type(), A.device());
  auto [diag, sign] = lu_diagonal_and_sign(A);
  return diag.prod(-1) * sign;
}

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  check_matrices(A, "linalg.slogdet", true);
  const ScalarType real = c10::toRealValueType(A.scalar_type());
  if (A.is_meta()) {
    return {ember::empty(batch_shape(A), A.scalar_type(), A.device()), ember::empty(batch_shape(A), real, A.device())};
  }
  auto [diag, sign] = lu_diagonal_and_sign(A);
  return {ember::sgn(diag).prod(-1) * sign, diag.abs().log().sum(IntArrayRef({-1}))};
}

// ---- Hermitian eigenvalues, SVD, QR -----------------------------------------------------

std::tuple<Tensor, Tensor> _linalg_eigh(const Tensor& A, std::string_view UPLO, bool compute_v) {
  check_matrices(A, "linalg.eigh", true);
  EMBER_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u",
              "Expected UPLO argument to be 'L' or 'U', but got {}", std::string(UPLO));
  const ScalarType real = c10::toRealValueType(A.scalar_type());
  std::vector<int64_t> value_shape = batch_shape(A);
  value_shape.push_back(A.size(-1));
  Tensor values = ember::empty(value_shape, real, A.device());
  Tensor V = column_major_copy(A);
  if (V.is_meta() || V.numel() == 0) return {values, compute_v ? V : ember::empty({0}, A.scalar_type(), A.device())};
  const int n = static_cast<int>(A.size(-1));
  const char uplo = static_cast<char>(std::toupper(UPLO[0]));
  const char jobz = compute_v ? 'V' : 'N';
  std::vector<int> infos(batch_count(A), 0);
  visit_lapack_type(A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    using R = real_t<T>;
    T* a = static_cast<T*>(V.data_ptr());
    R* w = static_cast<R*>(values.data_ptr());
    // Workspace sizes from a query, once for the whole batch.
    T work_size{};
    R rwork_size{};
    int iwork_size = 0, info = 0;
    lapack::heevd(jobz, uplo, n, a, n, w, &work_size, -1, &rwork_size, -1, &iwork_size, -1, &info);
    for_each_batch(batch_count(A), n * n, [&](int64_t begin, int64_t end) {
      std::vector<T> work(static_cast<size_t>(std::real(work_size)) + 1);
      std::vector<R> rwork(static_cast<size_t>(rwork_size) + 1);
      std::vector<int> iwork(static_cast<size_t>(iwork_size) + 1);
      for (int64_t b = begin; b < end; ++b) {
        lapack::heevd(jobz, uplo, n, a + b * n * n, n, w + b * n, work.data(), static_cast<int>(work.size()),
                      rwork.data(), static_cast<int>(rwork.size()), iwork.data(), static_cast<int>(iwork.size()),
                      &infos[b]);
      }
    });
  });
  const Failure f = first_failure(infos.data(), batch_count(A));
  EMBER_CHECK_LINALG(!f, "linalg.eigh: {}The algorithm failed to converge because the input matrix is "
              "ill-conditioned or has too many repeated eigenvalues (error code: {}).", batch_prefix(A, f.batch),
              f.info);
  return {values, compute_v ? V : ember::empty({0}, A.scalar_type(), A.device())};
}

std::tuple<Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices, bool compute_uv) {
  check_matrices(A, "linalg.svd", false);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const ScalarType real = c10::toRealValueType(A.scalar_type());
  auto shape = [&](int64_t rows, int64_t cols) {
    std::vector<int64_t> s = batch_shape(A);
    s.insert(s.end(), {rows, cols});
    return s;
  };
  std::vector<int64_t> s_shape = batch_shape(A);
  s_shape.push_back(k);
  Tensor S = ember::empty(s_shape, real, A.device());
  const int64_t u_cols = full_matrices ? m : k, vh_rows = full_matrices ? n : k;
  // Column-major results: allocated as transposes of row-major ones.
  Tensor U = compute_uv ? ember::empty(shape(u_cols, m), A.scalar_type(), A.device()).mT()
                        : ember::empty({0}, A.scalar_type(), A.device());
  Tensor Vh = compute_uv ? ember::empty(shape(n, vh_rows), A.scalar_type(), A.device()).mT()
                         : ember::empty({0}, A.scalar_type(), A.device());
  if (A.is_meta()) return {U, S, Vh};
  if (A.numel() == 0) {
    if (compute_uv) {  // an empty matrix's singular vectors: an identity where they exist
      if (U.numel()) U.copy_(ember::eye(m, u_cols, A.scalar_type(), A.device()).expand(U.sizes()));
      if (Vh.numel()) Vh.copy_(ember::eye(vh_rows, n, A.scalar_type(), A.device()).expand(Vh.sizes()));
    }
    return {U, S, Vh};
  }
  Tensor work_a = column_major_copy(A);
  const char jobz = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  const int ldu = std::max(mi, 1), ldvt = std::max(static_cast<int>(vh_rows), 1);
  std::vector<int> infos(batch_count(A), 0);
  visit_lapack_type(A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    using R = real_t<T>;
    T* a = static_cast<T*>(work_a.data_ptr());
    R* s = static_cast<R*>(S.data_ptr());
    T dummy{};
    T* u = compute_uv ? static_cast<T*>(U.data_ptr()) : &dummy;
    T* vt = compute_uv ? static_cast<T*>(Vh.data_ptr()) : &dummy;
    std::vector<int> iwork(8 * static_cast<size_t>(k) + 1);
    // rwork as LAPACK sizes it for complex gesdd (unused for reals).
    const size_t mx = static_cast<size_t>(std::max(m, n)), mn = static_cast<size_t>(k);
    std::vector<R> rwork(jobz == 'N' ? 7 * mn + 1 : std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn) + 1);
    T work_size{};
    int info = 0;
    lapack::gesdd(jobz, mi, ni, a, std::max(mi, 1), s, u, ldu, vt, ldvt, &work_size, -1, rwork.data(), iwork.data(),
                  &info);
    const int64_t u_stride = compute_uv ? m * u_cols : 0, vt_stride = compute_uv ? vh_rows * n : 0;
    for_each_batch(batch_count(A), m * n, [&](int64_t begin, int64_t end) {
      std::vector<T> work(static_cast<size_t>(std::real(work_size)) + 1);
      std::vector<R> task_rwork(rwork.size());
      std::vector<int> task_iwork(iwork.size());
      for (int64_t b = begin; b < end; ++b) {
        lapack::gesdd(jobz, mi, ni, a + b * m * n, std::max(mi, 1), s + b * ki, u + b * u_stride, ldu,
                      vt + b * vt_stride, ldvt, work.data(), static_cast<int>(work.size()), task_rwork.data(),
                      task_iwork.data(), &infos[b]);
      }
    });
  });
  const Failure f = first_failure(infos.data(), batch_count(A));
  EMBER_CHECK_LINALG(!f, "linalg.svd: {}The algorithm failed to converge because the input matrix is "
              "ill-conditioned or has too many repeated singular values.", batch_prefix(A, f.batch));
  return {U, S, Vh};
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  check_matrices(A, "linalg.qr", false);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r",
              "qr received unrecognized mode '{}' but expected one of 'reduced' (default), 'r', or 'complete'",
              std::string(mode));
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool complete = mode == "complete", want_q = mode != "r";
  const int64_t q_cols = complete ? m : k;
  // Factor in place in an m x max(n, q_cols) column-major buffer, so that Q
  // (which may need m columns) can be formed where the reflectors are.
  const int64_t width = std::max(n, q_cols);
  Tensor work_a = column_major_copy(n == width ? A : ember::constant_pad_nd(A, {0, width - n}, 0));
  std::vector<int64_t> tau_shape = batch_shape(A);
  tau_shape.push_back(k);
  Tensor tau = ember::empty(tau_shape, A.scalar_type(), A.device());
  const int64_t r_rows = complete ? m : k;
  if (A.is_meta() || A.numel() == 0) {  // the same layouts as computed results, without LAPACK
    Tensor R = ember::narrow(ember::narrow(work_a, -2, 0, r_rows), -1, 0, n).triu();
    Tensor Q = want_q ? ember::narrow(work_a, -1, 0, q_cols) : ember::empty({0}, A.scalar_type(), A.device());
    if (!A.is_meta() && want_q && Q.numel()) {
      Q.copy_(ember::eye(m, q_cols, A.scalar_type(), A.device()).expand(Q.sizes()));
    }
    return {Q, R};
  }
  const int mi = static_cast<int>(m), wi = static_cast<int>(width), ki = static_cast<int>(k);
  const int lda = std::max(mi, 1);
  visit_lapack_type(A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(work_a.data_ptr());
    T* t = static_cast<T*>(tau.data_ptr());
    T work_size{};
    int info = 0;
    lapack::geqrf(mi, static_cast<int>(n), a, lda, t, &work_size, -1, &info);
    for_each_batch(batch_count(A), m * width, [&](int64_t begin, int64_t end) {
      std::vector<T> work(static_cast<size_t>(std::real(work_size)) + 1);
      int task_info = 0;
      for (int64_t b = begin; b < end; ++b)
        lapack::geqrf(mi, static_cast<int>(n), a + b * m * width, lda, t + b * k, work.data(),
                      static_cast<int>(work.size()), &task_info);
    });
  });
  Tensor R = ember::narrow(ember::narrow(work_a, -2, 0, r_rows), -1, 0, n).triu();
  if (!want_q) return {ember::empty({0}, A.scalar_type(), A.device()), R};
  const int qc = static_cast<int>(q_cols);
  visit_lapack_type(A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(work_a.data_ptr());
    const T* t = static_cast<const T*>(tau.data_ptr());
    T work_size{};
    int info = 0;
    lapack::orgqr(mi, qc, ki, a, lda, t, &work_size, -1, &info);
    for_each_batch(batch_count(A), m * width, [&](int64_t begin, int64_t end) {
      std::vector<T> work(static_cast<size_t>(std::real(work_size)) + 1);
      int task_info = 0;
      for (int64_t b = begin; b < end; ++b)
        lapack::orgqr(mi, qc, ki, a + b * m * width, lda, t + b * k, work.data(), static_cast<int>(work.size()),
                      &task_info);
    });
  });
  (void)wi;
  return {ember::narrow(work_a, -1, 0, q_cols), R};
}

std::tuple<Tensor, Tensor> linalg_eig(const Tensor& A) {
  check_matrices(A, "linalg.eig", true);
  const ScalarType complex = c10::toComplexType(A.scalar_type());
  std::vector<int64_t> value_shape = batch_shape(A);
  value_shape.push_back(A.size(-1));
  Tensor values = ember::empty(value_shape, complex, A.device());
  Tensor vectors = ember::empty(A.sizes(), complex, A.device()).mT();  // column-major
  if (A.is_meta() || A.numel() == 0) return {values, vectors};
  EMBER_CHECK(ember::isfinite(A).all().item().toBool(), "linalg.eig: input tensor should not contain infs or NaNs.");
  Tensor work_a = column_major_copy(A);
  const int n = static_cast<int>(A.size(-1));
  std::vector<int> infos(batch_count(A), 0);
  visit_lapack_type(A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    using C = std::complex<real_t<T>>;
    T* a = static_cast<T*>(work_a.data_ptr());
    C* w = static_cast<C*>(values.data_ptr());
    C* v = static_cast<C*>(vectors.data_ptr());
    for_each_batch(batch_count(A), n * n, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) lapack::geev(n, a + b * n * n, w + b * n, v + b * n * n, &infos[b]);
    });
  });
  const Failure f = first_failure(infos.data(), batch_count(A));
  EMBER_CHECK_LINALG(!f, "linalg.eig: {}The algorithm failed to converge because the input matrix is "
              "ill-conditioned or has too many repeated eigenvalues.", batch_prefix(A, f.batch));
  return {values, vectors};
}

// ---- triangular systems ----------------------------------------------------------------

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  check_matrices(A, "linalg.solve_triangular", true);
  EMBER_CHECK(B.dim() >= 2, "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
  EMBER_CHECK(A.scalar_type() == B.scalar_type(),
              "linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type {} and B of "
              "type {} instead", c10::toString(A.scalar_type()), c10::toString(B.scalar_type()));
  if (!left) {  // X A = B  <=>  A^T X^T = B^T, and A^T is triangular the other way
    return ember::linalg_solve_triangular(A.mT(), B.mT(), !upper, true, unitriangular).mT();
  }
  const int64_t n = A.size(-1);
  EMBER_CHECK(B.size(-2) == n,
              "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B ({}x{} and {}x{})", n,
              n, B.size(-2), B.size(-1));
  auto [A_b, B_b] = broadcast_batches(A, B);
  const Tensor A_c = column_major(A_b);
  Tensor X = column_major_copy(B_b);
  if (X.is_meta() || X.numel() == 0) return X;
  const int ni = static_cast<int>(n), k = static_cast<int>(B.size(-1));
  visit_lapack_type(A.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = static_cast<const T*>(A_c.data_ptr());
    T* x = static_cast<T*>(X.data_ptr());
    for_each_batch(batch_count(X), n * (n + k), [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b)
        lapack::trsm_left(upper, unitriangular, ni, k, a + b * n * n, std::max(ni, 1), x + b * n * k, std::max(ni, 1));
    });
  });
  return X;
}

}  // namespace ember::native
