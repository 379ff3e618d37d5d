"""The torch.* and Tensor spellings of linear algebra that predate
torch.linalg (det, inverse, svd returning V, triangular_solve...), written
with ember.linalg."""

from collections import namedtuple

from .. import _C
from ..amp._python_ops import autocast_op
from . import cholesky as _cholesky
from . import det, householder_product, inv, lu_solve as _lu_solve, matrix_exp, matrix_norm, matrix_power, pinv, qr as _qr, slogdet
from . import solve_triangular, vector_norm

SVDLegacy = namedtuple("svd", ["U", "S", "V"])
QRLegacy = namedtuple("qr", ["Q", "R"])
TriangularSolveResult = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
LUUnpackResult = namedtuple("lu_unpack", ["P", "L", "U"])


def logdet(A):
    """log det A: NaN where the determinant is negative, -inf where it is 0."""
    sign, logabsdet = slogdet(A)
    if A.is_complex():
        return logabsdet + sign.angle() * 1j
    return _C.where(sign < 0, _C.full_like(logabsdet, float("nan")), logabsdet)


@autocast_op("inverse")
def inverse(A, *, out=None):
    """The inverse (linalg.inv)."""
    return inv(A, out=out)


@autocast_op("pinverse")
def pinverse(A, rcond=1e-15):
    """The pseudo-inverse with singular values below rcond * max S dropped."""
    return pinv(A, rtol=rcond)


@autocast_op("svd")
def svd(A, some=True, compute_uv=True, *, out=None):
    """U, S, V with A = U diag(S) V^H (V, not Vh; reduced unless some=False)."""
    if not compute_uv:
        S = _C._linalg_svd(A, False, False)[1]
        m, n = A.shape[-2], A.shape[-1]
        U = _C.zeros(*A.shape[:-2], m, m if not some else min(m, n), dtype=A.dtype)
        V = _C.zeros(*A.shape[:-2], n, n if not some else min(m, n), dtype=A.dtype)
        return SVDLegacy(U, S, V)
    U, S, Vh = _C._linalg_svd(A, not some, True)
    return SVDLegacy(U, S, Vh.mH)


@autocast_op("qr")
def qr(A, some=True, *, out=None):
    """Q, R (reduced unless some=False)."""
    return QRLegacy(*_qr(A, "reduced" if some else "complete"))


@autocast_op("cholesky")
def cholesky(A, upper=False, *, out=None):
    """The Cholesky factor (linalg.cholesky)."""
    return _cholesky(A, upper=upper, out=out)


@autocast_op("cholesky_solve")
def cholesky_solve(B, L, upper=False, *, out=None):
    """X with A X = B, given A's Cholesky factor."""
    if upper:
        L = L.mH
    Y = solve_triangular(L, B, upper=False)
    return solve_triangular(L.mH, Y, upper=True, out=out)


@autocast_op("cholesky_inverse")
def cholesky_inverse(L, upper=False, *, out=None):
    """A^-1 from A's Cholesky factor."""
    eye = _C.eye(L.shape[-1], dtype=L.dtype, device=L.device).expand(L.shape)
    return cholesky_solve(eye, L, upper, out=out)


@autocast_op("lu_solve")
def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """X with A X = b from A's LU factorization."""
    return _lu_solve(LU_data, LU_pivots, b, out=out)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """P, L, U from a compact LU factorization."""
    from . import _permutation
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    empty = _C.empty(0, dtype=LU_data.dtype)
    L = LU_data[..., :, :k].tril(-1) + _C.eye(m, k, dtype=LU_data.dtype) if unpack_data else empty
    U = LU_data[..., :k, :].triu() if unpack_data else empty
    P = _permutation(LU_pivots, m, LU_data.dtype, LU_data.device) if unpack_pivots else empty
    return LUUnpackResult(P, L, U)


