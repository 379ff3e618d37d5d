"""ember.svd_lowrank and ember.pca_lowrank: randomized low-rank SVD (Halko, Martinsson and Tropp's
range finder with subspace iterations), as torch's, for matrices too big for a full SVD."""

import ember

__all__ = ["pca_lowrank", "svd_lowrank"]


def _approximate_basis(A, q, niter, M=None):
    """An orthonormal basis (m x q) whose span nearly holds the range of A - M."""
    def product(X):
        return A @ X if M is None else A @ X - M @ X

    def adjoint_product(X):
        return A.mH @ X if M is None else A.mH @ X - M.mH @ X

    R = ember.randn(*A.shape[:-2], A.shape[-1], q, dtype=A.dtype, device=A.device)
    Q = ember.linalg.qr(product(R)).Q
    for _ in range(niter):
        Q = ember.linalg.qr(adjoint_product(Q)).Q
        Q = ember.linalg.qr(product(Q)).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """U, S, V (not Vh) of a rank-q approximation of A - M, with U m x q, S q, V n x q."""
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"svd_lowrank: expected a floating point or complex matrix, got {A.dtype}")
    if A.dim() < 2:
        raise RuntimeError(f"svd_lowrank: expected a matrix (or a batch of them), got {A.dim()}-D input")
    m, n = A.shape[-2:]
    q = 6 if q is None else q
    if not 0 <= q <= min(m, n):
        raise ValueError(f"svd_lowrank: q(={q}) must be non-negative and not greater than min(m, n)={min(m, n)}")
    if m < n:  # the range finder works on the taller of A and A^H
        U, S, V = svd_lowrank(A.mH, q, niter, None if M is None else M.mH)
        return V, S, U
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = ember.linalg.svd(B, full_matrices=False)
    return Q @ U, S, Vh.mH


def pca_lowrank(A, q=None, center=True, niter=2):
    """U, S, V of the principal components of the rows of A (centred on their mean unless center=False):
    the projections onto the first k components are A @ V[:, :k]."""
    if A.dim() < 2:
        raise RuntimeError(f"pca_lowrank: expected a matrix (or a batch of them), got {A.dim()}-D input")
    m, n = A.shape[-2:]
    q = min(6, m, n) if q is None else q
    if not 0 <= q <= min(m, n):
        raise ValueError(f"pca_lowrank: q(={q}) must be non-negative and not greater than min(m, n)={min(m, n)}")
    if not center:
        return svd_lowrank(A, q, niter)
    return svd_lowrank(A - A.mean(dim=-2, keepdim=True), q, niter)
