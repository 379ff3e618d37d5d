// Gradients of the LAPACK-backed linalg ops (derivatives.yaml), for real and
// complex inputs (Wirtinger convention: grad_A = dL/dRe(A) + i dL/dIm(A)).
// X^H is mH(); solves go through the same ops as the forward pass.

#include <autograd/FunctionsManual.h>

#include <aten/Functions.h>

namespace ember::autograd::manual {

namespace {

Tensor inverse(const Tensor& A) {
  const Tensor eye = ember::eye(A.size(-1), A.scalar_type(), A.device());
  return std::get<0>(ember::linalg_solve_ex(A, eye.expand(A.sizes()), true, false));
}

Tensor diag_embed_last(const Tensor& d) { return ember::diag_embed(d, 0, -2, -1); }

// d with each matrix's diagonal replaced by `diagonal` (a batch of vectors).
Tensor with_diagonal(Tensor m, const Tensor& diagonal) {
  m.diagonal(0, -2, -1).copy_(diagonal);
  return m;
}

Tensor skew(const Tensor& m) { return m - m.mH(); }

// Complex eigen- and singular vectors are defined up to a phase e^{i phi}
// each: a loss that depends on the phases has no gradient, and Im of
// diag(V^H grad_V) (summed over U and V for the SVD) is then not zero.
void check_phase_invariant(const Tensor& imag_diagonal, const char* op, const char* vectors) {
  if (imag_diagonal.is_meta() || imag_diagonal.numel() == 0) return;
  EMBER_CHECK(imag_diagonal.abs().le(1e-2).all().item().toBool(),
              "{}: The {} in the complex case are specified up to multiplication by e^{{i phi}}. The specified loss "
              "function depends on this quantity, so it is ill-defined.", op, vectors);
}

// P X for A = P L U, from LAPACK's pivots (row i swapped with row
// pivots[i] - 1, in order): (P^T X)[i] = X[perm[i]], so row perm[i] of P X
// is row i of X. A gather, so that it stays differentiable.
Tensor apply_pivots(const Tensor& X, const Tensor& pivots) {
  const int64_t m = X.size(-2), k = pivots.size(-1);
  const Tensor flat = pivots.reshape({-1, k}).to(ScalarType::Int).contiguous();
  const int64_t batch = flat.size(0);
  Tensor source = ember::empty({batch, m}, ScalarType::Long, X.device());
  const int* piv = flat.data_ptr<int>();
  int64_t* src = source.data_ptr<int64_t>();
  std::vector<int64_t> perm(m);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) perm[i] = i;
    for (int64_t i = 0; i < k; ++i) std::swap(perm[i], perm[piv[b * k + i] - 1]);
    for (int64_t i = 0; i < m; ++i) src[b * m + perm[i]] = i;
  }
  std::vector<int64_t> index_shape(X.sizes().begin(), X.sizes().end());
  index_shape.back() = 1;
  return ember::gather(X, -2, source.reshape(index_shape).expand(X.sizes()), false);
}

// prod_{j != i} S_j for each i along the last dim (zeros allowed).
Tensor products_of_others(const Tensor& S) {
  const int64_t k = S.size(-1);
  std::vector<int64_t> one_shape(S.sizes().begin(), S.sizes().end());
  one_shape.back() = 1;
  const Tensor ones = ember::ones(one_shape, S.scalar_type(), S.device());
  const Tensor before = ember::cat({ones, S.narrow(-1, 0, k - 1).cumprod(-1)}, -1);
  const Tensor reversed = S.flip({-1});
  const Tensor after = ember::cat({ones, reversed.narrow(-1, 0, k - 1).cumprod(-1)}, -1).flip({-1});
  return before * after;
}

}  // namespace

// A = L L^H: grad_A = L^-H phi L^-1 with M = tril(L^H grad_L) and
// phi = (M + tril(M, -1)^H) / 2, Hermitian but for the diagonal's imaginary
// parts, which no Hermitian perturbation of A sees (torch's form, so that the
// two agree on any input).
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& factor) {
  const Tensor L = upper ? factor.mH() : factor;
  const Tensor gL = upper ? grad.mH() : grad;
  const Tensor M = ember::matmul(L.mH(), gL).tril();
  const Tensor phi = (M + M.tril(-1).mH()) * 0.5;
  const Tensor left = ember::linalg_solve_triangular(L.mH(), phi, true, true, false);
  return ember::linalg_solve_triangular(L, left, false, false, false);
}

