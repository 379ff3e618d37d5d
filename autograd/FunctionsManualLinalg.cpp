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

}  // namespace

// A = L L^H: grad_A = L^-H phi(L^H grad_L) L^-1, made Hermitian, with phi
// the lower triangle and half the diagonal.
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& factor) {
  const Tensor L = upper ? factor.mH() : factor;
  const Tensor gL = upper ? grad.mH() : grad;
  Tensor phi = ember::matmul(L.mH(), gL).tril();
  phi.diagonal(0, -2, -1).mul_(0.5);
  const Tensor left = ember::linalg_solve_triangular(L.mH(), phi, true, true, false);
  const Tensor gA = ember::linalg_solve_triangular(L, left, false, false, false);
  return (gA + gA.mH()) * 0.5;
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
Tensor det_backward(const Tensor& grad, const Tensor& A, const Tensor& det) {
  const Tensor scale = (grad * det.conj()).unsqueeze(-1).unsqueeze(-1);
  return scale * inverse(A).mH();
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

// A = V diag(L) V^H: grad_A = V (diag(grad_L) + skew(V^H grad_V) / 2 / E) V^H
// with E_ij = L_j - L_i off the diagonal.
Tensor eigh_backward(const Tensor& grad_values, const Tensor& grad_vectors, const Tensor& values,
                     const Tensor& vectors) {
  const Tensor& V = vectors;
  const Tensor gL = grad_values.defined() ? grad_values : ember::zeros_like(values);
  Tensor inner;
  if (grad_vectors.defined()) {
    Tensor E = values.unsqueeze(-2) - values.unsqueeze(-1);
    E.diagonal(0, -2, -1).fill_(1);
    inner = skew(ember::matmul(V.mH(), grad_vectors)) * 0.5 / E;
    inner = with_diagonal(inner, gL);
  } else {
    inner = diag_embed_last(gL.to(V.scalar_type()));
  }
  return ember::matmul(ember::matmul(V, inner), V.mH());
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

// A = QR with m >= n (reduced): grad_A = (grad_Q + Q copyltu(M)) R^-H,
// M = R grad_R^H - grad_Q^H Q, copyltu mirroring the strict lower triangle.
Tensor qr_backward(const Tensor& grad_Q, const Tensor& grad_R, const Tensor& Q, const Tensor& R,
                   std::string_view mode) {
  EMBER_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
              "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = Q.size(-2), n = R.size(-1);
  EMBER_CHECK(!(mode == "complete" && m > n),
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  EMBER_CHECK_NOT_IMPLEMENTED(m >= n, "linalg.qr: the derivative for matrices with fewer rows than columns is not "
                              "implemented yet");
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
