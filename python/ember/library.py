"""Defining operators and kernels from Python, like torch.library.

    lib = ember.library.Library("myops", "DEF")
    lib.define("scale(Tensor self, float factor) -> Tensor")
    lib.impl("scale", lambda self, factor: ..., "CPU")

Kernels written in Python run as boxed kernels in the dispatcher. Dropping
the Library (or calling .close()) removes everything it registered.
"""

import collections.abc
import inspect as _inspect
import numbers as _numbers
import typing as _typing

from . import _C
from .autograd.function import Function


class Library:
    def __init__(self, ns, kind, dispatch_key=None):
        self._lib = _C._Library(kind, ns, dispatch_key)
        self.ns = ns
        self.dispatch_key = dispatch_key or ""

    def define(self, schema):
        self._lib.define(schema)
        return self

    def impl(self, name, fn, dispatch_key=None):
        self._lib.impl(name, fn, dispatch_key)
        return self

    def fallthrough(self, name, dispatch_key):
        self._lib.fallthrough(name, dispatch_key)
        return self

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        """Runs ``fn(op, *args, **kwargs)`` for every operator that reaches
        ``dispatch_key`` without a kernel there (a library of namespace "_").
        ``fn`` runs with that key excluded, so ``op(*args, **kwargs)`` inside
        it calls on to the next kernel, which is what a logging or
        redirecting fallback does."""
        if with_keyset:
            raise NotImplementedError("Library.fallback: with_keyset=True is not supported; fn runs with its key "
                                      "excluded, so calling op(*args) inside it reaches the next kernel")
        key = dispatch_key or self.dispatch_key
        if not key:
            raise ValueError("Library.fallback: name the dispatch_key (this library has none)")
        from ._ops import OpOverload

        def kernel(op_name, *args, **kwargs):
            with _C._ExcludeDispatchKey(key):
                return fn(OpOverload(op_name), *args, **kwargs)

        self._lib.fallback(kernel, key)
        return self

    def close(self):
        self._lib = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---- custom_op: an operator from a typed Python function ------------------------------------------------

_SCHEMA_TYPES = {int: "int", float: "float", bool: "bool", str: "str", _numbers.Number: "Scalar"}


def _schema_type(annotation, where):
    import ember

    origin, args = _typing.get_origin(annotation), _typing.get_args(annotation)
    if origin is _typing.Union and type(None) in args and len(args) == 2:
        return _schema_type(next(a for a in args if a is not type(None)), where) + "?"
    if origin in (list, tuple, _typing.Sequence, collections.abc.Sequence) and args:
        return _schema_type(args[0], where) + "[]"
    if annotation is ember.Tensor:
        return "Tensor"
    if annotation is ember.dtype:
        return "ScalarType"
    if annotation is ember.device:
        return "Device"
    if annotation in _SCHEMA_TYPES:
        return _SCHEMA_TYPES[annotation]
    raise ValueError(f"infer_schema: {where} has unsupported type {annotation!r} (supported: Tensor, int, float, "
                     "bool, str, Number, dtype, device, Optional[...] and Sequence[...] of them)")


def _schema_return(annotation, name):
    if annotation is None or annotation is type(None):
        return "()"
    if _typing.get_origin(annotation) is tuple:
        return "(" + ", ".join(_schema_type(a, f"the result of {name}") for a in _typing.get_args(annotation)) + ")"
    return _schema_type(annotation, f"the result of {name}")


