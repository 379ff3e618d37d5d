"""ember.jit: the decorators and queries that eager code and libraries use
(``torch.jit.is_scripting()``, ``@torch.jit.ignore``, ...).

Ember runs Python eagerly: ``script`` gives back what it was handed, so a
scripted function or module computes exactly what it computes eagerly
(there is no TorchScript compiler to hand it to). ``trace``, which records a
program to run without Python, is not there yet and says so.
"""

import typing

__all__ = ["Final", "export", "ignore", "is_scripting", "is_tracing", "script", "trace", "unused"]

Final = typing.Final


def is_scripting():
    """False: Ember code always runs as Python."""
    return False


def is_tracing():
    """False: nothing traces Ember programs yet."""
    return False


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``obj`` itself, run eagerly."""
    return obj


def _decorator(fn=None, **_options):
    # Usable both as @ignore and as @ignore(drop=True).
    if fn is None:
        return lambda f: f
    return fn


ignore = unused = export = _decorator


def trace(func, example_inputs=None, *args, **kwargs):
    raise NotImplementedError("ember.jit.trace: tracing programs is not supported by Ember yet; call the module or "
                              "function directly")
