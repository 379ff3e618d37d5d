"""Linear algebra, as torch.linalg. The decompositions and solvers are
LAPACK calls in C++ (ember._C.linalg_*, with their gradients); the rest is
written here from them: norms, inverses, pseudo-inverses, ranks, least
squares, matrix functions and the tensor forms."""

import math
from collections import namedtuple

from .. import _C
from ..functional import _into
from ..amp._python_ops import autocast_op

# A factorization or solve failed on its input (singular, not positive-definite, no convergence).
LinAlgError = _C._LinAlgError

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul",
           "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet",
           "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
           "vector_norm"]

CholeskyResult = namedtuple("linalg_cholesky_ex", ["L", "info"])
InvResult = namedtuple("linalg_inv_ex", ["inverse", "info"])
SolveResult = namedtuple("linalg_solve_ex", ["result", "info"])
LUFactorResult = namedtuple("linalg_lu_factor", ["LU", "pivots"])
LUFactorExResult = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
LUResult = namedtuple("linalg_lu", ["P", "L", "U"])
LDLFactorResult = namedtuple("linalg_ldl_factor", ["LD", "pivots"])
LDLFactorExResult = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
SlogdetResult = namedtuple("linalg_slogdet", ["sign", "logabsdet"])
EighResult = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
EigResult = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("linalg_svd", ["U", "S", "Vh"])
QRResult = namedtuple("linalg_qr", ["Q", "R"])
LstsqResult = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def _batch_prefix(A, index):
    return f"(Batch element {index}): " if A.dim() > 2 else ""


def _first_failure(info):
    flat = info.reshape(-1)
    for i in range(flat.numel()):
        if int(flat[i]) > 0:
            return i, int(flat[i])
    return None


def _eye_like(A):
    n = A.shape[-1]
    return _C.eye(n, dtype=A.dtype, device=A.device).expand(A.shape)


# torch's ScalarType names, as its messages spell dtypes.
_SCALAR_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                      "int64": "Long", "float16": "Half", "bfloat16": "BFloat16"}


def _check_float(name, A):
    if not isinstance(A, _C.Tensor):
        raise TypeError(f"{name}(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}")
    if not (A.is_floating_point() or A.is_complex()) or A.dtype in (_C.float16, _C.bfloat16):
        dtype = str(A.dtype).replace("ember.", "")
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_SCALAR_TYPE_NAMES.get(dtype, dtype)}")


def _check_matrix(name, A, square=False):
    _check_float(name, A)
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


# ---- factorizations -----------------------------------------------------------------