std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& A, const Tensor& X, bool left,
                                                 std::array<bool, 2> mask) {
  // A batch of vectors: solved as one-column matrices.
  const bool vector = X.dim() == 1 || (left && X.dim() == A.dim() - 1);
  const Tensor x = vector ? X.unsqueeze(-1) : X;
  const Tensor g = vector ? grad.unsqueeze(-1) : grad;
  const Tensor gB = std::get<0>(ember::linalg_solve_ex(A.mH(), g, left, false));
  Tensor gA;
  if (mask[0]) gA = left ? -ember::matmul(gB, x.mH()) : -ember::matmul(x.mH(), gB);
  return {gA, mask[1] ? (vector ? gB.squeeze(-1) : gB) : Tensor()};
}

// d det = det tr(A^-1 dA): grad_A = grad conj(det) A^-H.
// A singular matrix has no inverse but still a gradient, adj(A)^H: from
// A = U S Vh, adj(A) = det(U) det(Vh) Vh^H diag(prod_{j != i} S_j) U^H.
Tensor det_backward(const Tensor& grad, const Tensor& A, const Tensor& det) {
  if (A.numel() == 0) return ember::zeros_like(A);
  const bool singular = !det.is_meta() && det.eq(0).any().item().toBool();
  if (!singular) {
    const Tensor scale = (grad * det.conj()).unsqueeze(-1).unsqueeze(-1);
    return scale * inverse(A).mH();
  }
  const auto [U, S, Vh] = ember::_linalg_svd(A, false, true);
  const Tensor phase = (ember::linalg_det(U) * ember::linalg_det(Vh)).conj();
  const Tensor others = products_of_others(S).to(A.scalar_type());
  return (grad * phase).unsqueeze(-1).unsqueeze(-1) * ember::matmul(U * others.unsqueeze(-2), Vh);
}

// d log|det| = Re tr(A^-1 dA), d sign = i sign Im tr(A^-1 dA).
Tensor slogdet_backward(const Tensor& grad_sign, const Tensor& grad_logabsdet, const Tensor& A, const Tensor& sign) {
  Tensor coefficient;
  if (grad_logabsdet.defined()) coefficient = grad_logabsdet.to(A.scalar_type());
  if (grad_sign.defined() && A.is_complex()) {
    const Tensor phase = ember::imag(grad_sign.conj() * sign).neg() * c10::complex<double>(0, 1);
    coefficient = coefficient.defined() ? coefficient + phase : phase;
  }
  if (!coefficient.defined()) return ember::zeros_like(A);
  return coefficient.unsqueeze(-1).unsqueeze(-1) * inverse(A).mH();
}

// A = V diag(L) V^-1 (V^H for Hermitian A, and then E and L are real):
// grad_A = V^-H (diag(grad_L) + P(V^H grad_V) / conj(E)) V^H, with
// E_ij = L_j - L_i off the diagonal, and P the projection that accounts for
// V's unit-norm columns (the skew-Hermitian part for Hermitian A).
Tensor eig_backward(const Tensor& grad_values, const Tensor& grad_vectors, const Tensor& values,
                    const Tensor& vectors, bool hermitian) {
  const Tensor& V = vectors;
  Tensor inner;
  if (grad_vectors.defined()) {
    inner = ember::matmul(V.mH(), grad_vectors);
    const Tensor diagonal = inner.diagonal(0, -2, -1);
    if (V.is_complex()) {
      check_phase_invariant(ember::imag(diagonal), hermitian ? "linalg_eigh_backward" : "linalg_eig_backward",
                            "eigenvectors");
    }
    inner = hermitian ? skew(inner) * 0.5
                      : inner - ember::matmul(V.mH(), V * ember::real(diagonal).unsqueeze(-2));
    const Tensor L = hermitian ? values : values.conj();
    Tensor E = L.unsqueeze(-2) - L.unsqueeze(-1);
    E.diagonal(0, -2, -1).fill_(1);
    inner = inner / E;
    inner = with_diagonal(inner, grad_values.defined() ? grad_values : ember::zeros_like(values));
  } else {
    const Tensor gL = grad_values.defined() ? grad_values : ember::zeros_like(values);
    inner = diag_embed_last(gL.to(V.scalar_type()));
  }
  const Tensor right = ember::matmul(inner, V.mH());
  return hermitian ? ember::matmul(V, right) : std::get<0>(ember::linalg_solve_ex(V.mH(), right, true, false));
}

