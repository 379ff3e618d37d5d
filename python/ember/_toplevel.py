"""torch's top-level names that are spellings of what Ember already has:
constants, asarray, typename, the *_copy forms of views, the losses torch
exposes with integer reductions, and small composites (combinations,
unravel_index, renorm, masked_scatter, gradient, ...). Each builds on
operators, so autograd and every device come with it."""

import builtins as _builtins
import itertools as _itertools
import math as _math

import ember as _e
from ember._tensor import inplace_by_copy
from ember.functional import _into
from ember.amp._python_ops import autocast_op

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None

__all__ = ["pi", "e", "inf", "nan", "newaxis"]


def _export(fn):
    __all__.append(fn.__name__)
    return fn


@_export
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor, sharing its memory where dtype and device allow (copy=True: always a copy,
    copy=False: never, an error where one is needed)."""
    if isinstance(obj, _e.Tensor):
        result = obj.to(device=device if device is not None else obj.device, dtype=dtype or obj.dtype)
        source = obj.data_ptr()
    else:
        result = _e.as_tensor(obj, dtype=dtype, device=device)
        source = getattr(obj, "__array_interface__", {}).get("data", (None,))[0]
    if copy is False and result.data_ptr() != source:
        raise ValueError("asarray(): can't satisfy copy=False: the data would have to be copied")
    if copy:
        result = result.clone()
    return result.requires_grad_() if requires_grad else result


@_export
def typename(obj):
    if isinstance(obj, _e.Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "")
    qual = getattr(type(obj), "__qualname__", type(obj).__name__)
    return qual if module in ("builtins", "") else f"{module}.{qual}"


@_export
def is_conj(input):
    return input.is_conj()


@_export
def is_neg(input):
    return input.is_neg()


@_export
def is_signed(input):
    return input.is_signed()


@_export
def is_inference(input):
    return _builtins.bool(getattr(input, "is_inference", lambda: False)())


@_export
def get_default_device():
    return _e.device("cpu")


@_export
def set_default_device(device):
    """Only the CPU is a default device Ember's factories know (others raise rather than be ignored)."""
    if device is not None and _e.device(device).type != "cpu":
        raise NotImplementedError(f"set_default_device({device!r}): Ember creates tensors on the CPU by default; pass "
                                  "device= to the factories instead")


@_export
def set_default_tensor_type(t):
    """The default dtype, named the pre-2.1 way: a legacy type (ember.DoubleTensor) or its name
    ('torch.DoubleTensor' as older scripts spell it)."""
    if isinstance(t, str):
        name = t.split(".", 1)[1] if t.startswith(("torch.", "ember.")) else t
        if name.startswith("cuda."):
            raise TypeError(f"type {t} not available: Ember's factories create tensors on the CPU by default; pass "
                            "device= to them instead")
        if not isinstance(getattr(_e, name, None), type) or not hasattr(getattr(_e, name), "dtype"):
            raise TypeError(f"invalid type: '{t}'")
        t = getattr(_e, name)
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _e.set_default_dtype(t.dtype)


_interop_threads = [1]
_warn_always = [False]


@_export
def get_num_interop_threads():
    return _interop_threads[0]


@_export
def set_num_interop_threads(n):
    """Recorded for get_num_interop_threads (Ember runs no inter-op pool)."""
    if n < 1:
        raise RuntimeError("Number of interop threads must be positive")
    _interop_threads[0] = n


@_export
def init_num_threads():
    pass


@_export
def set_warn_always(b):
    _warn_always[0] = _builtins.bool(b)


@_export
def is_warn_always_enabled():
    return _warn_always[0]


@_export
def set_flush_denormal(mode):
    """False: Ember does not change the CPU's denormal handling."""
    return False


# ---- the *_copy forms of views: the view's values in a new tensor ----------------------------------


def _copy_form(view_name):
    def copy(input, *args, out=None, **kwargs):
        result = getattr(input, view_name)(*args, **kwargs)
        copied = [t.clone(memory_format=_e.contiguous_format) for t in result] if isinstance(result, (list, tuple)) \
            else result.clone(memory_format=_e.contiguous_format)
        return copied if out is None else _into(out, copied)
    copy.__name__ = copy.__qualname__ = f"{view_name}_copy"
    copy.__doc__ = f"The values of input.{view_name}(...) in a new tensor (no view)."
    return copy