@autocast_op("linalg_cholesky")
def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor L (A = L L^H) of Hermitian positive-definite matrices; U = L^H with upper=True."""
    return _into(out, _C.linalg_cholesky_ex(A, upper=upper, check_errors=True)[0])


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """cholesky without raising: info > 0 names the order of the first minor that is not positive-definite."""
    return _into(out, CholeskyResult(*_C.linalg_cholesky_ex(A, upper=upper, check_errors=check_errors)))


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """The LU factorization with partial pivoting (LAPACK's compact form) and per-matrix info."""
    return _into(out, LUFactorExResult(*_C.linalg_lu_factor_ex(A, pivot=pivot, check_errors=check_errors)))


def lu_factor(A, *, pivot=True, out=None):
    """The LU factorization with partial pivoting: (LU, pivots), as lu_solve takes them."""
    LU, pivots, _ = _C.linalg_lu_factor_ex(A, pivot=pivot, check_errors=True)
    return _into(out, LUFactorResult(LU, pivots))


def _permutation(pivots, m, dtype, device):
    """P with A = P L U from LAPACK's 1-based row swaps (applied in order, all batches at once)."""
    batch = tuple(pivots.shape[:-1])
    count = math.prod(batch)
    perm = _C.arange(m, device=device).expand(count, m).clone()
    swaps = pivots.reshape(count, pivots.shape[-1]).to(_C.int64) - 1
    for i in range(swaps.shape[1]):
        j = swaps[:, i:i + 1]
        row_i = perm[:, i:i + 1].clone()
        perm[:, i:i + 1] = perm.gather(1, j)
        perm.scatter_(1, j, row_i)
    eye = _C.eye(m, dtype=dtype, device=device)
    # row i of P^T is e_{perm[i]}: P = (one-hot rows)^T
    return eye[perm.reshape(*batch, m)].mT


def lu(A, *, pivot=True, out=None):
    """P, L, U with A = P L U (L unit lower triangular m x k, U upper triangular k x n)."""
    LU, pivots, _ = _C.linalg_lu_factor_ex(A, pivot=pivot, check_errors=False)
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + _C.eye(m, k, dtype=A.dtype, device=A.device)
    U = LU[..., :k, :].triu()
    P = _permutation(pivots, m, A.dtype, A.device)
    return _into(out, LUResult(P, L, U))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solves A X = B (or X A = B, or with A^H) from A's lu_factor."""
    return _into(out, _C.linalg_lu_solve(LU, pivots, B, left=left, adjoint=adjoint))


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """The Bunch-Kaufman LDL factorization of symmetric (or Hermitian) matrices, from their lower triangle,
    in LAPACK's compact form, with per-matrix info (> 0: D has an exact zero there)."""
    return _into(out, LDLFactorExResult(*_C.linalg_ldl_factor_ex(A, hermitian=hermitian,
                                                                 check_errors=check_errors)))


def ldl_factor(A, *, hermitian=False, out=None):
    """The LDL factorization (LD, pivots), as ldl_solve takes them."""
    LD, pivots, _ = _C.linalg_ldl_factor_ex(A, hermitian=hermitian, check_errors=True)
    return _into(out, LDLFactorResult(LD, pivots))


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """Solves A X = B from A's ldl_factor."""
    return _into(out, _C.linalg_ldl_solve(LD, pivots, B, hermitian=hermitian))


@autocast_op("linalg_qr")
def qr(A, mode="reduced", *, out=None):
    """Q, R with A = Q R; mode 'reduced' (k columns), 'complete' (square Q) or 'r' (R only)."""
    return _into(out, QRResult(*_C.linalg_qr(A, mode)))


@autocast_op("linalg_eigh")
def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of Hermitian matrices (one triangle read)."""
    _check_matrix("linalg.eigh", A, square=True)
    return _into(out, EighResult(*_C._linalg_eigh(A, UPLO, True)))


@autocast_op("linalg_eigvalsh")
def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues of Hermitian matrices, ascending."""
    _check_matrix("linalg.eigvalsh", A, square=True)
    return _into(out, _C._linalg_eigh(A, UPLO, A.requires_grad)[0])


@autocast_op("linalg_eig")
def eig(A, *, out=None):
    """Eigenvalues and eigenvectors (complex, unit norm) of square matrices."""
    return _into(out, EigResult(*_C.linalg_eig(A)))


@autocast_op("linalg_eigvals")
def eigvals(A, *, out=None):
    """The (complex) eigenvalues of square matrices."""
    return _into(out, _C.linalg_eig(A)[0])


@autocast_op("linalg_svd")
def svd(A, full_matrices=True, *, driver=None, out=None):
    """U, S, Vh with A = U diag(S) Vh, singular values descending."""
    _check_driver(driver)
    return _into(out, SVDResult(*_C._linalg_svd(A, full_matrices, True)))


@autocast_op("linalg_svdvals")
def svdvals(A, *, driver=None, out=None):
    """The singular values, descending."""
    _check_driver(driver)
    # Gradients need the singular vectors.
    return _into(out, _C._linalg_svd(A, False, A.requires_grad)[1])


def _check_driver(driver):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")


# ---- solving and inverting ----------------------------------------------------------

def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """solve without raising on singular matrices: info > 0 marks them."""
    return _into(out, SolveResult(*_C.linalg_solve_ex(A, B, left=left, check_errors=check_errors)))


@autocast_op("linalg_solve")
def solve(A, B, *, left=True, out=None):
    """X with A X = B (X A = B with left=False) for square invertible A; B a matrix or a vector (batched)."""
    return _into(out, _C.linalg_solve_ex(A, B, left=left, check_errors=True)[0])


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B for triangular A (only that triangle is read)."""
    return _into(out, _C.linalg_solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular))


@autocast_op("linalg_inv_ex")
def inv_ex(A, *, check_errors=False, out=None):
    """inv without raising: info > 0 marks singular matrices."""
    _check_matrix("linalg.inv", A, square=True)
    result, info = _C.linalg_solve_ex(A, _eye_like(A), check_errors=False)
    if check_errors:
        _raise_singular_inverse(A, info)
    return _into(out, InvResult(result, info))


def _raise_singular_inverse(A, info):
    failed = _first_failure(info)
    if failed is not None:
        raise LinAlgError(f"linalg.inv: {_batch_prefix(A, failed[0])}The diagonal element {failed[1]} is zero, the "
                           "inversion could not be completed because the input matrix is singular.")


@autocast_op("linalg_inv")
def inv(A, *, out=None):
    """The inverse of square invertible matrices."""
    _check_matrix("linalg.inv", A, square=True)
    result, info = _C.linalg_solve_ex(A, _eye_like(A), check_errors=False)
    _raise_singular_inverse(A, info)
    return _into(out, result)


def det(A, *, out=None):
    """The determinant of square matrices."""
    return _into(out, _C.linalg_det(A))


def slogdet(A, *, out=None):
    """sign and log|det| of square matrices (sign 0 and logabsdet -inf when singular)."""
    return _into(out, SlogdetResult(*_C.linalg_slogdet(A)))


def _tolerance(S, atol, rtol, m, n):
    """The singular-value cutoff of pinv and matrix_rank: max(atol, rtol * max S)."""
    if rtol is None:
        rtol = 0.0 if (atol is not None and (not isinstance(atol, (int, float)) or atol > 0)) else \
            _C.finfo(S.dtype).eps * max(m, n)
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else _C.zeros(tuple(S.shape[:-1]) + (1,), dtype=S.dtype)
    tol = _as_tensor(rtol, S) * smax
    if atol is not None:
        tol = _C.maximum(_as_tensor(atol, S), tol)
    return tol


def _as_tensor(x, like):
    if isinstance(x, _C.Tensor):
        return x.to(like.dtype).unsqueeze(-1) if x.dim() else x.to(like.dtype)
    return _C.tensor(float(x), dtype=like.dtype, device=like.device)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse, singular values below max(atol, rtol * max S) dropped."""
    _check_matrix("linalg.pinv", A)
    if hermitian:
        w, V = _C._linalg_eigh(A, "L", True)
        tol = _tolerance(w.abs(), atol, rtol, A.shape[-2], A.shape[-1])
        w_inv = _C.where(w.abs() > tol, 1 / w, _C.zeros_like(w))
        return _into(out, _C.matmul(V * w_inv.to(V.dtype).unsqueeze(-2), V.mH))
    U, S, Vh = _C._linalg_svd(A, False, True)
    tol = _tolerance(S, atol, rtol, A.shape[-2], A.shape[-1])
    S_inv = _C.where(S > tol, 1 / S, _C.zeros_like(S))
    return _into(out, _C.matmul(Vh.mH * S_inv.to(A.dtype).unsqueeze(-2), U.mH))


@autocast_op(lambda A, *a, atol=None, rtol=None, tol=None, **k: "linalg_matrix_rank.tol_tensor" if tol is not None else "linalg_matrix_rank.atol_rtol_tensor" if isinstance(atol, _C.Tensor) or isinstance(rtol, _C.Tensor) else "linalg_matrix_rank.atol_rtol_float" if atol is not None or rtol is not None else "linalg_matrix_rank",
              names=("linalg_matrix_rank", "linalg_matrix_rank.atol_rtol_float", "linalg_matrix_rank.atol_rtol_tensor",
                     "linalg_matrix_rank.tol_tensor"))
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """The number of singular values above max(atol, rtol * max S)."""
    _check_matrix("linalg.matrix_rank", A)
    if tol is not None:
        atol, rtol = tol, 0.0
    S = _C._linalg_eigh(A, "L", False)[0].abs() if hermitian else _C._linalg_svd(A, False, False)[1]
    cutoff = _tolerance(S, atol, rtol, A.shape[-2], A.shape[-1])
    return _into(out, (S > cutoff).sum(-1))


@autocast_op("linalg_lstsq")
def lstsq(A, B, rcond=None, *, driver=None, out=None):
    """The least-squares solution of A X = B (minimum norm), with residuals, rank and singular values as
    torch's CPU drivers report them (default 'gelsy': rank; 'gelsd'/'gelss': singular values too)."""
    _check_matrix("linalg.lstsq", A)
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype} and other's dtype {B.dtype}")
    vector = B.dim() == A.dim() - 1
    rhs = B.unsqueeze(-1) if vector else B
    if rhs.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2), but got "
                           f"{A.shape[-2]} and {rhs.shape[-2]}")
    driver = driver or "gelsy"
    m, n = A.shape[-2], A.shape[-1]
    U, S, Vh = _C._linalg_svd(A, False, True)
    if rcond is None:
        rcond = _C.finfo(S.dtype).eps * max(m, n)
    cutoff = _tolerance(S, None, rcond, m, n) if driver != "gels" else _C.zeros(1, dtype=S.dtype)
    S_inv = _C.where(S > cutoff, 1 / S, _C.zeros_like(S))
    X = _C.matmul(Vh.mH * S_inv.to(A.dtype).unsqueeze(-2), _C.matmul(U.mH, rhs))
    rank_t = (S > cutoff).sum(-1)
    empty = _C.empty(0, dtype=S.dtype, device=A.device)
    residuals = empty
    if m > n and bool((rank_t == n).all()) and driver != "gelsy":
        residuals = (_C.matmul(A, X) - rhs).abs().pow(2).sum(-2)
        if vector:
            residuals = residuals.squeeze(-1)
    rank = rank_t if driver != "gels" else _C.empty(0, dtype=_C.int64, device=A.device)
    values = S if driver in ("gelsd", "gelss") else empty
    return _into(out, LstsqResult(X.squeeze(-1) if vector else X, residuals, rank, values))


