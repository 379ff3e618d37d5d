"""Ready-made parametrizations (torch.nn.utils.parametrizations): orthogonal, weight_norm and spectral_norm."""

import ember

from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "weight_norm", "spectral_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of v over every dim but `dim` (kept, with size-1 dims elsewhere); dim -1: over all of v."""
    if dim == -1 or dim is None:
        return v.norm()
    dims = [d for d in range(v.dim()) if d != dim % v.dim()]
    return v.norm(2, dim=dims, keepdim=True) if dims else v.abs()


def _weight_norm(v, g, dim):
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    r"""Reparametrizes ``module.<name>`` as g * v / ||v|| (norm over all dims but ``dim``): the magnitude g is
    ``parametrizations.<name>.original0`` and the direction v ``original1``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma its largest singular value estimated by power
    iteration on the buffers _u and _v (one step per training forward, 15 at
    registration); a 1-d weight is just normalized."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        ndim = weight.dim()
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            # torch's draws, in torch's order: u, then v.
            u = weight_mat.new_empty([h]).normal_(0, 1)
            v = weight_mat.new_empty([w]).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute([self.dim] + [d for d in range(weight.dim()) if d != self.dim])
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with ember.no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(ember.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(ember.mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # Copies: the next training forward updates the buffers in place.
        u, v = self._u.clone(), self._v.clone()
        sigma = ember.dot(u, ember.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def _transposed_conv(module):
    from ..modules.conv import _ConvTransposeNd

    return isinstance(module, _ConvTransposeNd)


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    r"""Reparametrizes ``module.<name>`` as itself divided by its spectral norm (the original is
    ``parametrizations.<name>.original``); dim defaults to 1 for transposed convolutions, else 0."""
    weight = getattr(module, name, None)
    if not isinstance(weight, ember.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _transposed_conv(module) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module



_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _orthonormalize(A):
    """The Q of A's QR factorization with R's diagonal made positive: A itself when A is orthogonal."""
    Q, R = ember.linalg.qr(A)
    signs = R.diagonal(dim1=-2, dim2=-1).sgn()
    return Q * signs.unsqueeze(-2)


def _is_orthogonal(Q):
    identity = ember.eye(Q.shape[-1], dtype=Q.dtype, device=Q.device)
    tolerance = 10.0 * ember.finfo(Q.dtype).eps
    return bool(ember.allclose(Q.mH @ Q, identity.expand_as(Q.mH @ Q), atol=tolerance))


def _householder_vectors(Q):
    """The input the householder map sends to a tall real orthogonal Q (n x k): Householder QR of Q
    reflects column i onto -sign(Q_ii') e_i, leaving R = diag(+-1); the reflections' unit-lead vectors go
    below the diagonal and the signs of R on it."""
    k = Q.shape[-1]
    R = Q.clone()
    X = ember.zeros_like(Q)
    for i in range(k):
        column = R[..., i:, i]
        sign = ember.where(column[..., :1] < 0, -1.0, 1.0).to(Q.dtype)
        lead = column[..., :1] + sign * column.norm(dim=-1, keepdim=True)
        v = column / lead
        v[..., 0] = 1
        tau = 2 / v.pow(2).sum(-1, keepdim=True)
        block = R[..., i:, :]
        R[..., i:, :] = block - tau.unsqueeze(-1) * v.unsqueeze(-1) * (v.unsqueeze(-2) @ block)
        X[..., i + 1:, i] = v[..., 1:]
        X[..., i, i] = -sign[..., 0]
    return X


class _Orthogonal(Module):
    """Maps an unconstrained tensor to an orthogonal (unitary) matrix: the exponential or Cayley transform
    of the skew-Hermitian matrix its lower triangle defines, or a product of the Householder reflections
    stored below its diagonal. With trivialization, the result multiplies a stored orthogonal ``base``,
    which assignment sets, so optimization starts from the identity of the map at every assignment."""

    def __init__(self, weight, orthogonal_map, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = ember.cat([X, X.new_zeros(X.shape[:-2] + (n, n - k))], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = ember.linalg.matrix_exp(A)
            else:
                identity = ember.eye(n, dtype=A.dtype, device=A.device)
                Q = ember.linalg.solve(identity - A / 2, identity + A / 2)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = ember.linalg.householder_product(A, tau)
            # Each reflection flips its column's sign; the diagonal of X (its sign) chooses it back or not.
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with ember.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {tuple(self.shape)}. "
                             f"Got a tensor of shape {tuple(Q.shape)}.")
        given = Q
        n, k = Q.size(-2), Q.size(-1)
        transposed = n < k
        if transposed:
            Q = Q.mT
            n, k = k, n
        if "base" in self._buffers:
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _orthonormalize(Q)
            else:
                # Complete the k columns to an n x n orthogonal base with random directions.
                extra = ember.randn(Q.shape[:-2] + (n, n - k), dtype=Q.dtype, device=Q.device)
                Q = _orthonormalize(ember.cat([Q, extra], dim=-1))
            self.base = Q
            # The input the map sends to the identity: -I (its lower triangle is skew-free, its diagonal
            # gives the Householder map the signs that undo each reflection).
            minus_identity = ember.zeros_like(given)
            minus_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return minus_identity
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                      "parametrizations when use_trivialization=False.")
        X = _householder_vectors(_orthonormalize(Q) if not _is_orthogonal(Q) else Q)
        return X.mT if transposed else X


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    r"""Constrains the matrix (or batch of matrices) ``module.<name>`` to be orthogonal (unitary when
    complex): Q^H Q = I for tall or square matrices, Q Q^H = I for wide ones. ``orthogonal_map`` is
    "matrix_exp" (the default for square or complex matrices), "cayley" or "householder" (the default
    otherwise). The current weight is kept when it is orthogonal, else replaced by the Q of its QR
    factorization."""
    weight = getattr(module, name, None)
    if not isinstance(weight, ember.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrize.register_parametrization(module, name, _Orthogonal(weight, orthogonal_map, use_trivialization),
                                         unsafe=True)
    return module
