"""The ``__ember_function__`` protocol, PyTorch's ``__torch_function__``
under Ember's name.

A Tensor subclass (or any class) may define

    @classmethod
    def __ember_function__(cls, func, types, args=(), kwargs=None): ...

and every ``ember.*`` function and Tensor method called with such an
argument is routed to it. ``func`` is the public callable (``ember.add``,
``ember.Tensor.add``), ``types`` the overriding types among the arguments.
Returning ``NotImplemented`` passes to the next type. ``ember.Tensor``'s own
implementation runs the function with overrides disabled and turns the
results into the calling subclass, so ``type(a + b) is MyTensor``.

The checks cost nothing until a class defining ``__ember_function__``
exists: defining one (a Tensor subclass is noticed on its own; for other
classes call ``enable()``) installs them once, process-wide.
"""

import functools
import threading

from . import _C

__all__ = ["has_ember_function", "handle_ember_function", "enable", "get_overridable_functions",
           "DisableEmberFunction"]

_Tensor = _C.Tensor
_state = threading.local()
_installed = False
_overridable = {}  # public callable -> name


def _disabled():
    return getattr(_state, "disabled", 0) > 0


class DisableEmberFunction:
    """Inside the block, calls skip ``__ember_function__`` and run directly."""

    def __enter__(self):
        _state.disabled = getattr(_state, "disabled", 0) + 1

    def __exit__(self, *exc):
        _state.disabled -= 1


def _default_override():
    return _Tensor.__dict__["__ember_function__"].__func__


def _overriding(obj):
    t = type(obj)
    if t is _Tensor:
        return False
    fn = getattr(t, "__ember_function__", None)
    if fn is None:
        return False
    # A Tensor subclass that did not override it behaves like a Tensor.
    return not (isinstance(obj, _Tensor) and getattr(fn, "__func__", None) is _default_override())


def _relevant(args, kwargs):
    """Arguments with an override, subclasses before their bases, else in order."""
    found = []

    def visit(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                if _overriding(y):
                    found.append(y)
        elif _overriding(x):
            found.append(x)

    for a in args:
        visit(a)
    if kwargs:
        for a in kwargs.values():
            visit(a)
    ordered = []
    for obj in found:
        if any(type(o) is type(obj) for o in ordered):
            continue
        index = len(ordered)
        for i, o in enumerate(ordered):
            if issubclass(type(obj), type(o)):
                index = i
                break
        ordered.insert(index, obj)
    return ordered


def has_ember_function(args):
    return bool(_relevant(args, None))


def handle_ember_function(public_api, relevant_args, *args, **kwargs):
    """Calls the overrides of ``relevant_args`` for ``public_api``."""
    overloaded = _relevant(relevant_args, None)
    types = tuple(dict.fromkeys(type(o) for o in overloaded))
    for obj in overloaded:
        result = type(obj).__ember_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(public_api, "__qualname__", getattr(public_api, "__name__", str(public_api)))
    raise TypeError(f"no implementation found for 'ember.{name}' on types that implement __ember_function__: "
                    f"{[t for t in types]}")


def _wrap(fn, public=None):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not _disabled():
            overloaded = _relevant(args, kwargs)
            if overloaded:
                types = tuple(dict.fromkeys(type(o) for o in overloaded))
                for obj in overloaded:
                    result = type(obj).__ember_function__(wrapper, types, args, kwargs)
                    if result is not NotImplemented:
                        return result
                raise TypeError(f"no implementation found for '{wrapper.__qualname__}' on types that implement "
                                f"__ember_function__: {list(types)}")
        return fn(*args, **kwargs)
    wrapper.__wrapped_ember__ = fn
    return wrapper


# Tensor attributes that are not operations on the tensor's values.
_NOT_OVERRIDABLE = {
    "__init__", "__new__", "__init_subclass__", "__ember_function__", "__class__", "__dict__", "__getattribute__",
    "__getattr__", "__setattr__", "__delattr__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__",
    "__repr__", "__str__", "__format__", "__hash__", "__dir__", "__sizeof__", "__subclasshook__", "_make_subclass",
    "as_subclass", "__array__", "__array_priority__", "__dlpack__", "__dlpack_device__", "__module__", "__doc__",
    "__weakref__", "__iter__", "__len__",
}


def enable():
    """Installs the checks (done automatically for Tensor subclasses)."""
    global _installed
    if _installed:
        return
    _installed = True
    import ember

    for name in _C._generated_functions:
        fn = getattr(ember, name)
        wrapped = _wrap(fn)
        wrapped.__qualname__ = name
        setattr(ember, name, wrapped)
        _overridable[wrapped] = f"ember.{name}"
    for name, attr in list(vars(_Tensor).items()):
        if name in _NOT_OVERRIDABLE or isinstance(attr, (property, staticmethod, classmethod)) or not callable(attr):
            continue
        if type(attr).__name__ == "instancemethod" or callable(attr):
            wrapped = _wrap(attr)
            wrapped.__qualname__ = f"Tensor.{name}"
            setattr(_Tensor, name, wrapped)
            _overridable[wrapped] = f"ember.Tensor.{name}"


def get_overridable_functions():
    """The wrapped callables (after enable()), by public name."""
    return {v: k for k, v in _overridable.items()}


def _convert(value, cls):
    if isinstance(value, _Tensor) and not isinstance(value, cls):
        return value.as_subclass(cls)
    if isinstance(value, tuple):
        converted = [_convert(v, cls) for v in value]
        return type(value)(*converted) if hasattr(value, "_fields") else tuple(converted)
    if isinstance(value, list):
        return [_convert(v, cls) for v in value]
    return value


def _tensor_ember_function(cls, func, types, args=(), kwargs=None):
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableEmberFunction():
        result = func(*args, **(kwargs or {}))
    if cls is _Tensor:
        return result
    return _convert(result, cls)


def _init_subclass(cls, **kwargs):
    if "__ember_function__" in cls.__dict__:
        enable()


_Tensor.__ember_function__ = classmethod(_tensor_ember_function)
_Tensor.__init_subclass__ = classmethod(_init_subclass)
