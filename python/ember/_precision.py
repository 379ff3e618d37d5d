"""Global numeric switches that scripts set: the float32 matmul precision
and deterministic algorithms. Ember's CPU kernels always compute float32
products in float32 and are deterministic, so the settings are kept and
reported, as PyTorch's CPU build does."""

_PRECISIONS = ("highest", "high", "medium")
_state = {"precision": "highest", "deterministic": False, "warn_only": False}


def set_float32_matmul_precision(precision):
    """"highest", "high" or "medium", as torch.set_float32_matmul_precision."""
    if precision not in _PRECISIONS:
        raise RuntimeError(f"Invalid precision {precision!r}: expected one of {', '.join(_PRECISIONS)}")
    _state["precision"] = precision


def get_float32_matmul_precision():
    return _state["precision"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    _state["deterministic"] = mode
    _state["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]
