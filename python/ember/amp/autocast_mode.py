"""autocast: the context manager (and decorator) that scripts wrap their
forward passes in."""

import functools
import warnings

import ember

_DEFAULT_DTYPES = {"cuda": "float16", "cpu": "bfloat16"}
_enabled = {"cpu": False, "cuda": False}


def is_autocast_available(device_type):
    return device_type in _DEFAULT_DTYPES


def is_autocast_enabled(device_type="cuda"):
    return _enabled.get(device_type, False)


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
        self._previous = _enabled[self.device]
        _enabled[self.device] = self._enabled
        return self

    def __exit__(self, *exc):
        _enabled[self.device] = self._previous
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def wrapped(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return wrapped
