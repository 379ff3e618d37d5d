"""Python-level methods of ember.Tensor (the class itself is defined in C++)."""

from . import _C
from . import _storage
from . import _tensor_str

Tensor = _C.Tensor


def _repr(self):
    default_float = str(_C.get_default_dtype()).split(".")[-1]
    if self.is_sparse:
        return _sparse_repr(self, default_float)
    return _tensor_str.tensor_repr(self, default_float_dtype_name=default_float)


def _sparse_repr(self, default_float):
    # torch's form: the parts, then size, nnz and layout.
    pad = " " * len("tensor(")
    indices = _tensor_str.tensor_repr(self._indices(), prefix=pad + "indices=tensor(")[len(pad):]
    values = _tensor_str.tensor_repr(self._values(), default_float_dtype_name=default_float,
                                     prefix=pad + "values=tensor(")[len(pad):]
    return (f"tensor({indices},\n{pad}{values},\n{pad}size={tuple(self.shape)}, nnz={self._nnz()}, "
            f"layout=ember.sparse_coo)")


def _layout(self):
    from .sparse import _LAYOUTS
    return _LAYOUTS[self._layout_name]


Tensor.layout = property(_layout)
Tensor.to_sparse_coo = lambda self: self.to_sparse()


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self.shape[0]))


def _array(self, dtype=None, copy=None):
    import numpy as np

    array = self.numpy(force=True) if self.requires_grad else self.numpy()
    if dtype is not None and array.dtype != dtype:
        return array.astype(dtype)
    return array.copy() if copy else array


def _rebuild_tensor(array, dtype, requires_grad):
    return _C.tensor(array, dtype=dtype, requires_grad=requires_grad)


def _rebuild_meta_tensor(size, stride, dtype, requires_grad):
    return _C.empty_strided(size, stride, dtype=dtype, device="meta", requires_grad=requires_grad)


def _reduce(self):
    # Pickle through NumPy until ember.save brings the native format. Meta
    # tensors have no data to pickle, and NumPy has no bfloat16: those travel
    # as float32, which holds every bfloat16 exactly.
    if self.is_meta:
        return (_rebuild_meta_tensor, (tuple(self.shape), self.stride(), self.dtype, self.requires_grad))
    data = self.detach()
    if data.dtype == _C.bfloat16:
        data = data.float()
    return (_rebuild_tensor, (data.numpy(force=True), self.dtype, self.requires_grad))


def _cuda(self, device=None, non_blocking=False):
    """A copy on ``device`` (default: the current CUDA device), or self if already there."""
    if device is None:
        device = "cuda"
    elif isinstance(device, int):
        device = f"cuda:{device}"
    return self.to(device, non_blocking=non_blocking)


def _pin_memory(self, device=None):
    """Page-locked host memory speeds copies to an accelerator: with none
    there is nothing to pin for (torch's error), and Ember's CUDA backend
    has no pinned host allocator yet."""
    from . import accelerator

    if not accelerator.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    raise NotImplementedError("Tensor.pin_memory: pinned host memory is not supported by Ember yet")


Tensor.pin_memory = _pin_memory
Tensor.untyped_storage = _storage.untyped_storage
Tensor.storage = _storage.storage
Tensor.set_ = _storage.set_
Tensor.storage_type = _storage.storage_type
Tensor.is_pinned = lambda self, device=None: False


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """With no dtype, the legacy type name ('ember.FloatTensor', 'ember.cuda.LongTensor'); else a copy of
    the given dtype, or of a legacy type name's dtype and device."""
    if dtype is None:
        return "ember." + ("cuda." if self.is_cuda else "") + self.dtype._legacy_name
    if isinstance(dtype, type) and hasattr(dtype, "dtype") and hasattr(dtype, "is_cuda"):  # ember.FloatTensor
        dtype = f"ember.{'cuda.' if dtype.is_cuda else ''}{dtype.__name__}"
    if isinstance(dtype, str):
        module, _, name = dtype.rpartition(".")
        if module not in ("ember", "torch", "ember.cuda", "torch.cuda"):
            raise ValueError(f"invalid type: '{dtype}'")
        matches = [d for d in _C._all_dtypes if d._legacy_name == name]
        if not matches:
            raise ValueError(f"invalid type: '{dtype}'")
        device = "cuda" if module.endswith("cuda") else "cpu"
        return self.to(device, matches[0], non_blocking=non_blocking)
    return self.to(dtype, non_blocking=non_blocking)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    """A new tensor from ``data`` with this tensor's dtype and device unless given (a copy, as torch.tensor)."""
    import ember

    return ember.tensor(data, dtype=dtype if dtype is not None else self.dtype,
                        device=device if device is not None else self.device, requires_grad=requires_grad)


