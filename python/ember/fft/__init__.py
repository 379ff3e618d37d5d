"""Discrete Fourier transforms, as torch.fft: every function is a thin layer
(argument checks, signal resizing, the norm mode) over the three transform
primitives ember._C._fft_c2c, _fft_r2c and _fft_c2r (FFTW on the CPU), which
carry the gradients."""

from .. import _C
from ..functional import _into
from ..amp._python_ops import autocast_op

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORM_NONE, _NORM_BY_ROOT_N, _NORM_BY_N = 0, 1, 2


def _norm_mode(norm, forward):
    """The primitive's normalization for a norm string of a forward (e^-2pi i)
    or inverse transform."""
    if norm is None or norm == "backward":
        return _NORM_NONE if forward else _NORM_BY_N
    if norm == "forward":
        return _NORM_BY_N if forward else _NORM_NONE
    if norm == "ortho":
        return _NORM_BY_ROOT_N
    raise ValueError(f'Invalid normalization mode: "{norm}"')


def _promote(name, x, require_complex=False):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    if x.dtype in (_C.float16, _C.bfloat16):
        raise RuntimeError(f"{name}: Unsupported dtype {'Half' if x.dtype == _C.float16 else 'BFloat16'} "
                           "(the CPU transforms take float32, float64 and complex inputs)")
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.get_default_dtype())
    if require_complex and not x.is_complex():
        x = x.to(_C.complex128 if x.dtype == _C.float64 else _C.complex64)
    return x


def _resize(x, dims, sizes):
    """x cut or zero-padded at the end of each dim in dims to sizes."""
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            pad = [0, 0] * (x.dim() - 1 - d) + [0, n - have]
            x = _C.constant_pad_nd(x, pad, 0)
    return x


def _check_n(name, n):
    if n is not None and n < 1:
        raise RuntimeError(f"{name}: Invalid number of data points ({n}) specified")


def _wrap(dim, ndim, name):
    if not -ndim <= dim < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim if ndim else 0


def _dims_and_sizes(name, x, s, dim):
    """The (dims, sizes) of an n-dim transform, as torch canonicalizes them."""
    if dim is not None and not isinstance(dim, (list, tuple)):
        dim = (dim,)
    if s is not None and not isinstance(s, (list, tuple)):
        s = (s,)
    if s is not None and dim is not None and len(s) != len(dim):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    if dim is None:
        dims = list(range(x.dim() - len(s), x.dim())) if s is not None else list(range(x.dim()))
    else:
        dims = [_wrap(d, x.dim(), name) for d in dim]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{name}: dims must be unique")
    if s is not None and len(s) > x.dim():
        raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.dim()} dimensions.")
    sizes = [x.shape[d] if s is None or s[i] == -1 else s[i] for i, d in enumerate(dims)]
    for n in sizes:
        _check_n(name, n)
    return dims, sizes


def _finish(result, out):
    if out is not None and out.dtype != result.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {result.dtype}, but got {out.dtype} instead")
    return _into(out, result)


# ---- complex-to-complex and real-to-complex ------------------------------------------


def _c2c_or_r2c(name, x, dims, sizes, norm, forward, out):
    x = _promote(name, x)
    if not dims:
        return _finish(x if x.is_complex() else x.to(_C.complex128 if x.dtype == _C.float64 else _C.complex64), out)
    x = _resize(x, dims, sizes)
    mode = _norm_mode(norm, forward)
    if x.is_complex():
        result = _C._fft_c2c(x, dims, mode, forward)
    else:  # the full spectrum of a real signal (conjugated for the inverse)
        result = _C._fft_r2c(x, dims, mode, False)
        if not forward:
            result = result.conj()
    return _finish(result, out)


@autocast_op("fft_fft")
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D discrete Fourier transform along ``dim`` (zero-padded or cut to ``n``)."""
    d = _wrap(dim, input.dim(), "fft")
    _check_n("fft", input.shape[d] if n is None else n)
    return _c2c_or_r2c("fft", input, [d], [input.shape[d] if n is None else n], norm, True, out)


@autocast_op("fft_ifft")
def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D inverse discrete Fourier transform along ``dim``."""
    d = _wrap(dim, input.dim(), "ifft")
    _check_n("ifft", input.shape[d] if n is None else n)
    return _c2c_or_r2c("ifft", input, [d], [input.shape[d] if n is None else n], norm, False, out)


@autocast_op("fft_fftn")
def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional discrete Fourier transform over ``dim`` (all dims by default)."""
    dims, sizes = _dims_and_sizes("fftn", _promote("fftn", input), s, dim)
    return _c2c_or_r2c("fftn", input, dims, sizes, norm, True, out)


@autocast_op("fft_ifftn")
def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional inverse discrete Fourier transform."""
    dims, sizes = _dims_and_sizes("ifftn", _promote("ifftn", input), s, dim)
    return _c2c_or_r2c("ifftn", input, dims, sizes, norm, False, out)


@autocast_op("fft_fft2")
def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D discrete Fourier transform over the last two dims."""
    return fftn(input, s, dim, norm, out=out)


@autocast_op("fft_ifft2")
def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D inverse discrete Fourier transform."""
    return ifftn(input, s, dim, norm, out=out)


# ---- real input, half spectrum -------------------------------------------------------


