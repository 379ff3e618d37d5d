"""ember.save and ember.load.

Files use Ember's own format (aten/serialize/ember_file.proto), which the
C++ API reads and writes too (ember::serialize::load/save). They hold data
only: tensors (their storages written once, so shared memory and views
stay shared), numbers, strings, bytes, dtypes, devices, and lists, tuples,
dicts and OrderedDicts of them. Nothing is pickled, so loading a file never
runs code from it; a damaged, truncated or foreign file is a RuntimeError
saying what is wrong.

torch's own format (a zip of a pickle and raw storages) is read too, so that
checkpoints made by torch load without torch, and written with
``format="torch"`` (or when an object does not fit Ember's format, e.g. a
whole module or a NumPy array), so that torch reads what Ember saves. Its
pickle is read by an unpickler that resolves only allowed globals: the
tensor and container types torch's weights_only loader allows, plus what
the user adds with add_safe_globals / safe_globals (ember/_torch_file.py).
"""

import contextlib
import os

from . import _C

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint"]

_safe_globals = {}  # qualified name -> object, as the user allowed them


def _qualified(obj):
    if isinstance(obj, tuple):  # (object, "module.name") as torch accepts
        target, name = obj
        return name, target
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if module is None or name is None:
        raise TypeError(f"add_safe_globals: {obj!r} has no module-qualified name; pass (obj, 'module.name')")
    return f"{module}.{name}", obj


def add_safe_globals(safe_globals):
    """Allows these classes and functions to be rebuilt when loading a torch-format file.

    Only add what you trust: loading calls them (classes are created and get their saved state)."""
    for obj in safe_globals:
        name, target = _qualified(obj)
        _safe_globals[name] = target


def clear_safe_globals():
    _safe_globals.clear()


def get_safe_globals():
    return list(_safe_globals.values())


@contextlib.contextmanager
def safe_globals(safe_globals):
    """Allows these globals only inside the with-block."""
    saved = dict(_safe_globals)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _safe_globals.clear()
        _safe_globals.update(saved)


def _read_bytes(f):
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as src:
            return os.fspath(f), src.read()
    return getattr(f, "name", "<file object>"), f.read()


def get_unsafe_globals_in_checkpoint(f):
    """The globals a torch-format file refers to that loading would refuse (nothing is loaded)."""
    from . import _torch_file

    _, data = _read_bytes(f)
    allowed = set(_torch_file._DEFAULT_GLOBALS) | set(_safe_globals)
    return [name for name in _torch_file.globals_in(data) if name not in allowed]

FORMAT_VERSION = _C._serialization_format_version


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True, *, format=None):
    """Writes ``obj`` to ``f`` (a path or a binary file object).

    ``format="torch"`` writes torch's zip format, which torch.load reads; by
    default Ember's own format is written, or torch's for objects that Ember's
    does not hold (modules and other class instances, NumPy arrays)."""
    if pickle_module is not None:
        raise ValueError("ember.save does not pickle with a custom module; pickle_module is not supported")
    if format not in (None, "ember", "torch"):
        raise ValueError(f"ember.save: format must be 'ember' or 'torch', got {format!r}")
    if format == "torch":
        data = _torch_bytes(obj, f)
    else:
        try:
            data = _C._save_to_bytes(obj)
        except TypeError:
            if format == "ember":
                raise
            data = _torch_bytes(obj, f)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as out:
            out.write(data)
    else:
        f.write(data)


def _torch_bytes(obj, f):
    from . import _torch_file

    stem = os.path.splitext(os.path.basename(os.fspath(f)))[0] if isinstance(f, (str, os.PathLike)) else ""
    return _torch_file.save(obj, stem if stem.isidentifier() else "archive")


def _map(obj, location):
    import ember

    if isinstance(obj, ember.Tensor):
        if obj.device == location:
            return obj
        moved = obj.detach().to(location).requires_grad_(obj.requires_grad)
        if type(obj) is not ember.Tensor:
            return type(obj)(moved, obj.requires_grad)
        return moved
    if isinstance(obj, list):
        return [_map(x, location) for x in obj]
    if isinstance(obj, tuple):
        return tuple(_map(x, location) for x in obj)
    if isinstance(obj, dict):
        out = type(obj)()
        for k, v in obj.items():
            out[k] = _map(v, location)
        return out
    return obj


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Reads what ``save`` wrote, or a file torch.save wrote. ``map_location``
    (a device or its name) moves every tensor there. Loading never runs code
    from the file, whatever ``weights_only`` says: in torch's format only
    allowed globals are rebuilt (see add_safe_globals)."""
    if pickle_module is not None:
        raise ValueError("ember.load does not unpickle with a custom module; pickle_module is not supported")
    name, data = _read_bytes(f)
    if data[:4] == b"PK\x03\x04":  # a zip archive: torch's format (Ember's own files are not zips)
        from . import _torch_file

        obj = _torch_file.load(data, dict(_safe_globals))
    else:
        obj = _C._load_from_bytes(data, str(name))
    if map_location is None:
        return obj
    if callable(map_location) or isinstance(map_location, dict):
        raise TypeError("ember.load: map_location must be a device or a device name")
    import ember

    return _map(obj, ember.device(map_location))