def _unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    from .functional import unique

    return unique(self, sorted, return_inverse, return_counts, dim)


Tensor.new_tensor = _new_tensor
def _unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    from .functional import unique_consecutive

    return unique_consecutive(self, return_inverse, return_counts, dim)


Tensor.unique = _unique
Tensor.unique_consecutive = _unique_consecutive
Tensor.__repr__ = _repr
Tensor.cuda = _cuda
Tensor.type = _type
Tensor.__str__ = _repr
Tensor.__iter__ = _iter
Tensor.__array__ = _array
Tensor.__array_priority__ = 1000
Tensor.__reduce__ = _reduce
Tensor.__format__ = lambda self, spec: self.item().__format__(spec) if self.dim() == 0 else object.__format__(self, spec)


# Python operators (+, ==, ~, ...) are C++ methods: python/src/operators.cpp.


# ---- Autograd ---------------------------------------------------------------------


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradient of this tensor into the leaves' ``.grad``."""
    from . import autograd

    autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _backward


# Conjugate transposes and small queries torch scripts use.
Tensor.H = property(lambda self: self.t().conj() if self.dim() == 2 else _bad_H(self))
Tensor.mH = property(lambda self: _C.adjoint(self))
Tensor.real = property(lambda self: _C.real(self), lambda self, value: _C.real(self).copy_(value),
                       doc="The real parts, as a writable view.")
Tensor.imag = property(lambda self: _C.imag(self), lambda self, value: _C.imag(self).copy_(value),
                       doc="The imaginary parts of a complex tensor, as a writable view.")
Tensor.get_device = lambda self: self.device.index if self.device.type != "cpu" else -1
Tensor.is_signed = lambda self: self.dtype not in (_C.bool, _C.uint8)


def _bad_H(self):
    raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")


# ---- In-place view methods: the geometry of the out-of-place view, given to self by as_strided_ ------


def _inplace_view(name):
    view_op = getattr(Tensor, name[:-1])

    def method(self, *args, **kwargs):
        view = view_op(self.detach(), *args, **kwargs)
        return self.as_strided_(view.shape, view.stride(), view.storage_offset())

    method.__name__ = name
    method.__doc__ = f"In-place version of :meth:`Tensor.{name[:-1]}`: this tensor takes the view's shape and strides."
    return method


for _name in ("transpose_", "t_", "squeeze_", "unsqueeze_", "swapaxes_", "swapdims_"):
    setattr(Tensor, _name, _inplace_view(_name))


# ---- Small queries and legacy spellings torch scripts use -------------------------------------


def _is_nonzero(self):
    if self.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with " +
                           ("no values" if self.numel() == 0 else "more than one value") + " is ambiguous")
    return bool(self.item() != 0)


def _new(self, *args, dtype=None, device=None):
    """Legacy constructor with this tensor's dtype and device: ``new()`` is empty, ``new(2, 3)`` and
    ``new(ember.Size([2, 3]))`` are uninitialized of that size, ``new([1, 2])`` holds that data."""
    import ember

    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else device
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0].to(device, dtype)
    if len(args) == 1 and not isinstance(args[0], (int, ember.Size)):
        return ember.tensor(args[0], dtype=dtype, device=device)
    size = tuple(args[0]) if len(args) == 1 and isinstance(args[0], ember.Size) else args
    return ember.empty(size if size else (0,), dtype=dtype, device=device)


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, **_):
    return _C.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                            device=self.device if device is None else device, requires_grad=requires_grad)


def _sum_to_size(self, *size):
    """The sum over the broadcast dimensions that make this tensor's shape from ``size``."""
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(t != 1 and t != s for t, s in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{', '.join(map(str, size))}}} is not expandable to size "
                           f"{{{', '.join(map(str, shape))}}}.")
    result = self.sum(tuple(range(lead))) if lead else self
    dims = tuple(d for d, (t, s) in enumerate(zip(size, shape[lead:])) if t == 1 and s != 1)
    return result.sum(dims, keepdim=True) if dims else result


