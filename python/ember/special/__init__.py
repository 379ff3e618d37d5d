"""Special functions, as torch.special: the error and gamma families,
Bessel and Airy functions, the normal distribution's CDF and its inverse,
zeta, the orthogonal polynomials, and the aliases torch.special gives to
functions that live elsewhere (expit for sigmoid, psi for digamma...).
Kernels: ember/aten/native/SpecialFunctions.cpp."""

from .. import _C
from ..functional import _into

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]


def _with_out(fn, name):
    def call(input, *, out=None):
        return fn(input) if out is None else fn(input, out=out)
    call.__name__ = name
    call.__doc__ = fn.__doc__
    return call


def _as_tensor(x, like):
    if isinstance(x, _C.Tensor):
        return x
    dtype = like.dtype if isinstance(like, _C.Tensor) and (like.is_floating_point()) else _C.get_default_dtype()
    return _C.tensor(x, dtype=dtype)


def _binary(fn, name):
    def call(input, other, *, out=None):
        a = _as_tensor(input, other)
        b = _as_tensor(other, a)
        return fn(a, b) if out is None else fn(a, b, out=out)
    call.__name__ = name
    call.__doc__ = fn.__doc__
    return call


# The same functions as the top level's, under torch.special's names.
erf, erfc, erfinv = _with_out(_C.erf, "erf"), _with_out(_C.erfc, "erfc"), _with_out(_C.erfinv, "erfinv")
exp2, expm1, log1p = _with_out(_C.exp2, "exp2"), _with_out(_C.expm1, "expm1"), _with_out(_C.log1p, "log1p")
expit = _with_out(_C.sigmoid, "expit")
sinc = _with_out(_C.sinc, "sinc")
gammaln = _with_out(_C.lgamma, "gammaln")
digamma = psi = _with_out(_C.digamma, "digamma")
i0 = _with_out(_C.i0, "i0")
i0e, i1, i1e = _with_out(_C.special_i0e, "i0e"), _with_out(_C.special_i1, "i1"), _with_out(_C.special_i1e, "i1e")
erfcx = _with_out(_C.special_erfcx, "erfcx")
ndtr, ndtri = _with_out(_C.special_ndtr, "ndtr"), _with_out(_C.special_ndtri, "ndtri")
log_ndtr = _with_out(_C.special_log_ndtr, "log_ndtr")
entr = _with_out(_C.special_entr, "entr")
bessel_j0, bessel_j1 = _with_out(_C.special_bessel_j0, "bessel_j0"), _with_out(_C.special_bessel_j1, "bessel_j1")
bessel_y0, bessel_y1 = _with_out(_C.special_bessel_y0, "bessel_y0"), _with_out(_C.special_bessel_y1, "bessel_y1")
modified_bessel_i0 = _with_out(_C.special_modified_bessel_i0, "modified_bessel_i0")
modified_bessel_i1 = _with_out(_C.special_modified_bessel_i1, "modified_bessel_i1")
modified_bessel_k0 = _with_out(_C.special_modified_bessel_k0, "modified_bessel_k0")
modified_bessel_k1 = _with_out(_C.special_modified_bessel_k1, "modified_bessel_k1")
scaled_modified_bessel_k0 = _with_out(_C.special_scaled_modified_bessel_k0, "scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _with_out(_C.special_scaled_modified_bessel_k1, "scaled_modified_bessel_k1")
spherical_bessel_j0 = _with_out(_C.special_spherical_bessel_j0, "spherical_bessel_j0")
airy_ai = _with_out(_C.special_airy_ai, "airy_ai")

xlogy = _binary(_C.xlogy, "xlogy")
xlog1py = _binary(_C.special_xlog1py, "xlog1py")
zeta = _binary(_C.special_zeta, "zeta")
gammainc = _binary(_C.igamma, "gammainc")
gammaincc = _binary(_C.igammac, "gammaincc")

chebyshev_polynomial_t = _binary(_C.special_chebyshev_polynomial_t, "chebyshev_polynomial_t")
chebyshev_polynomial_u = _binary(_C.special_chebyshev_polynomial_u, "chebyshev_polynomial_u")
chebyshev_polynomial_v = _binary(_C.special_chebyshev_polynomial_v, "chebyshev_polynomial_v")
chebyshev_polynomial_w = _binary(_C.special_chebyshev_polynomial_w, "chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _binary(_C.special_shifted_chebyshev_polynomial_t, "shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _binary(_C.special_shifted_chebyshev_polynomial_u, "shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _binary(_C.special_shifted_chebyshev_polynomial_v, "shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _binary(_C.special_shifted_chebyshev_polynomial_w, "shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _binary(_C.special_hermite_polynomial_h, "hermite_polynomial_h")
hermite_polynomial_he = _binary(_C.special_hermite_polynomial_he, "hermite_polynomial_he")
laguerre_polynomial_l = _binary(_C.special_laguerre_polynomial_l, "laguerre_polynomial_l")
legendre_polynomial_p = _binary(_C.special_legendre_polynomial_p, "legendre_polynomial_p")


def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma."""
    return _C.polygamma(n, input) if out is None else _C.polygamma(n, input, out=out)


def multigammaln(input, p, *, out=None):
    """The log of the multivariate gamma function of dimension p."""
    return _into(out, _C.mvlgamma(input, p))


def logit(input, eps=None, *, out=None):
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    return _C.logit(input, eps) if out is None else _C.logit(input, eps, out=out)


def round(input, decimals=0, *, out=None):
    """Round half to even (to `decimals` places)."""
    from .. import round as _round
    return _round(input, decimals=decimals, out=out) if out is not None else _round(input, decimals=decimals)


def softmax(input, dim, *, dtype=None):
    """exp(x) / sum exp(x) along dim."""
    return _C.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """x - logsumexp(x) along dim."""
    return _C.log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):
    """log sum exp(x) over dim, computed without overflow."""
    from .. import logsumexp as _logsumexp
    return _logsumexp(input, dim, keepdim) if out is None else _logsumexp(input, dim, keepdim, out=out)
