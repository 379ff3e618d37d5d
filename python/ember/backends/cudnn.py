"""cuDNN: not part of Ember (its CUDA backend has its own kernels), so
``is_available()`` is False; the flags scripts set are kept and reported."""

import contextlib
import sys

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available():
    return False


def version():
    return None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Sets the flags for the duration of a ``with`` block."""
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    values = (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
    saved = {name: getattr(module, name) for name in names}
    for name, value in zip(names, values):
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
