"""ember.save and ember.load.

Files use Ember's own format (aten/serialize/ember_file.proto), which the
C++ API reads and writes too (ember::serialize::load/save). They hold data
only: tensors (their storages written once, so shared memory and views
stay shared), numbers, strings, bytes, dtypes, devices, and lists, tuples,
dicts and OrderedDicts of them. Nothing is pickled, so loading a file never
runs code from it; a damaged, truncated or foreign file is a RuntimeError
saying what is wrong.
"""

import os

from . import _C

__all__ = ["save", "load"]

FORMAT_VERSION = _C._serialization_format_version


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    """Writes ``obj`` to ``f`` (a path or a binary file object)."""
    if pickle_module is not None:
        raise ValueError("ember.save does not pickle; pickle_module is not supported")
    data = _C._save_to_bytes(obj)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as out:
            out.write(data)
    else:
        f.write(data)


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
    """Reads what ``save`` wrote. ``map_location`` (a device or its name)
    moves every tensor there. ``weights_only`` is accepted for PyTorch
    compatibility: Ember files never contain code, whatever its value."""
    if pickle_module is not None:
        raise ValueError("ember.load does not unpickle; pickle_module is not supported")
    if isinstance(f, (str, os.PathLike)):
        name = os.fspath(f)
        with open(f, "rb") as src:
            data = src.read()
    else:
        name = getattr(f, "name", "<file object>")
        data = f.read()
    obj = _C._load_from_bytes(data, str(name))
    if map_location is None:
        return obj
    if callable(map_location) or isinstance(map_location, dict):
        raise TypeError("ember.load: map_location must be a device or a device name")
    import ember

    return _map(obj, ember.device(map_location))