// A = U diag(S) Vh (Townsend's formulas; for complex inputs the phase of
// each singular pair is fixed through U's side).
Tensor svd_backward(const Tensor& grad_U, const Tensor& grad_S, const Tensor& grad_Vh, const Tensor& U_full,
                    const Tensor& S, const Tensor& Vh_full, bool full_matrices) {
  const int64_t k = S.size(-1);
  // With full_matrices the extra columns are arbitrary: only the first k count.
  const Tensor U = full_matrices ? U_full.narrow(-1, 0, k) : U_full;
  const Tensor Vh = full_matrices ? Vh_full.narrow(-2, 0, k) : Vh_full;
  const Tensor gU = grad_U.defined() && full_matrices ? grad_U.narrow(-1, 0, k) : grad_U;
  const Tensor gVh = grad_Vh.defined() && full_matrices ? grad_Vh.narrow(-2, 0, k) : grad_Vh;
  const Tensor gS = grad_S.defined() ? grad_S : ember::zeros_like(S);
  const ScalarType t = U.scalar_type();
  if (!gU.defined() && !gVh.defined()) {
    return ember::matmul(U * gS.to(t).unsqueeze(-2), Vh);
  }
  const int64_t m = U.size(-2), n = Vh.size(-1);
  const Tensor V = Vh.mH();
  const Tensor gV = gVh.defined() ? gVh.mH() : Tensor();
  const Tensor UhgU = gU.defined() ? ember::matmul(U.mH(), gU) : Tensor();
  const Tensor VhgV = gV.defined() ? ember::matmul(V.mH(), gV) : Tensor();
  const Tensor S2 = S * S;
  Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1);
  E.diagonal(0, -2, -1).fill_(1);
  const Tensor s_row = S.to(t).unsqueeze(-2), s_col = S.to(t).unsqueeze(-1);
  Tensor inner = ember::zeros(UhgU.defined() ? UhgU.sizes() : VhgV.sizes(), t, U.device());
  if (UhgU.defined()) inner = inner + skew(UhgU) * s_row;
  if (VhgV.defined()) inner = inner + s_col * skew(VhgV);
  inner = inner / E;
  if (U.is_complex()) {
    Tensor imag_diagonal = ember::zeros_like(S);
    if (UhgU.defined()) imag_diagonal = imag_diagonal + ember::imag(UhgU.diagonal(0, -2, -1));
    if (VhgV.defined()) imag_diagonal = imag_diagonal + ember::imag(VhgV.diagonal(0, -2, -1));
    check_phase_invariant(imag_diagonal, "linalg_svd_backward", "singular vectors");
  }
  Tensor diagonal = gS.to(t);
  if (U.is_complex() && UhgU.defined()) {
    diagonal = diagonal + ember::imag(UhgU.diagonal(0, -2, -1)) / S * c10::complex<double>(0, 1);
  }
  inner = with_diagonal(inner, diagonal);
  Tensor gA = ember::matmul(ember::matmul(U, inner), Vh);
  if (m > k && gU.defined()) gA = gA + ember::matmul((gU - ember::matmul(U, UhgU)) / s_row, Vh);
  if (n > k && gV.defined()) gA = gA + ember::matmul(U, ((gV - ember::matmul(V, VhgV)) / s_row).mH());
  return gA;
}

namespace {

// A = QR with m >= n (reduced): grad_A = (grad_Q + Q copyltu(M)) R^-H,
// M = R grad_R^H - grad_Q^H Q, copyltu mirroring the strict lower triangle.
Tensor qr_backward_tall(const Tensor& grad_Q, const Tensor& grad_R, const Tensor& Q, const Tensor& R) {
  const ScalarType t = Q.scalar_type();
  Tensor M = ember::zeros({R.size(-2), R.size(-2)}, t, Q.device());
  if (grad_R.defined()) M = M + ember::matmul(R, grad_R.mH());
  if (grad_Q.defined()) M = M - ember::matmul(grad_Q.mH(), Q);
  const Tensor strict = M.tril(-1);
  Tensor sym = strict + strict.mH();
  sym = with_diagonal(sym, ember::real(M.diagonal(0, -2, -1)).to(t));
  const Tensor rhs = (grad_Q.defined() ? grad_Q : ember::zeros_like(Q)) + ember::matmul(Q, sym);
  return ember::linalg_solve_triangular(R.mH(), rhs, false, false, false);
}

}  // namespace

