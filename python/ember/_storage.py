"""Tensor.untyped_storage() and Tensor.storage(): the memory behind a tensor, shared with every view of it
(torch.UntypedStorage and torch.TypedStorage), as a uint8 tensor over all of its bytes."""

import ember

from . import _C

__all__ = ["TypedStorage", "UntypedStorage", "LEGACY_STORAGES"]


class UntypedStorage:
    """A block of bytes: ``UntypedStorage(n)`` makes n zero bytes; a tensor's comes from
    ``tensor.untyped_storage()``. Indexing reads and writes bytes; slices share them."""

    def __init__(self, *args, device=None):
        if len(args) == 1 and isinstance(args[0], int):
            self._bytes = ember.zeros(args[0], dtype=ember.uint8, device=device)
        elif len(args) == 1:
            self._bytes = ember.tensor(list(args[0]), dtype=ember.uint8, device=device)
        elif not args:
            self._bytes = ember.empty(0, dtype=ember.uint8, device=device)
        else:
            raise TypeError(f"UntypedStorage(): expected a size or a sequence of bytes, got {len(args)} arguments")

    @classmethod
    def _over(cls, byte_tensor):
        storage = cls.__new__(cls)
        storage._bytes = byte_tensor
        return storage

    def nbytes(self):
        return self._bytes.numel()

    def size(self):
        return self._bytes.numel()

    def __len__(self):
        return self._bytes.numel()

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._bytes.data_ptr()

    @property
    def device(self):
        return self._bytes.device

    @property
    def dtype(self):
        return ember.uint8

    def is_shared(self):
        return self._bytes.is_shared()

    def share_memory_(self):
        self._bytes.share_memory_()
        return self

    def tolist(self):
        return self._bytes.tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return UntypedStorage._over(self._bytes[index])
        return int(self._bytes[index])

    def __setitem__(self, index, value):
        self._bytes[index] = value

    def fill_(self, value):
        self._bytes.fill_(value)
        return self

    def copy_(self, source, non_blocking=False):
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"copy_: the storages have {source.nbytes()} and {self.nbytes()} bytes")
        self._bytes.copy_(source._bytes)
        return self

    def clone(self):
        return UntypedStorage._over(self._bytes.clone())

    def cpu(self):
        return self if self.device.type == "cpu" else UntypedStorage._over(self._bytes.cpu())

    def resize_(self, size):
        if size != self.nbytes():
            raise NotImplementedError("UntypedStorage.resize_: resizing the memory under existing tensors is not "
                                      "supported by Ember; resize the tensor (Tensor.resize_) instead")
        return self

    def untyped(self):
        return self

    def __repr__(self):
        values = "\n".join(f" {v}" for v in self.tolist()[:20]) + ("\n ..." if self.nbytes() > 20 else "")
        return f"{values}\n[ember.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"


class TypedStorage:
    """A tensor's storage seen as elements of its dtype (the legacy ``tensor.storage()``)."""

    def __init__(self, untyped, dtype):
        self._untyped_storage = untyped
        self.dtype = dtype

    def _elements(self):
        itemsize = self.element_size()
        usable = self._untyped_storage.nbytes() // itemsize * itemsize
        return self._untyped_storage._bytes[:usable].view(self.dtype)

    def size(self):
        return self._elements().numel()

    def __len__(self):
        return self.size()

    def element_size(self):
        return ember.empty(0, dtype=self.dtype).element_size()

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    @property
    def device(self):
        return self._untyped_storage.device

    def untyped(self):
        return self._untyped_storage

    def tolist(self):
        return self._elements().tolist()

    def __getitem__(self, index):
        return self._elements()[index].item() if not isinstance(index, slice) else self._elements()[index].tolist()

    def __setitem__(self, index, value):
        self._elements()[index] = value

    def fill_(self, value):
        self._elements().fill_(value)
        return self

    def is_shared(self):
        return self._untyped_storage.is_shared()

    def share_memory_(self):
        self._untyped_storage.share_memory_()
        return self

    def __repr__(self):
        return f"{self.tolist()}\n[ember.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {self.size()}]"