# ---- norms and conditioning ---------------------------------------------------------

@autocast_op("linalg_vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The ord-norm of x's entries over dim (all of them by default): (sum |x|^ord)^(1/ord), max |x| for inf,
    min |x| for -inf, the count of nonzeros for 0."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"linalg.vector_norm(): argument 'x' (position 1) must be Tensor, not {type(x).__name__}")
    if not (x.is_floating_point() or x.is_complex()):
        dtype = str(x.dtype).replace("ember.", "")
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_SCALAR_TYPE_NAMES.get(dtype, dtype)}")
    if dtype is not None:
        x = x.to(dtype)
    if isinstance(dim, int):
        dim = [dim]
    if dim is None or len(dim) == 0:
        if x.dim() == 0:
            x = x.reshape(1)
        if ord in (math.inf, -math.inf) and x.numel() == 0:
            raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
                               "operation does not have an identity")
        result = _C.norm(x.reshape(-1), ord, [0], False)
        if keepdim:
            result = result.reshape((1,) * x.dim())
        return _into(out, result)
    return _into(out, _C.norm(x, ord, list(dim), keepdim))


_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


@autocast_op("linalg_matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Frobenius, nuclear, max/min row or column sum (inf/1) and spectral (2/-2) norms of matrices."""
    _check_float("linalg.matrix_norm", A)
    if A.dim() < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        result = vector_norm(A, 2, (d0, d1), keepdim)
    elif ord in ("nuc", 2, -2):
        moved = A.permute([d for d in range(A.dim()) if d not in (d0, d1)] + [d0, d1])
        S = _C._linalg_svd(moved, False, A.requires_grad)[1]
        result = S.sum(-1) if ord == "nuc" else S.amax(-1) if ord == 2 else S.amin(-1)
        if keepdim:
            result = result.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    else:
        rows = ord in (math.inf, -math.inf)  # inf: max row sum (sum over columns)
        sums = A.abs().sum(d1 if rows else d0, keepdim=True)
        reduce_dim = d0 if rows else d1
        result = sums.amax(reduce_dim, keepdim=True) if ord > 0 else sums.amin(reduce_dim, keepdim=True)
        if not keepdim:
            result = result.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    return _into(out, result)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """A vector norm (1-D, or over one dim) or a matrix norm (2-D, or over two dims), as torch.linalg.norm."""
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or (dim is None and ord is not None and A.dim() == 2):
        if dim is None:
            if A.dim() != 2:
                raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                                   f"Got {A.dim()}D.")
            dim = (-2, -1)
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
    if dim is None and ord is not None and A.dim() != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.dim()}D.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