def infer_schema(fn, *, mutates_args, op_name=None):
    """The schema of a typed Python function, as torch.library.infer_schema:
    ``def f(x: Tensor, k: int = 2) -> Tensor`` is ``(Tensor x, int k=2) -> Tensor``;
    arguments named in ``mutates_args`` become ``Tensor(a!)``."""
    signature = _inspect.signature(fn)
    hints = _typing.get_type_hints(fn)
    if mutates_args == "unknown":
        mutates_args = [n for n, p in signature.parameters.items() if "Tensor" in str(hints.get(n, ""))]
    mutates_args = set(mutates_args)
    unknown = mutates_args - set(signature.parameters)
    if unknown:
        raise ValueError(f"infer_schema: mutates_args names {sorted(unknown)}, which {fn.__name__} does not take")
    params, kw_only, alias = [], False, iter("abcdefghijklmnopqrstuvwxyz")
    for name, p in signature.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError(f"infer_schema: {fn.__name__} takes *args or **kwargs, which a schema cannot hold")
        if name not in hints:
            raise ValueError(f"infer_schema({fn.__name__}): Parameter {name} must have a type annotation.")
        text = _schema_type(hints[name], f"parameter {name}")
        if name in mutates_args:
            if not text.startswith("Tensor"):
                raise ValueError(f"infer_schema: {name} is in mutates_args but is not a Tensor")
            text = text.replace("Tensor", f"Tensor({next(alias)}!)", 1)
        if p.kind == p.KEYWORD_ONLY and not kw_only:
            params.append("*")
            kw_only = True
        default = ""
        if p.default is not p.empty:
            default = "=None" if p.default is None else f"={p.default!r}".replace("'", '"')
        params.append(f"{text} {name}{default}")
    if "return" not in hints:
        raise ValueError(f"infer_schema({fn.__name__}): the return type must be annotated")
    prefix = f"{op_name}" if op_name else ""
    return f"{prefix}({', '.join(params)}) -> {_schema_return(hints['return'], fn.__name__)}"


_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}


def _device_key(device_type):
    from . import _C

    name = device_type if isinstance(device_type, str) else device_type.type
    if name == _C._get_privateuse1_backend_name():
        return "PrivateUse1"
    if name not in _DEVICE_KEYS:
        raise ValueError(f"custom_op: unknown device type '{name}'")
    return _DEVICE_KEYS[name]


class CustomOpDef:
    """An operator made by ``custom_op``: callable like the function it
    wraps, reachable as ``ember.ops.<ns>.<name>``, with ``register_fake``
    (the Meta kernel: shapes and dtypes only), ``register_kernel`` (one
    device's implementation) and ``register_autograd`` (a backward that
    replaces differentiating through the implementation)."""

    def __init__(self, qualified_name, fn, mutates_args, device_types, schema):
        if "::" not in qualified_name:
            raise ValueError(f"custom_op: the name must be 'namespace::name', got '{qualified_name}'")
        self._namespace, self._name = qualified_name.split("::", 1)
        self._fn = fn
        self._lib = Library(self._namespace, "FRAGMENT")
        self._lib.define(self._name + (schema or infer_schema(fn, mutates_args=mutates_args)))
        self._backward = self._setup_context = None
        keys = ["CompositeExplicitAutograd"] if device_types is None else [
            _device_key(d) for d in ([device_types] if isinstance(device_types, str) else device_types)]
        for key in keys:
            self._lib.impl(self._name, fn, key)
        self.__name__, self.__doc__ = fn.__name__, fn.__doc__

    @property
    def _opoverload(self):
        from . import ops

        return getattr(getattr(ops, self._namespace), self._name)

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def register_kernel(self, device_types, fn=None):
        def register(fn):
            for d in [device_types] if isinstance(device_types, str) else device_types:
                self._lib.impl(self._name, fn, _device_key(d))
            return fn
        return register(fn) if fn is not None else register

    def register_fake(self, fn):
        self._lib.impl(self._name, fn, "Meta")
        return fn

    def register_autograd(self, backward, *, setup_context=None):
        """backward(ctx, *grads) gives one gradient per input (None for the
        non-tensors); setup_context(ctx, inputs, output) saves what it needs."""
        self._backward, self._setup_context = backward, setup_context
        self._lib.impl(self._name, self._autograd_kernel, "Autograd")

    def _autograd_kernel(self, *args):
        return _CustomOpFunction.apply(self, *args)


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """Makes a Python function an operator, as torch.library.custom_op:

        @ember.library.custom_op("mylib::scale", mutates_args=())
        def scale(x: ember.Tensor, factor: float) -> ember.Tensor:
            return x * factor
    """
    def wrap(fn):
        return CustomOpDef(name, fn, mutates_args, device_types, schema)
    return wrap(fn) if fn is not None else wrap


class _CustomOpFunction(Function):
    """A custom op with a registered backward: forward calls the op below
    Autograd, backward is the user's (with None for the op argument)."""

    @staticmethod
    def forward(ctx, op, *args):
        with _C._ExcludeDispatchKey("Autograd"):
            output = op._opoverload(*args)
        ctx._op = op
        if op._setup_context is not None:
            op._setup_context(ctx, args, output)
        return output

    @staticmethod
    def backward(ctx, *grads):
        result = ctx._op._backward(ctx, *grads)
        return (None,) + (tuple(result) if isinstance(result, (tuple, list)) else (result,))
