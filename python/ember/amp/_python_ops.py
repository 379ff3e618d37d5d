"""Autocast for ops Ember writes in Python rather than as dispatcher ops
(F.conv1d, F.group_norm, the losses...): ``@autocast_op("name")`` gives such
a function the policy the C++ table holds for ``name``, as the dispatcher
gives one to the ops it knows, so both follow one table."""

import functools
import threading

from ember import _C

_KEYS = {"cpu": "AutocastCPU", "cuda": "AutocastCUDA"}
# Enabled autocast regions open in any thread: a cheap test that lets every
# call outside autocast go straight through (the exact, per-thread test is
# _C._is_autocast_enabled).
_open_regions = [0]
_regions_lock = threading.Lock()
# Table names some Python function answers for (for tests).
python_ops = set()


def region_opened():
    with _regions_lock:
        _open_regions[0] += 1


def region_closed():
    with _regions_lock:
        _open_regions[0] -= 1


def _first_tensor(values):
    import ember
    for value in values:
        if isinstance(value, ember.Tensor):
            return value
        if isinstance(value, (list, tuple)):
            found = _first_tensor(value)
            if found is not None:
                return found
    return None


def _widest(values, dtype, device):
    import ember
    for value in values:
        if isinstance(value, ember.Tensor):
            if value.device.type == device and value.is_floating_point() and value.dtype != ember.float64:
                dtype = ember.promote_types(dtype, value.dtype)
        elif isinstance(value, (list, tuple)):
            dtype = _widest(value, dtype, device)
    return dtype


def _cast(value, dtype, device):
    import ember
    if isinstance(value, ember.Tensor):
        return _C._autocast_cast(value, dtype, device)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype, device) for v in value)
    return value


def _run(op, fn, args, kwargs):
    import ember
    first = _first_tensor(list(args) + list(kwargs.values()))
    device = first.device.type if first is not None else None
    if device not in _KEYS or not _C._is_autocast_enabled(device):
        return fn(*args, **kwargs)
    policy = _C._autocast_policy(op, device)
    if policy == "none":
        return fn(*args, **kwargs)
    _C._autocast_check_not_banned(op, device)
    if kwargs.get("dtype") is None:  # an explicit dtype= keeps autocast out
        if policy == "fp32":
            dtype = ember.float32
        else:
            dtype = _C._get_autocast_dtype(device)
            if policy == "promote":
                dtype = _widest(list(args) + list(kwargs.values()), dtype, device)
        args = _cast(args, dtype, device)
        kwargs = {k: _cast(v, dtype, device) for k, v in kwargs.items()}
    with _C._ExcludeDispatchKey(_KEYS[device]):
        return fn(*args, **kwargs)


def autocast_op(op, names=()):
    """Decorates a Python-level op with the autocast policy of ``op`` (a
    table name such as "conv1d", or a function of the call's arguments that
    returns one of ``names``, for ops whose torch name depends on them)."""
    python_ops.update([op] if isinstance(op, str) else names)

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not _open_regions[0]:
                return fn(*args, **kwargs)
            name = op if isinstance(op, str) else op(*args, **kwargs)
            if name is None:
                return fn(*args, **kwargs)
            return _run(name, fn, args, kwargs)
        return wrapper
    return decorate
