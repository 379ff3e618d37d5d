"""ember.compiler: torch.compiler's controls. Ember runs every model eagerly (see ember.compile), so
code is never being compiled, excluding a function from compilation leaves it as it is, and the
calls that steer a compiler have nothing to change."""

import contextlib

from ._compile import _BACKENDS, compile

__all__ = ["allow_in_graph", "assume_constant_result", "compile", "cudagraph_mark_step_begin", "disable",
           "is_compiling", "is_dynamo_compiling", "is_exporting", "list_backends", "reset", "set_stance",
           "substitute_in_graph"]


def is_compiling():
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """``fn`` unchanged (as a decorator with or without arguments)."""
    return (lambda f: f) if fn is None else fn


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def substitute_in_graph(original_fn, *, can_constant_fold_through=False, skip_signature_check=False):
    return lambda fn: fn


def list_backends(exclude_tags=("debug", "experimental")):
    return sorted(b for b in _BACKENDS if b not in ("eager", "aot_eager") or not exclude_tags)


def reset():
    pass


def cudagraph_mark_step_begin():
    pass


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    """Usable as a call, a context manager or a decorator, as torch's; there is no compiler to steer."""
    if stance not in ("default", "force_eager", "eager_on_recompile", "fail_on_recompile", "eager_then_compile",
                      "aot_eager_then_compile"):
        raise RuntimeError(f"invalid torch.compile stance '{stance}'")
    return _Stance()


class _Stance(contextlib.ContextDecorator):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
