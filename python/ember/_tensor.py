"""Python-level methods of ember.Tensor (the class itself is defined in C++)."""

from . import _C
from . import _tensor_str

Tensor = _C.Tensor


def _repr(self):
    return _tensor_str.tensor_repr(self, default_float_dtype_name=str(_C.get_default_dtype()).split(".")[-1])


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


Tensor.__repr__ = _repr
Tensor.__str__ = _repr
Tensor.__iter__ = _iter
Tensor.__array__ = _array
Tensor.__array_priority__ = 1000
Tensor.__reduce__ = _reduce
Tensor.__format__ = lambda self, spec: self.item().__format__(spec) if self.dim() == 0 else object.__format__(self, spec)


# ---- Python operators --------------------------------------------------------
# Each maps to the operator PyTorch uses; Python numbers reach the .Scalar
# overloads and promote as weak "wrapped numbers" (x + 1.5 keeps x's dtype).


def _reverse(op):
    return lambda self, other: op(_C._wrapped_scalar(other) if not isinstance(other, Tensor) else other, self)


Tensor.__add__ = lambda self, other: _C.add(self, other)
Tensor.__radd__ = lambda self, other: _C.add(self, other)
Tensor.__iadd__ = lambda self, other: self.add_(other)
Tensor.__sub__ = lambda self, other: _C.sub(self, other)
Tensor.__rsub__ = lambda self, other: _C.rsub(self, other)
Tensor.__isub__ = lambda self, other: self.sub_(other)
Tensor.__mul__ = lambda self, other: _C.mul(self, other)
Tensor.__rmul__ = lambda self, other: _C.mul(self, other)
Tensor.__imul__ = lambda self, other: self.mul_(other)
Tensor.__truediv__ = lambda self, other: _C.div(self, other)
Tensor.__rtruediv__ = _reverse(_C.div)
Tensor.__itruediv__ = lambda self, other: self.div_(other)
Tensor.__floordiv__ = lambda self, other: _C.floor_divide(self, other)
Tensor.__rfloordiv__ = _reverse(_C.floor_divide)
Tensor.__ifloordiv__ = lambda self, other: self.div_(other, rounding_mode="floor")
Tensor.__mod__ = lambda self, other: _C.remainder(self, other)
Tensor.__rmod__ = _reverse(_C.remainder)
Tensor.__imod__ = lambda self, other: self.remainder_(other)
Tensor.__pow__ = lambda self, other: _C.pow(self, other)
Tensor.__rpow__ = lambda self, other: _C.pow(other, self)
Tensor.__ipow__ = lambda self, other: self.pow_(other)
Tensor.__neg__ = lambda self: _C.neg(self)
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = lambda self: _C.abs(self)
def _invert(self):
    # TypeError for floats, as torch's ~ (ember.bitwise_not raises NotImplementedError like torch.bitwise_not).
    if self.is_floating_point() or self.is_complex():
        raise TypeError(f"~ (bitwise_not) is only supported for integer and boolean tensors, got {self.dtype}")
    return _C.bitwise_not(self)


Tensor.__invert__ = _invert
Tensor.__and__ = lambda self, other: _C.bitwise_and(self, other)
Tensor.__rand__ = lambda self, other: _C.bitwise_and(self, other)
Tensor.__iand__ = lambda self, other: self.bitwise_and_(other)
Tensor.__or__ = lambda self, other: _C.bitwise_or(self, other)
Tensor.__ror__ = lambda self, other: _C.bitwise_or(self, other)
Tensor.__ior__ = lambda self, other: self.bitwise_or_(other)
Tensor.__xor__ = lambda self, other: _C.bitwise_xor(self, other)
Tensor.__rxor__ = lambda self, other: _C.bitwise_xor(self, other)
Tensor.__ixor__ = lambda self, other: self.bitwise_xor_(other)
Tensor.__eq__ = lambda self, other: _C.eq(self, other) if _comparable(other) else NotImplemented
Tensor.__ne__ = lambda self, other: _C.ne(self, other) if _comparable(other) else NotImplemented
Tensor.__lt__ = lambda self, other: _C.lt(self, other)
Tensor.__le__ = lambda self, other: _C.le(self, other)
Tensor.__gt__ = lambda self, other: _C.gt(self, other)
Tensor.__ge__ = lambda self, other: _C.ge(self, other)
# Defining __eq__ removes the default hash; tensors hash by identity, as in torch.
Tensor.__hash__ = object.__hash__


def _comparable(other):
    return isinstance(other, (Tensor, int, float, complex, bool)) or hasattr(other, "__index__")
Tensor.__matmul__ = lambda self, other: _C.matmul(self, other)
Tensor.__rmatmul__ = lambda self, other: _C.matmul(other, self)