def untyped_storage(self):
    """The bytes behind this tensor, shared with every tensor that views them."""
    return UntypedStorage._over(_C._storage_bytes(self))


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """torch's Tensor.set_: this tensor (same object, version bumped) takes the memory of ``source``
    (a tensor: its storage, sizes, strides and offset; a storage: all of it as one dimension), or of
    that memory with the given storage_offset, size and stride (checked against the storage's size);
    ``set_()`` makes it empty. The dtype stays: a source of another dtype is an error."""
    if ember.is_grad_enabled() and self.requires_grad:
        if self.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise RuntimeError("set_: this tensor is part of the autograd graph (it has a grad_fn); call set_ on a "
                           "tensor outside it (under ember.no_grad(), or on a detached tensor)")
    geometry = (storage_offset, size, stride)
    if source is None:
        if any(g is not None for g in geometry):
            raise TypeError("set_(): storage_offset, size and stride need a source tensor or storage")
        target = ember.empty(0, dtype=self.dtype, device=self.device)
    else:
        whole = None
        if isinstance(source, ember.Tensor):
            typed = storage(source)
            whole = source if all(g is None for g in geometry) else None
            # As torch: a tensor source's storage_offset counts from the tensor's own.
            geometry = (source.storage_offset() + (storage_offset or 0), size, stride)
        elif isinstance(source, TypedStorage):
            typed = source
        elif isinstance(source, UntypedStorage):
            typed = TypedStorage(source, self.dtype)
        else:
            raise TypeError(f"set_(): source must be a Tensor or a storage, got {type(source).__name__}")
        if typed.dtype != self.dtype:
            raise RuntimeError(f"Could not set tensor of type {_type_name(typed.dtype)} to a tensor of type "
                               f"{_type_name(self.dtype)}")
        if typed.device != self.device:
            raise RuntimeError(f"set_(): expected a source on {self.device}, got one on {typed.device}")
        target = whole if whole is not None else _view_of_storage(typed, *geometry)
    self.data = target
    self._bump_version()
    return self


_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
               "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
               "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
               "complex128": "c10::complex<double>"}


def _type_name(dtype):
    name = str(dtype).rsplit(".", 1)[-1]
    return _TYPE_NAMES.get(name, name)


def _view_of_storage(typed, storage_offset, size, stride):
    """The elements of a TypedStorage at this geometry; torch's bounds error outside them."""
    itemsize = typed.element_size()
    elements = typed._elements()
    count = elements.numel()
    storage_offset = 0 if storage_offset is None else int(storage_offset)
    size = [count - storage_offset] if size is None else [int(s) for s in size]
    if stride is None:
        stride, step = [0] * len(size), 1
        for d in reversed(range(len(size))):
            stride[d], step = step, step * max(size[d], 1)
    stride = [int(s) for s in stride]
    if len(stride) != len(size):
        raise RuntimeError(f"set_(): size {size} and stride {stride} have different lengths")
    if storage_offset < 0 or any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"set_(): storage_offset, sizes and strides must not be negative, got offset "
                           f"{storage_offset}, sizes {size}, strides {stride}")
    extent = 0 if 0 in size else storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if extent * itemsize > typed.nbytes():
        raise RuntimeError(f"setStorage: sizes {size}, strides {stride}, storage offset {storage_offset}, and itemsize "
                           f"{itemsize} requiring a storage size of {extent * itemsize} are out of bounds for storage "
                           f"of size {typed.nbytes()}")
    return elements.as_strided(size, stride, storage_offset)


def storage(self):
    """The storage seen as elements of this tensor's dtype (torch's legacy TypedStorage)."""
    return TypedStorage(untyped_storage(self), self.dtype)


class _LegacyStorageType(type):
    """The metaclass: a TypedStorage of the class's dtype is an instance (``t.storage()`` of a float
    tensor is a FloatStorage, as in torch)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype == cls.dtype


def _legacy_storage(dtype):
    def __init__(self, *args, device=None):
        if len(args) == 1 and isinstance(args[0], int):
            elements = ember.zeros(args[0], dtype=dtype, device=device)
        elif len(args) == 1:
            elements = ember.tensor(list(args[0]), dtype=dtype, device=device)
        elif not args:
            elements = ember.empty(0, dtype=dtype, device=device)
        else:
            raise TypeError(f"{name}(): expected a size or a sequence of values, got {len(args)} arguments")
        TypedStorage.__init__(self, untyped_storage(elements), dtype)

    name = dtype._legacy_name.replace("Tensor", "Storage")
    return _LegacyStorageType(name, (TypedStorage,), {"__init__": __init__, "dtype": dtype, "__module__": "ember"})


# ember.FloatStorage, ember.LongStorage, ...: one per dtype with a legacy name, as the tensor types.
LEGACY_STORAGES = {cls.__name__: cls for cls in (_legacy_storage(d) for d in _C._all_dtypes)}


def storage_type(self):
    """The legacy storage class of this tensor's dtype (ember.FloatStorage for float32)."""
    return LEGACY_STORAGES[self.dtype._legacy_name.replace("Tensor", "Storage")]
