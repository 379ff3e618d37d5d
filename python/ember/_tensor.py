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
