"""autocast: the context manager (and decorator) that scripts wrap their
forward passes in, over the per-thread state in ember._C (what the
dispatcher's autocast keys read)."""

import functools
import warnings

import ember
from ember import _C

from . import _python_ops

_SUPPORTED_DTYPES = {"cpu": ("bfloat16", "float16"), "cuda": ("float16", "bfloat16")}


def is_autocast_available(device_type):
    """Whether autocast has a policy for ``device_type`` ("cpu", "cuda")."""
    try:
        return _C._is_autocast_available(device_type)
    except (RuntimeError, ValueError):
        return False


def _checked(device_type):
    if not is_autocast_available(device_type):
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


def is_autocast_enabled(device_type=None):
    """Whether an autocast region for ``device_type`` (CUDA when not given,
    as in torch) is on in this thread."""
    return _C._is_autocast_enabled(_checked(device_type or "cuda"))


def set_autocast_enabled(device_type, enabled=None):
    if enabled is None:  # torch's older one-argument form, for CUDA
        device_type, enabled = "cuda", device_type
    _C._set_autocast_enabled(_checked(device_type), bool(enabled))


def get_autocast_dtype(device_type):
    """The lower-precision dtype autocast uses on ``device_type``."""
    return _C._get_autocast_dtype(_checked(device_type))


def set_autocast_dtype(device_type, dtype):
    _C._set_autocast_dtype(_checked(device_type), dtype)


def is_autocast_cache_enabled():
    return _C._is_autocast_cache_enabled()


def set_autocast_cache_enabled(enabled):
    _C._set_autocast_cache_enabled(bool(enabled))


def clear_autocast_cache():
    _C._clear_autocast_cache()


def autocast_increment_nesting():
    return _C._autocast_increment_nesting()


def autocast_decrement_nesting():
    return _C._autocast_decrement_nesting()


def is_autocast_cpu_enabled():
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    return get_autocast_dtype("cuda")


class autocast:
    """Runs the ops of a region in mixed precision: matrix products and
    convolutions in ``dtype`` (bfloat16 on CPU, float16 on CUDA by default),
    ops that need range in float32, mixed-input ops in their widest input
    dtype, as torch's policy tables say. A context manager and a decorator."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = ember.device(device_type).type  # torch's error for an unknown device type
        _checked(self.device)
        self.fast_dtype = dtype if dtype is not None else get_autocast_dtype(self.device)
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        self._enabled = bool(enabled)
        if self._enabled and self.device == "cuda" and not ember.cuda.is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
            self._enabled = False
        supported = [getattr(ember, name) for name in _SUPPORTED_DTYPES[self.device]]
        if self._enabled and self.fast_dtype not in supported:
            names = ", ".join(f"torch.{name}" for name in _SUPPORTED_DTYPES[self.device])
            warnings.warn(f"In {self.device.upper()} autocast, but the target dtype is not supported. Disabling "
                          f"autocast.\n{self.device.upper()} Autocast only supports dtype of {names} currently.")
            self._enabled = False

    def __enter__(self):
        self._previous = (_C._is_autocast_enabled(self.device), get_autocast_dtype(self.device),
                          is_autocast_cache_enabled())
        _C._set_autocast_enabled(self.device, self._enabled)
        _C._set_autocast_dtype(self.device, self.fast_dtype)
        _C._set_autocast_cache_enabled(self._cache_enabled)
        _C._autocast_increment_nesting()
        if self._enabled:
            _python_ops.region_opened()
        return self

    def __exit__(self, *exc):
        if _C._autocast_decrement_nesting() == 0:
            _C._clear_autocast_cache()  # the outermost region drops its cached weight casts
        enabled, dtype, cache_enabled = self._previous
        _C._set_autocast_enabled(self.device, enabled)
        _C._set_autocast_dtype(self.device, dtype)
        _C._set_autocast_cache_enabled(cache_enabled)
        if self._enabled:
            _python_ops.region_closed()
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def wrapped(*args, **kwargs):
            with autocast(self.device, dtype=self.fast_dtype, enabled=self._enabled,
                          cache_enabled=self._cache_enabled):
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
