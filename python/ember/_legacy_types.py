"""PyTorch's legacy tensor-type names (ember.FloatTensor, ember.LongTensor,
...), one per dtype of c10's table (its legacy name): constructors that
older scripts call, and types that isinstance() and Tensor.type() accept.

``FloatTensor(2, 3)`` (or a Size) is an uninitialized tensor of that
shape, ``FloatTensor([1, 2])`` one made from the data, ``FloatTensor(t)``
the tensor ``t`` itself if it already has the type.
"""

import numbers

from . import _C
from ._size import Size


class _LegacyTensorType(type):
    """The metaclass: a CPU tensor of the type's dtype is an instance."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.Tensor) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args, device=None):
        import ember

        if device is not None and ember.device(device).type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                               f"{ember.device(device).type} was passed")
        if not args:
            return ember.empty(0, dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], _C.Tensor):
            if args[0].dtype != cls.dtype or args[0].device.type != "cpu":
                raise TypeError(f"expected {cls.__name__} (got {args[0].type()})")
            return args[0]
        if len(args) == 1 and isinstance(args[0], Size):
            return ember.empty(tuple(args[0]), dtype=cls.dtype)
        if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
            return ember.empty(args, dtype=cls.dtype)
        if len(args) == 1 and not isinstance(args[0], (str, bytes, numbers.Number)):
            return ember.tensor(args[0], dtype=cls.dtype)
        raise TypeError(f"new(): invalid data type '{type(args[0]).__name__}'")


def _make(dtype):
    return _LegacyTensorType(dtype._legacy_name, (), {"dtype": dtype, "is_cuda": False,
                                                      "__module__": "ember", "__doc__": f"{dtype} CPU tensors."})


LEGACY_TYPES = {dtype._legacy_name: _make(dtype) for dtype in _C._all_dtypes}
