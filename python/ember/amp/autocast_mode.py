"""autocast: the context manager (and decorator) that scripts wrap their
forward passes in."""

import functools
import warnings

import ember

_DEFAULT_DTYPES = {"cuda": "float16", "cpu": "bfloat16"}
_enabled = {"cpu": False, "cuda": False}
_dtype = {}  # device type -> the dtype of the innermost autocast region, where one set it


def is_autocast_available(device_type):
    return device_type in _DEFAULT_DTYPES


def is_autocast_enabled(device_type="cuda"):
    return _enabled.get(device_type, False)


def get_autocast_dtype(device_type):
    """The lower-precision dtype autocast uses on ``device_type``."""
    if not is_autocast_available(device_type):
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return _dtype.get(device_type) or getattr(ember, _DEFAULT_DTYPES[device_type])


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = ember.device(device_type).type  # torch's error for an unknown device type
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        self.fast_dtype = dtype if dtype is not None else getattr(ember, _DEFAULT_DTYPES[self.device])
        self._enabled = bool(enabled)
        if self._enabled and self.device == "cuda" and not ember.cuda.is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
            self._enabled = False
        if self._enabled:
            raise NotImplementedError(
                f"ember.autocast: mixed precision on {self.device} is not implemented yet; run in full precision "
                f"(enabled=False)")

    def __enter__(self):
        self._previous = _enabled[self.device], _dtype.get(self.device)
        _enabled[self.device], _dtype[self.device] = self._enabled, self.fast_dtype
        return self

    def __exit__(self, *exc):
        _enabled[self.device], _dtype[self.device] = self._previous
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def wrapped(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return wrapped


def _cast_floating(value, dtype):
    if isinstance(value, ember.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floating(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_floating(v, dtype) for k, v in value.items()}
    return value


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates a custom autograd.Function's ``forward``: it remembers
    whether autocast was on (for ``custom_bwd``), and with ``cast_inputs``
    runs with autocast off, its floating inputs cast to that dtype, where
    autocast was on."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(ctx, *args, **kwargs):
        active = is_autocast_enabled(device_type)
        ctx._autocast_dtype = get_autocast_dtype(device_type)
        ctx._fwd_used_autocast = active and cast_inputs is None
        if not active or cast_inputs is None:
            return fwd(ctx, *args, **kwargs)
        with autocast(device_type, enabled=False):
            return fwd(ctx, *_cast_floating(args, cast_inputs), **_cast_floating(kwargs, cast_inputs))

    return forward


def custom_bwd(bwd=None, *, device_type):
    """Decorates the matching ``backward``: it runs under the autocast state
    its forward saw."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(ctx, *grads):
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._autocast_dtype):
            return bwd(ctx, *grads)

    return backward
