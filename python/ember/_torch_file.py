"""torch.save's file format, read and written without torch and without
running code from the file.

The format is a zip archive: <name>/data.pkl (a pickle whose tensors are
persistent ids of storages), <name>/data/<key> (each storage's raw bytes,
little-endian unless <name>/byteorder says otherwise) and a few small
records. Reading goes through an unpickler that resolves only allowed
globals: torch's own safe set, mapped to Ember's objects, plus what the user
allows (ember.serialization.add_safe_globals). Anything else, e.g. a pickle
that reduces to os.system, is an UnpicklingError naming the global. Sizes
in the file are checked against the bytes actually there before use.
"""

import _compat_pickle
import collections
import io
import pickle
import zipfile

import numpy as np

import ember

_MAX_PICKLE_BYTES = 1 << 30

# torch storage class name -> (Ember dtype, NumPy dtype of the stored bytes)
_STORAGES = {
    "FloatStorage": (ember.float32, "f4"), "DoubleStorage": (ember.float64, "f8"),
    "HalfStorage": (ember.float16, "f2"), "BFloat16Storage": (ember.bfloat16, "u2"),
    "LongStorage": (ember.int64, "i8"), "IntStorage": (ember.int32, "i4"), "ShortStorage": (ember.int16, "i2"),
    "CharStorage": (ember.int8, "i1"), "ByteStorage": (ember.uint8, "u1"), "BoolStorage": (ember.bool, "u1"),
    "ComplexFloatStorage": (ember.complex64, "c8"), "ComplexDoubleStorage": (ember.complex128, "c16"),
}
_DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
                "complex64", "complex128"]


class _StorageType:
    """What a torch.<X>Storage global resolves to while reading."""

    def __init__(self, name):
        self.name = name
        self.dtype, self.numpy_code = _STORAGES[name]


def _corrupt(what):
    return RuntimeError(f"ember.load: corrupt torch file: {what}")


def _check_view(storage, storage_offset, size, stride):
    if not (isinstance(storage_offset, int) and all(isinstance(v, int) for v in (*size, *stride))
            and len(size) == len(stride)):
        raise _corrupt(f"tensor geometry size={size} stride={stride} offset={storage_offset} is not integers")
    if storage_offset < 0 or any(v < 0 for v in (*size, *stride)) or any(v >= 1 << 62 for v in (*size, *stride)):
        raise _corrupt(f"tensor geometry size={size} stride={stride} offset={storage_offset} is out of range")
    if 0 not in size:
        extent = storage_offset + sum((s - 1) * st for s, st in zip(size, stride)) + 1
        if extent > storage.numel():
            raise _corrupt(f"a tensor of size {list(size)} and stride {list(stride)} at offset {storage_offset} "
                           f"reaches element {extent} of a storage of {storage.numel()}")


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    if not isinstance(storage, ember.Tensor):
        raise _corrupt("a tensor's storage is not a storage record")
    size, stride = tuple(size), tuple(stride)
    _check_view(storage, storage_offset, size, stride)
    tensor = ember.as_strided(storage, list(size), list(stride), storage_offset)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, False, None)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return ember.nn.Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    if state:
        param.__dict__.update(state if isinstance(state, dict) else {})
    return param


def _get_layout(name):
    """torch.serialization._get_layout: a layout from its name (only sparse COO is rebuilt)."""
    if name != "torch.sparse_coo":
        raise pickle.UnpicklingError(f"ember.load: tensors of layout {name!r:.80} are not supported")
    return ember.sparse_coo


def _rebuild_sparse_tensor(layout, data):
    if layout is not ember.sparse_coo or not isinstance(data, tuple) or len(data) not in (3, 4):
        raise _corrupt("a sparse tensor record is not (sparse_coo, (indices, values, size[, is_coalesced]))")
    indices, values, size = data[:3]
    if not isinstance(indices, ember.Tensor) or not isinstance(values, ember.Tensor):
        raise _corrupt("a sparse tensor's indices or values are not tensors")
    # Checked like any user input (index range, shapes); a claim of being
    # coalesced is not trusted, it is made true.
    result = ember.sparse_coo_tensor(indices, values, tuple(size))
    return result.coalesce() if len(data) == 4 and data[3] else result


def _rebuild_from_type_v2(func, new_type, args, state):
    # func came through find_class, so it is one of the allowed rebuild functions.
    if new_type is not _TENSOR_TYPE and new_type is not ember.nn.Parameter:
        raise pickle.UnpicklingError(f"ember.load: tensors of type {new_type!r:.80} are not supported")
    ret = func(*args)
    if not isinstance(ret, ember.Tensor):
        raise _corrupt("_rebuild_from_type_v2 did not rebuild a tensor")
    if new_type is ember.nn.Parameter and not isinstance(ret, ember.nn.Parameter):
        ret = ember.nn.Parameter(ret, ret.requires_grad)
    if state and isinstance(state, dict):
        ret.__dict__.update(state)
    return ret


class _TensorTypeMarker:
    """What torch.Tensor resolves to: only compared as _rebuild_from_type_v2's new_type, never called (calling
    the class would allocate whatever size a file names)."""