for _view in ("diagonal", "expand", "permute", "select", "squeeze", "t", "transpose", "unsqueeze", "view",
              "unfold", "narrow", "detach", "as_strided", "split", "split_with_sizes", "unbind", "view_as_real",
              "view_as_complex", "indices", "values"):
    globals()[f"{_view}_copy"] = _copy_form(_view)
    __all__.append(f"{_view}_copy")
alias_copy = _copy_form("view_as")
__all__.append("alias_copy")


@_export
def slice_copy(input, dim=0, start=None, end=None, step=1, *, out=None):
    index = [_builtins.slice(None)] * input.dim()
    index[dim] = _builtins.slice(start, end, step)
    result = input[tuple(index)].clone(memory_format=_e.contiguous_format)
    return _into(out, result)


unsafe_chunk = _e.chunk
unsafe_split = _e.split
unsafe_split_with_sizes = _e.split_with_sizes
trapz = _e.trapezoid
__all__ += ["unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "trapz"]


# ---- losses and normalizations as torch exposes them at the top level (reduction as an int) ---------

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(r):
    if r not in _REDUCTIONS:
        raise ValueError(f"{r} is not a valid value for reduction (0: none, 1: mean, 2: sum)")
    return _REDUCTIONS[r]


def _F():
    from ember.nn import functional
    return functional


@_export
@autocast_op("kl_div")
def kl_div(input, target, reduction=1, *, log_target=False):
    return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


@_export
@autocast_op("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                                 pos_weight=pos_weight)


@_export
@autocast_op("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


@_export
@autocast_op("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


@_export
@autocast_op("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


@_export
@autocast_op("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


@_export
@autocast_op("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=1):
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))


@_export
@autocast_op("ctc_loss.IntList")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
                         zero_infinity)


@_export
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


@_export
@autocast_op("rms_norm")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _F().rms_norm(input, normalized_shape, weight, eps)


@_export
def dropout_(input, p, train):
    return input.copy_(_e.dropout(input, p, train)) if train and p > 0 else input


@_export
def fill(input, value):
    return _e.full_like(input, value) if not isinstance(value, _e.Tensor) else value.expand_as(input).clone()


@_export
def fill_(input, value):
    return input.fill_(value)


@_export
def zero_(input):
    return input.zero_()


@_export
@autocast_op("index_put")
def index_put(input, indices, values, accumulate=False):
    return input.clone().index_put_(indices, values, accumulate)


# ---- small composites -------------------------------------------------------------------------


@_export
def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of a 1-D tensor's elements (itertools' order), one per row."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    pick = _itertools.combinations_with_replacement if with_replacement else _itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows or r == 0:
        return _e.empty(0, dtype=input.dtype, device=input.device) if r == 0 else \
            _e.empty(0, r, dtype=input.dtype, device=input.device)
    index = _e.tensor(rows, dtype=_e.int64, device=input.device)
    return input.index_select(0, index.reshape(-1)).reshape(len(rows), r)


@_export
def unravel_index(indices, shape):
    """The coordinates in a tensor of `shape` of flat indices (a tuple of tensors, one per dim)."""
    if not isinstance(indices, _e.Tensor):
        indices = _e.tensor(indices)
    if indices.is_floating_point() or indices.is_complex() or indices.dtype == _e.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, _builtins.int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    coords, rest = [], indices.to(_e.int64)
    for size in reversed(shape):
        coords.append(_e.remainder(rest, size))
        rest = _e.div(rest, size, rounding_mode="floor")
    return tuple(reversed(coords))


@_export
@autocast_op("chain_matmul")
def chain_matmul(*matrices, out=None):
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    result = matrices[0]
    for m in matrices[1:]:
        result = _e.mm(result, m)
    return _into(out, result)


@_export
@autocast_op("renorm")
def renorm(input, p, dim, maxnorm):
    """input with each slice along dim whose p-norm exceeds maxnorm scaled down to norm maxnorm."""
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    dim = dim % input.dim()
    others = [d for d in range(input.dim()) if d != dim]
    norms = _e.norm(input, p, others, keepdim=True)
    factor = _e.where(norms > maxnorm, maxnorm / (norms + 1e-7), _e.ones_like(norms))
    return input * factor


@_export
def ldexp(input, other, *, out=None):
    result = input * _e.pow(2.0, other)
    return _into(out, result)


@_export
def masked_scatter(input, mask, source):
    """input with the positions where mask holds filled, in order, by the first elements of source."""
    if mask.dtype != _e.bool:
        raise RuntimeError(f"masked_scatter_: expected BoolTensor for mask, got {mask.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got {input.dtype} and "
                           f"{source.dtype}")
    shape = _e.broadcast_shapes(input.shape, mask.shape)
    where = mask.expand(shape)
    count = _builtins.int(where.sum())
    if source.numel() < count:
        raise RuntimeError("masked_scatter: Number of elements of source < number of ones in mask")
    result = input.expand(shape).clone()
    result[where] = source.reshape(-1)[:count]
    return result


@_export
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Central differences of input along each dim (one-sided at the edges, to edge_order): a tuple with
    one tensor per dim. spacing: one number for all dims, one per dim, or the coordinates (1-D tensors)."""
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, _builtins.int) else list(dim)
    dims = [d % input.dim() for d in dims]
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2, got {edge_order}")
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a list of length "
                               f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got "
                               f"a list of length {len(spacing)}")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = input if input.is_floating_point() or input.is_complex() else input.to(_e.get_default_dtype())
    return tuple(_gradient_along(f, d, h, edge_order) for d, h in zip(dims, spacings))


def _gradient_along(f, dim, h, edge_order):
    n = f.shape[dim]

    def part(start, stop):
        return f.narrow(dim, start, stop - start)

    def along(t):  # a 1-D coefficient tensor laid along dim
        shape = [1] * f.dim()
        shape[dim] = -1
        return t.reshape(shape)

    if isinstance(h, _e.Tensor):
        x = h.to(f.dtype)
        if x.dim() != 1 or x.shape[0] != n:
            raise RuntimeError("torch.gradient expected each tensor to be on the same device and the same size as the "
                               "input along its dim")
        dx = x[1:] - x[:-1]
        hl, hu = dx[:-1], dx[1:]
        interior = (along(-hu / (hl * (hl + hu))) * part(0, n - 2) + along((hu - hl) / (hl * hu)) * part(1, n - 1)
                    + along(hl / (hu * (hl + hu))) * part(2, n))
        if edge_order == 1:
            first = (part(1, 2) - part(0, 1)) / dx[0]
            last = (part(n - 1, n) - part(n - 2, n - 1)) / dx[-1]
        else:
            a, b = dx[0], dx[1]
            first = (-(2 * a + b) / (a * (a + b)) * part(0, 1) + (a + b) / (a * b) * part(1, 2)
                     - a / (b * (a + b)) * part(2, 3))
            a, b = dx[-2], dx[-1]
            last = (b / (a * (a + b)) * part(n - 3, n - 2) - (a + b) / (a * b) * part(n - 2, n - 1)
                    + (2 * b + a) / (b * (a + b)) * part(n - 1, n))
    else:
        interior = (part(2, n) - part(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (part(1, 2) - part(0, 1)) / h
            last = (part(n - 1, n) - part(n - 2, n - 1)) / h
        else:
            first = (-3 * part(0, 1) + 4 * part(1, 2) - part(2, 3)) / (2 * h)
            last = (3 * part(n - 1, n) - 4 * part(n - 2, n - 1) + part(n - 3, n - 2)) / (2 * h)
    return _e.cat([first, interior, last], dim)


def _masked_scatter_(self, mask, source):
    return self.copy_(masked_scatter(self, mask, source))


_e.Tensor.masked_scatter = masked_scatter
_e.Tensor.masked_scatter_ = _masked_scatter_
_e.Tensor.renorm = renorm
_e.Tensor.renorm_ = lambda self, p, dim, maxnorm: self.copy_(renorm(self, p, dim, maxnorm))
_e.Tensor.ldexp = ldexp
_e.Tensor.index_put = index_put


def _elementwise_python(name, self, others, function):
    """Runs a Python function on every element (CPU, no autograd), as torch's apply_/map_."""
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    columns = [self.reshape(-1).tolist()] + [o.expand_as(self).reshape(-1).tolist() for o in others]
    values = [function(*v) for v in zip(*columns)]
    return self.copy_(_e.tensor(values, dtype=self.dtype).reshape(self.shape))


_e.Tensor.apply_ = lambda self, callable: _elementwise_python("apply_", self, [], callable)
_e.Tensor.map_ = lambda self, tensor, callable: _elementwise_python("map_", self, [tensor], callable)


@_export
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the memory of an object with the buffer protocol (bytes are copied first: they are
    read-only), count elements of dtype from byte offset (all that fit by default)."""
    import numpy as np

    if isinstance(buffer, bytes):
        buffer = bytearray(buffer)
    numpy_dtype = _e.empty(0, dtype=dtype).numpy().dtype if dtype != _e.bfloat16 else np.uint16
    length = memoryview(buffer).nbytes
    if offset < 0 or offset > length:
        raise ValueError(f"frombuffer: offset {offset} is outside the buffer of {length} bytes")
    available = (length - offset) // numpy_dtype.itemsize
    if count == 0 or (count < 0 and available == 0):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if count > available:
        raise ValueError(f"requested buffer length ({count} * {numpy_dtype.itemsize} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length ({length} bytes)")
    array = np.frombuffer(buffer, dtype=numpy_dtype, count=count, offset=offset)
    result = _e.from_numpy(array)
    if dtype == _e.bfloat16:
        result = result.view(_e.bfloat16)
    return result.requires_grad_() if requires_grad else result


# ---- Queries, in-place spellings and flags scripts touch ---------------------------------------


@_export
def is_anomaly_enabled():
    return _e.autograd.is_anomaly_enabled()


@_export
def is_anomaly_check_nan_enabled():
    return _e.autograd.is_anomaly_check_nan_enabled()


@_export
def set_anomaly_enabled(enabled, check_nan=True):
    _e.autograd.set_detect_anomaly(enabled, check_nan)


@_export
def get_device(input):
    return input.get_device()


@_export
def isreal(input):
    """True where the value is real (every element of a non-complex tensor; imaginary part 0 otherwise)."""
    return input.isreal()


@_export
def get_device_module(device=None):
    """The module of a device type (ember.cpu, ember.cuda, a registered backend's): that of ``device``, or of
    the current accelerator (ember.cpu without one)."""
    if device is None:
        current = _e.accelerator.current_accelerator()
        name = current.type if current is not None else "cpu"
    else:
        name = device.type if isinstance(device, _e.device) else _e.device(device).type
    module = getattr(_e, name, None)
    if module is None or not hasattr(module, "__name__"):
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'ember.{name}'.")
    return module


@_export
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialized tensor of ``size`` whose dimensions lie in memory in the order ``physical_layout``
    (outermost first)."""
    if sorted(physical_layout) != list(range(len(size))):
        raise RuntimeError(f"empty_permuted: physical_layout {list(physical_layout)} is not a permutation of the "
                           f"{len(size)} dimensions")
    physical = _e.empty([size[d] for d in physical_layout], dtype=dtype, device=device)
    inverse = [0] * len(size)
    for position, d in enumerate(physical_layout):
        inverse[d] = position
    return physical.permute(inverse).requires_grad_(requires_grad)


def _inplace_of(function, name):
    __all__.append(name)
    return inplace_by_copy(function, name)


i0_ = _inplace_of(lambda x: _e.special.i0(x), "i0_")
ldexp_ = _e.Tensor.ldexp_ = _inplace_of(ldexp, "ldexp_")
rrelu_ = _inplace_of(lambda x, *a, **k: _F().rrelu(x, *a, **k), "rrelu_")
alpha_dropout_ = _inplace_of(lambda x, p, train: _F().alpha_dropout(x, p, train), "alpha_dropout_")
feature_alpha_dropout_ = _inplace_of(lambda x, p, train: _F().feature_alpha_dropout(x, p, train),
                                     "feature_alpha_dropout_")


@_export
def detach_(input):
    return input.detach_()


@_export
def feature_dropout(input, p, train):
    """Dropout of whole channels (dimension 1; every dimension after it shares one draw), kept ones scaled
    by 1 / (1 - p)."""
    if not train or p == 0:
        return input
    if p == 1:
        return input * 0
    mask_shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    mask = _e.empty(mask_shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    return input * mask / (1 - p)


feature_dropout_ = _inplace_of(feature_dropout, "feature_dropout_")


@_export
@autocast_op("frobenius_norm")
def frobenius_norm(input, dim=(-2, -1), keepdim=False, *, out=None):
    return _e.linalg.vector_norm(input, 2, dim=dim, keepdim=keepdim, out=out)


@_export
@autocast_op("nuclear_norm")
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return _e.linalg.matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else dim, keepdim=keepdim, out=out)


# torch's deprecated capability flags.
has_lapack = True
has_spectral = True
has_mkl = _e.backends.mkl.is_available()
has_openmp = _e.backends.openmp.is_available()
__all__ += ["has_lapack", "has_spectral", "has_mkl", "has_openmp"]