@autocast_op("triangular_solve")
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """(X, A) with op(A) X = b, op transposing A when asked (the old spelling of linalg.solve_triangular)."""
    coefficient = A.mT if transpose else A
    X = solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    return TriangularSolveResult(X, A.clone())


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None) -> Tensor

    The vector p-norm of the entries over dim (all of them by default; "fro" is the 2-norm), or with
    p="nuc" the nuclear norm of the matrices in dim (the last two by default).

    >>> ember.tensor([[3., 0.], [0., 4.]]).norm(p="fro")
    tensor(5.)
    """
    if isinstance(p, str):
        if p == "nuc":
            return matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else dim, keepdim=keepdim, dtype=dtype,
                               out=out)
        if p != "fro":
            raise RuntimeError(f"norm(): p must be 'fro', 'nuc' or a number, but got '{p}'")
        p = 2
    p = 2 if p is None else p
    if dtype is not None or out is not None:
        return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)
    if dim is None:
        return _C.norm(input, p) if not keepdim else _C.norm(input, p, list(range(input.dim())), True)
    return _C.norm(input, p, dim, keepdim)


@autocast_op("lu")
def lu(A, pivot=True, get_infos=False, out=None):
    """LU, pivots (and infos with get_infos=True): linalg.lu_factor_ex's factorization in torch.lu's older
    form, which reports a singular matrix in infos rather than raising, as torch.lu does."""
    from . import lu_factor_ex

    LU, pivots, infos = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


@autocast_op("orgqr")
def orgqr(input, tau):
    """The Q of a QR factorization from its Householder reflectors (linalg.householder_product)."""
    return householder_product(input, tau)


def _removed(name, advice):
    def removed(*args, **kwargs):
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed. {advice}")

    removed.__name__ = name
    return removed


matrix_rank = _removed("matrix_rank", "Please use the `ember.linalg.matrix_rank` function instead. The parameter "
                                      "'symmetric' was renamed in `ember.linalg.matrix_rank()` to 'hermitian'.")
solve = _removed("solve", "`ember.solve` is deprecated in favor of `ember.linalg.solve`, which has its arguments "
                          "reversed and does not return the LU factorization: X = ember.solve(B, A).solution "
                          "should be replaced with X = ember.linalg.solve(A, B).")
lstsq = _removed("lstsq", "`ember.lstsq` is deprecated in favor of `ember.linalg.lstsq`, which has reversed "
                          "arguments: X = ember.linalg.lstsq(A, B).solution.")
eig = _removed("eig", "Use `ember.linalg.eigvals(A)` for the eigenvalues and `ember.linalg.eig(A)` for eigenvalues "
                      "and eigenvectors; both return complex tensors.")
symeig = _removed("symeig", "Use `ember.linalg.eigvalsh(A, UPLO='U' if upper else 'L')`, or `ember.linalg.eigh` "
                            "for the eigenvectors too.")


FUNCTIONS = {"det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse, "pinverse": pinverse,
             "matrix_exp": matrix_exp, "matrix_power": matrix_power, "svd": svd, "qr": qr, "cholesky": cholesky,
             "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse, "lu_solve": lu_solve,
             "lu_unpack": lu_unpack, "triangular_solve": triangular_solve, "norm": norm, "lu": lu,
             "orgqr": orgqr, "matrix_rank": matrix_rank, "solve": solve, "lstsq": lstsq, "eig": eig,
             "symeig": symeig}
METHODS = ("norm", "det", "logdet", "slogdet", "inverse", "pinverse", "matrix_exp", "matrix_power", "svd", "qr", "cholesky",
           "cholesky_solve", "cholesky_inverse", "lu_solve", "triangular_solve", "lu", "orgqr", "solve", "lstsq",
           "eig", "symeig")


def install(module, tensor_class):
    """Adds the functions to `module` (ember) and the methods to Tensor."""
    for name, fn in FUNCTIONS.items():
        setattr(module, name, fn)
    for name in METHODS:
        setattr(tensor_class, name, FUNCTIONS[name])
