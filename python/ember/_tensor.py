"""Python-level methods of ember.Tensor (the class itself is defined in C++)."""

from . import _C
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


# ---- Python operators --------------------------------------------------------
# Each maps to the operator PyTorch uses; Python numbers reach the .Scalar
# overloads and promote as weak "wrapped numbers" (x + 1.5 keeps x's dtype).


def _forward(op):
    return lambda self, other: op(self, other)


def _swapped(op):
    """number <op> tensor: the number becomes a weak 0-d tensor on the left."""
    return lambda self, other: op(other if isinstance(other, Tensor) else _C._wrapped_scalar(other), self)


def _inplace(method, **kwargs):
    return lambda self, other: getattr(self, method)(other, **kwargs)


def _invert(self):
    # TypeError for floats, as torch's ~ (ember.bitwise_not raises NotImplementedError like torch.bitwise_not).
    if self.is_floating_point() or self.is_complex():
        raise TypeError(f"~ (bitwise_not) is only supported for integer and boolean tensors, got {self.dtype}")
    return _C.bitwise_not(self)


def _comparison(op):
    return lambda self, other: op(self, other) if _comparable(other) else NotImplemented


# (operator, forward, reflected, in-place)
_BINARY_OPERATORS = [
    ("add", _forward(_C.add), _forward(_C.add), _inplace("add_")),
    ("sub", _forward(_C.sub), _forward(_C.rsub), _inplace("sub_")),
    ("mul", _forward(_C.mul), _forward(_C.mul), _inplace("mul_")),
    ("truediv", _forward(_C.div), _swapped(_C.div), _inplace("div_")),
    ("floordiv", _forward(_C.floor_divide), _swapped(_C.floor_divide), _inplace("div_", rounding_mode="floor")),
    ("mod", _forward(_C.remainder), _swapped(_C.remainder), _inplace("remainder_")),
    ("pow", _forward(_C.pow), lambda self, other: _C.pow(other, self), _inplace("pow_")),
    ("and", _forward(_C.bitwise_and), _forward(_C.bitwise_and), _inplace("bitwise_and_")),
    ("or", _forward(_C.bitwise_or), _forward(_C.bitwise_or), _inplace("bitwise_or_")),
    ("xor", _forward(_C.bitwise_xor), _forward(_C.bitwise_xor), _inplace("bitwise_xor_")),
    ("lshift", _forward(_C.bitwise_left_shift), _swapped(_C.bitwise_left_shift), _inplace("bitwise_left_shift_")),
    ("rshift", _forward(_C.bitwise_right_shift), _swapped(_C.bitwise_right_shift), _inplace("bitwise_right_shift_")),
    ("matmul", _forward(_C.matmul), lambda self, other: _C.matmul(other, self), None),
]
for _name, _fwd, _rev, _inp in _BINARY_OPERATORS:
    setattr(Tensor, f"__{_name}__", _fwd)
    setattr(Tensor, f"__r{_name}__", _rev)
    if _inp is not None:
        setattr(Tensor, f"__i{_name}__", _inp)

Tensor.__neg__ = lambda self: _C.neg(self)
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = lambda self: _C.abs(self)
Tensor.__invert__ = _invert
Tensor.__eq__ = _comparison(_C.eq)
Tensor.__ne__ = _comparison(_C.ne)
Tensor.__lt__ = _forward(_C.lt)
Tensor.__le__ = _forward(_C.le)
Tensor.__gt__ = _forward(_C.gt)
Tensor.__ge__ = _forward(_C.ge)
# Defining __eq__ removes the default hash; tensors hash by identity, as in torch.
Tensor.__hash__ = object.__hash__


def _comparable(other):
    return isinstance(other, (Tensor, int, float, complex, bool)) or hasattr(other, "__index__")


# ---- Autograd ---------------------------------------------------------------------


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradient of this tensor into the leaves' ``.grad``."""
    from . import autograd

    autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _backward


# Conjugate transposes and small queries torch scripts use.
Tensor.H = property(lambda self: self.t().conj() if self.dim() == 2 else _bad_H(self))
Tensor.mH = property(lambda self: _C.adjoint(self))
Tensor.get_device = lambda self: self.device.index if self.device.type != "cpu" else -1
Tensor.is_signed = lambda self: self.dtype not in (_C.bool, _C.uint8)


def _bad_H(self):
    raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