_TENSOR_TYPE = _TensorTypeMarker()


def _bytearray(source=b""):
    if not isinstance(source, (bytes, str)):
        raise pickle.UnpicklingError("ember.load: bytearray is allowed only from bytes")
    return bytearray(source, "latin1") if isinstance(source, str) else bytearray(source)


def _default_globals():
    table = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "builtins.set": set,
        "builtins.frozenset": frozenset,
        "builtins.complex": complex,
        "builtins.slice": slice,
        "builtins.bytearray": _bytearray,
        "_codecs.encode": _codecs_encode,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
        "torch.serialization._get_layout": _get_layout,
        "torch.sparse_coo": ember.sparse_coo,
        "torch.Size": ember.Size,
        "torch.device": ember.device,
        "torch.Tensor": _TENSOR_TYPE,
        "torch.nn.parameter.Parameter": ember.nn.Parameter,
    }
    for name in _STORAGES:
        table[f"torch.{name}"] = _StorageType(name)
    for name in _DTYPE_NAMES:
        table[f"torch.{name}"] = getattr(ember, name)
    return table


def _codecs_encode(text, encoding="latin1"):
    # Protocol-2 pickles spell bytes as _codecs.encode(str, "latin1").
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("ember.load: _codecs.encode is allowed only to rebuild bytes (latin1)")
    return text.encode("latin1")


_DEFAULT_GLOBALS = _default_globals()


def _canonical_name(module, name):
    """module.name, with Python 2's names (__builtin__.set in protocol-2 pickles) mapped as pickle maps them."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    return f"{_compat_pickle.IMPORT_MAPPING.get(module, module)}.{name}"


class _RestrictedUnpickler(pickle.Unpickler):
    def __init__(self, file, archive, prefix, byteorder, user_globals):
        super().__init__(file)
        self._archive, self._prefix, self._byteorder = archive, prefix, byteorder
        self._user_globals = user_globals
        self._storages = {}

    def find_class(self, module, name):
        key = _canonical_name(module, name)
        if key in _DEFAULT_GLOBALS:
            return _DEFAULT_GLOBALS[key]
        if key in self._user_globals:
            return self._user_globals[key]
        raise pickle.UnpicklingError(
            f"ember.load: the file refers to {key}, which is not an allowed global, so it was not loaded. Ember "
            f"never runs code from a file; if you trust this file and {key} is a class of yours, allow it with "
            f"ember.serialization.add_safe_globals([{name}]) (or the safe_globals context manager). Tensors, "
            "state_dicts and plain containers need nothing.")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise _corrupt(f"unknown persistent id {pid!r:.100}")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, _StorageType) or not isinstance(key, str) or not isinstance(numel, int):
            raise _corrupt(f"bad storage record {pid!r:.100}")
        if key not in self._storages:
            self._storages[key] = self._read_storage(storage_type, key, numel)
        return self._storages[key]

    def _read_storage(self, storage_type, key, numel):
        member = f"{self._prefix}/data/{key}"
        try:
            info = self._archive.getinfo(member)
        except KeyError:
            raise _corrupt(f"storage {key!r} has no record {member}") from None
        if info.compress_type != zipfile.ZIP_STORED:
            # torch stores storages uncompressed; a compressed one could expand to any size.
            raise _corrupt(f"storage {key!r} is compressed")
        code = np.dtype(storage_type.numpy_code).newbyteorder("<" if self._byteorder == "little" else ">")
        if numel < 0 or info.file_size != numel * code.itemsize:
            raise _corrupt(f"storage {key!r} should hold {numel} elements of {code.itemsize} bytes, but its record "
                           f"has {info.file_size} bytes")
        raw = np.frombuffer(self._archive.read(member), dtype=code)
        if storage_type.name == "BFloat16Storage":
            values = (raw.astype(np.uint32) << 16).view(np.float32)
            return ember.tensor(values).to(ember.bfloat16)
        if storage_type.name == "BoolStorage":
            return ember.tensor(raw != 0)
        return ember.tensor(raw.astype(code.newbyteorder("="), copy=True))


def _archive_prefix(archive):
    names = archive.namelist()
    pickles = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
    if len(pickles) != 1:
        raise _corrupt("expected exactly one <name>/data.pkl record")
    return pickles[0][: -len("/data.pkl")]


def load(data, user_globals):
    """The object a torch.save zip file (its bytes) holds, rebuilt with Ember objects."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as e:
        raise _corrupt(f"not a readable zip archive ({e})") from None
    with archive:
        prefix = _archive_prefix(archive)
        byteorder = "little"
        if f"{prefix}/byteorder" in archive.namelist():
            byteorder = archive.read(f"{prefix}/byteorder").decode("ascii", "replace").strip()
            if byteorder not in ("little", "big"):
                raise _corrupt(f"unknown byte order {byteorder!r}")
        info = archive.getinfo(f"{prefix}/data.pkl")
        if info.file_size > _MAX_PICKLE_BYTES:
            raise _corrupt(f"data.pkl claims {info.file_size} bytes")
        unpickler = _RestrictedUnpickler(io.BytesIO(archive.read(info)), archive, prefix, byteorder, user_globals)
        try:
            return unpickler.load()
        except Exception as e:
            if str(e).startswith("ember.load"):  # refused or checked here: already says what is wrong
                raise
            # Malformed pickle streams raise all sorts of errors.
            raise _corrupt(f"data.pkl does not unpickle ({type(e).__name__}: {e})") from None