@autocast_op(lambda A, p=None, **k: "linalg_cond.p_str" if isinstance(p, str) else "linalg_cond",
              names=("linalg_cond", "linalg_cond.p_str"))
def cond(A, p=None, *, out=None):
    """The condition number in norm p (the 2-norm's: max S / min S)."""
    _check_matrix("linalg.cond", A)
    if p in (None, 2, -2):
        S = _C._linalg_svd(A, False, A.requires_grad)[1]
        ratio = S.amax(-1) / S.amin(-1)
        return _into(out, ratio if p in (None, 2) else 1 / ratio)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    inverse, info = _C.linalg_solve_ex(A, _eye_like(A), check_errors=False)
    result = matrix_norm(A, p) * matrix_norm(inverse, p)
    singular = info > 0
    if bool(singular.any()):
        result = _C.where(singular, _C.full_like(result, math.inf), result)
    return _into(out, result)


# ---- matrix functions and products --------------------------------------------------

def matrix_power(A, n, *, out=None):
    """A^n by repeated squaring (the inverse's power for negative n, the identity for 0)."""
    _check_square_any("linalg.matrix_power", A)
    if n == 0:
        return _into(out, _eye_like(A).clone())
    if n < 0:
        A, n = inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else _C.matmul(result, base)
        n >>= 1
        if n:
            base = _C.matmul(base, base)
    return _into(out, result)