def _fill_diagonal_(self, fill_value, wrap=False):
    """Writes ``fill_value`` on the main diagonal (all dimensions equal beyond 2-D). With ``wrap``, a
    tall matrix's diagonal starts again every ``columns + 1`` rows, as torch's."""
    import ember

    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    rows, cols = self.shape[0], self.shape[1]
    if self.dim() == 2 and wrap and rows > cols + 1:
        flat = ember.arange(0, rows * cols, cols + 1)
        index = (flat // cols, flat % cols)
    else:
        steps = ember.arange(min(self.shape))
        index = (steps,) * self.dim()
    return self.index_put_(index, ember.tensor(fill_value, dtype=self.dtype))


def _dim_order(self, *, ambiguity_check=False):
    """The dimensions from outermost to innermost in memory (largest stride first)."""
    strides = self.stride()
    return tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))


def _nonzero_static(self, *, size, fill_value=-1):
    """``nonzero()`` cut or padded with ``fill_value`` to exactly ``size`` rows."""
    import ember

    found = self.nonzero()[:size]
    if found.shape[0] == size:
        return found
    pad = ember.full((size - found.shape[0], self.dim()), fill_value, dtype=found.dtype)
    return ember.cat([found, pad])


def _is_set_to(self, other):
    return (self.untyped_storage().data_ptr() == other.untyped_storage().data_ptr() and
            self.storage_offset() == other.storage_offset() and self.shape == other.shape and
            self.stride() == other.stride() and self.dtype == other.dtype)


def _record_stream(self, stream):
    raise RuntimeError(f"record_stream: expected a tensor on an accelerator, but it is on {self.device}")


def inplace_by_copy(function, name):
    """``name``(input, ...): function(input, ...) written back into input (torch's in-place spellings of
    ops without an in-place kernel; Tensor methods and ember.* functions alike)."""
    def inplace(input, *args, **kwargs):
        return input.copy_(function(input, *args, **kwargs))

    inplace.__name__ = name
    inplace.__doc__ = f"In-place version of {name[:-1]}."
    return inplace


def _functional(name):
    def method(self, *args, **kwargs):
        from .nn import functional

        return getattr(functional, name)(self, *args, **kwargs)

    method.__name__ = name
    return method


Tensor.is_nonzero = _is_nonzero
Tensor.is_same_size = lambda self, other: self.shape == other.shape
Tensor.new = _new
Tensor.new_empty_strided = _new_empty_strided
Tensor.sum_to_size = _sum_to_size
Tensor.fill_diagonal_ = _fill_diagonal_
Tensor.dim_order = _dim_order
Tensor.nonzero_static = _nonzero_static
Tensor.is_set_to = _is_set_to
Tensor.record_stream = _record_stream
Tensor.resize_as_ = lambda self, other, memory_format=None: self.resize_(other.shape)
Tensor.narrow_copy = lambda self, dim, start, length: self.narrow(dim, start, length).clone(
    memory_format=_C.contiguous_format)
Tensor.unsafe_chunk = lambda self, chunks, dim=0: self.chunk(chunks, dim)
Tensor.unsafe_split = lambda self, split_size, dim=0: self.split(split_size, dim)
Tensor.unsafe_split_with_sizes = lambda self, split_sizes, dim=0: self.split(list(split_sizes), dim)
Tensor.const_data_ptr = lambda self: self.data_ptr()
Tensor.isreal = lambda self: (_C.imag(self) == 0) if self.is_complex() else _C.ones_like(self, dtype=_C.bool)
for _name in ("cumprod", "mvlgamma"):  # ldexp_: with ldexp, in _toplevel.py
    setattr(Tensor, _name + "_", inplace_by_copy(getattr(Tensor, _name), _name + "_"))
for _name in ("hardshrink", "prelu"):
    setattr(Tensor, _name, _functional(_name))
# Devices and layouts Ember does not have.
for _name in ("is_mps", "is_xla", "is_xpu", "is_ipu", "is_mtia", "is_maia", "is_vulkan", "is_mkldnn",
              "is_quantized", "is_nested", "is_sparse_csr"):
    setattr(Tensor, _name, property(lambda self: False))