def globals_in(data):
    """The qualified names of the globals a torch file's pickle refers to (without loading anything)."""
    import pickletools

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        stream = archive.read(f"{_archive_prefix(archive)}/data.pkl")
    found, strings = [], []
    for opcode, arg, _ in pickletools.genops(stream):
        if opcode.name == "GLOBAL":
            found.append(_canonical_name(*arg.split(" ", 1)))
        elif opcode.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE", "BINUNICODE8"):
            strings.append(arg)
        elif opcode.name == "STACK_GLOBAL" and len(strings) >= 2:
            found.append(_canonical_name(strings[-2], strings[-1]))
    return list(dict.fromkeys(found))


# ---- writing ---------------------------------------------------------------------------------


class _Global:
    """A global written by name (e.g. torch._utils._rebuild_tensor_v2); torch need not be importable here."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle's reduce wants a callable; this one is only ever written
        raise TypeError(f"{self.module}.{self.name} is a name for torch, not callable here")


class _StorageRef:
    def __init__(self, key, storage_type, numel):
        self.key, self.storage_type, self.numel = key, storage_type, numel


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def _storage_type_name(dtype):
    for name, (d, _) in _STORAGES.items():
        if d == dtype:
            return name
    raise TypeError(f"ember.save: tensors of dtype {dtype} cannot be written in torch's format")


def _storage_bytes(base):
    """The little-endian bytes of a 1-D contiguous tensor."""
    if base.dtype == ember.bfloat16:
        bits = base.float().numpy().view(np.uint32) >> 16
        return bits.astype("<u2").tobytes()
    return np.ascontiguousarray(base.numpy()).astype(np.dtype(base.numpy().dtype).newbyteorder("<")).tobytes()


class _TorchPickler(pickle._Pickler):
    # The pure-Python pickler, so that globals can be written by name.
    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = {}  # key -> 1-D tensor over the whole storage

    def _save_named_global(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    dispatch[_Global] = _save_named_global
    dispatch[type(ember.float32)] = lambda self, dtype: self._save_named_global(_Global("torch", _dtype_name(dtype)))

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return ("storage", _Global("torch", obj.storage_type), obj.key, "cpu", obj.numel)
        return None

    def _storage_of(self, tensor):
        itemsize = tensor.element_size()
        base_ptr = tensor.data_ptr() - tensor.storage_offset() * itemsize
        numel = tensor.untyped_storage_nbytes() // itemsize
        key = (base_ptr, str(tensor.dtype))
        if key not in self._keys:
            self._keys[key] = str(len(self._keys))
            whole = ember.as_strided(tensor.detach(), [numel], [1], 0)
            self.storages[self._keys[key]] = whole
        return _StorageRef(self._keys[key], _storage_type_name(tensor.dtype), numel)

    def reducer_override(self, obj):
        if obj is ember.sparse_coo:
            return (_Global("torch.serialization", "_get_layout"), ("torch.sparse_coo",))
        if isinstance(obj, ember.Tensor) and obj.is_sparse:
            return (_Global("torch._utils", "_rebuild_sparse_tensor"),
                    (ember.sparse_coo, (obj._indices(), obj._values(), ember.Size(obj.shape), obj.is_coalesced())))
        if isinstance(obj, ember.nn.Parameter):
            plain = obj.detach()
            return (_Global("torch._utils", "_rebuild_parameter"),
                    (plain, obj.requires_grad, collections.OrderedDict()))
        if isinstance(obj, ember.Tensor):
            if obj.device.type != "cpu":
                obj = obj.cpu()
            ref = self._storage_of(obj)
            return (_Global("torch._utils", "_rebuild_tensor_v2"),
                    (ref, obj.storage_offset(), tuple(obj.shape), tuple(obj.stride()), obj.requires_grad,
                     collections.OrderedDict()))
        if isinstance(obj, ember.Size):
            return (_Global("torch", "Size"), (tuple(obj),))
        if isinstance(obj, ember.device):
            return (_Global("torch", "device"), (str(obj),))
        return NotImplemented

    def dump(self, obj):
        self._keys = {}
        super().dump(obj)


def save(obj, name="archive"):
    """The bytes of a torch.save zip file holding obj."""
    buffer = io.BytesIO()
    pickler = _TorchPickler(buffer)
    pickler.dump(obj)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{name}/data.pkl", buffer.getvalue())
        archive.writestr(f"{name}/byteorder", "little")
        for key, base in pickler.storages.items():
            archive.writestr(f"{name}/data/{key}", _storage_bytes(base.contiguous()))
        archive.writestr(f"{name}/version", "3\n")
    return out.getvalue()
