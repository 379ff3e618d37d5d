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