def _check_square_any(name, A):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.dim() >= 2 else A.shape} by "
                           f"{A.shape[-1] if A.dim() else ''} matrices")


def matrix_exp(A):
    """e^A by scaling and squaring: A / 2^s, a degree-18 Taylor series (Horner), then s squarings."""
    _check_matrix("linalg.matrix_exp", A, square=True)
    if A.numel() == 0:
        return A.clone()
    norm1 = float(A.detach().abs().sum(-2).amax()) if A.numel() else 0.0
    if not math.isfinite(norm1):
        return A * float("nan")  # an infinite or NaN entry spreads through every entry of e^A
    s = max(0, int(math.ceil(math.log2(norm1))) + 1) if norm1 > 0.5 else 0
    # 2^-s in two float factors: one underflows to 0 past s = 1074, which norms near the float64 limit reach.
    scaled = A * (2.0 ** -(s // 2)) * (2.0 ** -(s - s // 2))
    eye = _eye_like(A)
    result = eye
    for k in range(18, 0, -1):
        result = eye + _C.matmul(scaled, result) / k
    for _ in range(s):
        result = _C.matmul(result, result)
    return result


@autocast_op("linalg_multi_dot")
def multi_dot(tensors, *, out=None):
    """The product of matrices (the first and last may be vectors), left to right."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = list(tensors)
    if first:
        mats[0] = mats[0].unsqueeze(0)
    if last:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i, t in enumerate(mats):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    result = mats[0]
    for t in mats[1:]:
        result = _C.mm(result, t)
    if first:
        result = result.squeeze(0)
    if last:
        result = result.squeeze(-1)
    return _into(out, result)


@autocast_op("linalg_householder_product")
def householder_product(A, tau, *, out=None):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i below A's diagonal (unit top)."""
    _check_matrix("linalg.householder_product", A)
    m, n = A.shape[-2], A.shape[-1]
    if n > m:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    k = tau.shape[-1]
    if k > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    Q = _C.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)
    for i in range(k - 1, -1, -1):
        v = _C.cat([_C.zeros(*A.shape[:-2], i, dtype=A.dtype, device=A.device),
                    _C.ones(*A.shape[:-2], 1, dtype=A.dtype, device=A.device), A[..., i + 1:, i]], -1)
        t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
        Q = Q - t * _C.matmul(v.unsqueeze(-1), _C.matmul(v.conj().unsqueeze(-2), Q))
    return _into(out, Q)


@autocast_op("linalg_vecdot")
def vecdot(x, y, *, dim=-1, out=None):
    """sum(conj(x) * y) over dim, broadcasting."""
    return _into(out, (x.conj() * y).sum(dim))


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along dim, broadcasting."""
    return _into(out, _C.cross(input, other, dim))


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """A view of the diagonals of the matrices in A."""
    return A.diagonal(offset, dim1, dim2)


def matmul(input, other, *, out=None):
    """The matrix product (torch.matmul)."""
    return _into(out, _C.matmul(input, other))


def vander(x, *, N=None):
    """The Vandermonde matrix: powers x^0 ... x^(N-1) along a new last dim."""
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension.")
    n = x.shape[-1] if N is None else N
    if n < 1:
        raise RuntimeError(f"linalg.vander: N must be greater than 1.")
    return x.unsqueeze(-1) ** _C.arange(n, device=x.device)


@autocast_op("linalg_tensorinv")
def tensorinv(A, ind=2, *, out=None):
    """The inverse with respect to tensordot over the first ind dims."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows = math.prod(A.shape[:ind])
    cols = math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    result = inv(A.reshape(rows, cols)).reshape(*A.shape[ind:], *A.shape[:ind])
    return _into(out, result)


@autocast_op("linalg_tensorsolve")
def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        A = A.permute([d for d in range(A.dim()) if d not in dims] + dims)
    rows = B.numel()
    solution_shape = A.shape[B.dim():]
    result = solve(A.reshape(rows, math.prod(solution_shape)), B.reshape(rows)).reshape(solution_shape)
    return _into(out, result)