def _r2c_half(name, x, dims, sizes, norm, forward, out):
    x = _promote(name, x)
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {str(x.dtype).replace('ember.', '')}")
    x = _resize(x, dims, sizes)
    result = _C._fft_r2c(x, dims, _norm_mode(norm, forward), True)
    if not forward:  # the inverse transform of a real signal is the conjugate of the forward one
        result = result.conj()
    return _finish(result, out)


@autocast_op("fft_rfft")
def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D Fourier transform of a real signal: the n // 2 + 1 non-negative frequencies."""
    d = _wrap(dim, input.dim(), "rfft")
    _check_n("rfft", input.shape[d] if n is None else n)
    return _r2c_half("rfft", input, [d], [input.shape[d] if n is None else n], norm, True, out)


@autocast_op("fft_rfftn")
def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional Fourier transform of a real signal (half of the last transformed dim)."""
    dims, sizes = _dims_and_sizes("rfftn", _promote("rfftn", input), s, dim)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    return _r2c_half("rfftn", input, dims, sizes, norm, True, out)


@autocast_op("fft_rfft2")
def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D Fourier transform of a real signal."""
    return rfftn(input, s, dim, norm, out=out)


@autocast_op("fft_ihfft")
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of hfft: the n // 2 + 1 non-negative frequencies of a real signal's inverse transform."""
    d = _wrap(dim, input.dim(), "ihfft")
    _check_n("ihfft", input.shape[d] if n is None else n)
    return _r2c_half("ihfft", input, [d], [input.shape[d] if n is None else n], norm, False, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional inverse of hfftn."""
    dims, sizes = _dims_and_sizes("ihfftn", _promote("ihfftn", input), s, dim)
    if not dims:
        raise RuntimeError("ihfftn must transform at least one axis")
    return _r2c_half("ihfftn", input, dims, sizes, norm, False, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D inverse of hfft2."""
    return ihfftn(input, s, dim, norm, out=out)


# ---- Hermitian half spectrum to real -------------------------------------------------


def _c2r(name, x, dims, sizes, last_size, norm, forward, out):
    x = _promote(name, x, require_complex=True)
    x = _resize(x, dims, sizes[:-1] + [last_size // 2 + 1])
    if forward:  # a real result: FFT(X) = conj(FFT(X)) = the unnormalized inverse of conj(X)
        x = x.conj()
    return _finish(_C._fft_c2r(x, dims, _norm_mode(norm, forward), last_size), out)


def _c2r_dims(name, input, s, dim):
    x = _promote(name, input, require_complex=True)
    dims, sizes = _dims_and_sizes(name, x, s, dim)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    given_last = s is not None and (s if isinstance(s, (list, tuple)) else (s,))[-1] != -1
    last = sizes[-1] if given_last else 2 * (x.shape[dims[-1]] - 1)
    _check_n(name, last)
    return dims, sizes, last


@autocast_op("fft_irfft")
def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of rfft: a real signal of length n (2 * (m - 1) by default) from m frequencies."""
    _check_n("irfft", n)
    d = _wrap(dim, input.dim(), "irfft")
    last = 2 * (input.shape[d] - 1) if n is None else n
    _check_n("irfft", last)
    return _c2r("irfft", input, [d], [last], last, norm, False, out)


@autocast_op("fft_irfftn")
def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional inverse of rfftn."""
    dims, sizes, last = _c2r_dims("irfftn", input, s, dim)
    return _c2r("irfftn", input, dims, sizes, last, norm, False, out)


@autocast_op("fft_irfft2")
def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D inverse of rfft2."""
    return irfftn(input, s, dim, norm, out=out)


@autocast_op("fft_hfft")
def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: a real result."""
    _check_n("hfft", n)
    d = _wrap(dim, input.dim(), "hfft")
    last = 2 * (input.shape[d] - 1) if n is None else n
    _check_n("hfft", last)
    return _c2r("hfft", input, [d], [last], last, norm, True, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional Fourier transform of a Hermitian-symmetric signal (half of the last dim given)."""
    dims, sizes, last = _c2r_dims("hfftn", input, s, dim)
    return _c2r("hfftn", input, dims, sizes, last, norm, True, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D Fourier transform of a Hermitian-symmetric signal."""
    return hfftn(input, s, dim, norm, out=out)


# ---- frequencies and shifts ----------------------------------------------------------


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point transform: [0, 1, ..., -2, -1] / (d * n)."""
    result = _C.arange(n, dtype=dtype or _C.get_default_dtype(), device=device)
    result = _C.cat([result[:(n + 1) // 2], result[(n + 1) // 2:] - n]) * (1.0 / (d * n))
    return _finish(result.requires_grad_(requires_grad), out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of an n-point real transform: [0, ..., n // 2] / (d * n)."""
    result = _C.arange(n // 2 + 1, dtype=dtype or _C.get_default_dtype(), device=device) * (1.0 / (d * n))
    return _finish(result.requires_grad_(requires_grad), out)


def _shift(x, dim, amount):
    if dim is None:
        dim = tuple(range(x.dim()))
    elif not isinstance(dim, (list, tuple)):
        dim = (dim,)
    return _C.roll(x, [amount(x.shape[d]) for d in dim], list(dim))


def fftshift(input, dim=None):
    """Moves the zero frequency to the middle of each dim in ``dim`` (all by default)."""
    return _shift(input, dim, lambda n: n // 2)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shift(input, dim, lambda n: (n + 1) // 2)