// For m < n, A = [X | Y] and R = [U | V] with X = Q U square and Y = Q V:
// dV = Q^H (dY - dQ V) adds -Q grad_V V^H to X's grad_Q, and grad_Y = Q grad_V.
Tensor qr_backward(const Tensor& grad_Q, const Tensor& grad_R, const Tensor& Q, const Tensor& R,
                   std::string_view mode) {
  EMBER_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
              "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = Q.size(-2), n = R.size(-1);
  EMBER_CHECK(!(mode == "complete" && m > n),
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  if (m >= n) return qr_backward_tall(grad_Q, grad_R, Q, R);
  const Tensor U = R.narrow(-1, 0, m), V = R.narrow(-1, m, n - m);
  Tensor gQ = grad_Q, gU, gY;
  if (grad_R.defined()) {
    gU = grad_R.narrow(-1, 0, m);
    const Tensor gV = grad_R.narrow(-1, m, n - m);
    const Tensor correction = ember::matmul(Q, ember::matmul(gV, V.mH()));
    gQ = gQ.defined() ? gQ - correction : -correction;
    gY = ember::matmul(Q, gV);
  } else {
    gY = ember::zeros_like(V);
  }
  return ember::cat({qr_backward_tall(gQ, gU, Q, U), gY}, -1);
}

// A = P L U (L m x k unit lower, U k x n upper, k = min(m, n)). For square
// A: grad_A = P L^-H (tril(L^H grad_L, -1) + triu(grad_U U^H)) U^-H. A wide
// A = L [U1 | U2] moves U2's part into grad_L (U2 = L^-1 A2); a tall
// [L1; L2] U moves L2's part into grad_U (L2 = A2 U^-1).
Tensor lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const Tensor L = LU.narrow(-1, 0, k).tril(-1) + ember::eye(m, k, LU.scalar_type(), LU.device());
  const Tensor U = LU.narrow(-2, 0, k).triu();
  const Tensor gL = grad.narrow(-1, 0, k).tril(-1), gU = grad.narrow(-2, 0, k).triu();
  Tensor gA;
  if (m <= n) {
    const Tensor U1 = U.narrow(-1, 0, m), gU1 = gU.narrow(-1, 0, m);
    Tensor lower = ember::matmul(L.mH(), gL);
    if (n > m) lower = lower - ember::matmul(gU.narrow(-1, m, n - m), U.narrow(-1, m, n - m).mH());
    const Tensor G = lower.tril(-1) + ember::matmul(gU1, U1.mH()).triu();
    Tensor right = ember::linalg_solve_triangular(U1.mH(), G, false, false, false);
    if (n > m) right = ember::cat({right, gU.narrow(-1, m, n - m)}, -1);
    gA = ember::linalg_solve_triangular(L.mH(), right, true, true, true);
  } else {
    const Tensor L1 = L.narrow(-2, 0, n), L2 = L.narrow(-2, n, m - n);
    const Tensor gL1 = gL.narrow(-2, 0, n), gL2 = gL.narrow(-2, n, m - n);
    const Tensor G = ember::matmul(L1.mH(), gL1).tril(-1) +
                     (ember::matmul(gU, U.mH()) - ember::matmul(L2.mH(), gL2)).triu();
    const Tensor left = ember::cat({ember::linalg_solve_triangular(L1.mH(), G, true, true, true), gL2}, -2);
    gA = ember::linalg_solve_triangular(U.mH(), left, false, false, false);
  }
  return apply_pivots(gA, pivots);
}

std::tuple<Tensor, Tensor> solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& X, bool upper,
                                                     bool left, bool unitriangular, std::array<bool, 2> mask) {
  const Tensor gB = ember::linalg_solve_triangular(A.mH(), grad, !upper, left, unitriangular);
  Tensor gA;
  if (mask[0]) {
    gA = left ? -ember::matmul(gB, X.mH()) : -ember::matmul(X.mH(), gB);
    const int64_t offset = unitriangular ? 1 : 0;
    gA = upper ? gA.triu(offset) : gA.tril(-offset);
  }
  return {gA, mask[1] ? gB : Tensor()};
}

}  // namespace ember::autograd::manual
