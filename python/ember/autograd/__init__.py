"""Automatic differentiation: backward/grad, grad modes, custom functions,
anomaly detection and gradient checking.

The graph is recorded by the C++ operators; this package is the Python face
of the engine in ``ember._C._autograd``.
"""

import contextlib
import warnings

from .. import _C
from . import forward_ad, graph  # noqa: F401
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401

_ag = _C._autograd
_Tensor = _C.Tensor


@contextlib.contextmanager
def _anomaly_report():
    """Under anomaly mode, a failing backward also warns with the traceback
    of the forward call behind the failing node."""
    _ag._take_anomaly_report()
    try:
        yield
    except RuntimeError:
        report = _ag._take_anomaly_report()
        if report:
            warnings.warn(report, stacklevel=4)
        raise


def _as_list(x, what):
    if x is None:
        return None
    if isinstance(x, _Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return list(x)
    raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, not {type(x).__name__}")


def _grads(grads, n, what):
    if grads is None:
        return [None] * n
    grads = _as_list(grads, what)
    if len(grads) != n:
        raise RuntimeError(f"{what} has {len(grads)} entries but {n} were expected")
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of ``tensors`` into the ``.grad`` of every
    leaf they depend on (or only of ``inputs``)."""
    tensors = _as_list(tensors, "tensors")
    inputs = _as_list(inputs, "inputs")
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    inputs = inputs or []
    with _anomaly_report():
        _ag.backward(tensors, _grads(grad_tensors, len(tensors), "grad_tensors"), retain_graph, create_graph,
                     inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned as a
    tuple (nothing is accumulated into ``.grad``)."""
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported")
    outputs = _as_list(outputs, "outputs")
    inputs = _as_list(inputs, "inputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    with _anomaly_report():
        result = _ag.grad(outputs, inputs, _grads(grad_outputs, len(outputs), "grad_outputs"), retain_graph,
                          create_graph, allow_unused)
    if materialize_grads:
        result = [r if r is not None else _C.zeros_like(i) for r, i in zip(result, inputs)]
    return tuple(result)


class _ExecutionEngine:
    """torch.autograd.Variable._execution_engine: the engine's hooks for libraries."""

    @staticmethod
    def queue_callback(callback):
        """Runs ``callback()`` once the running backward pass has finished all its nodes (DDP's
        end-of-backward step). RuntimeError outside a backward pass."""
        _ag.queue_callback(callback)


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-1.0 wrapper, for old scripts: ``Variable(t, requires_grad=True)``
    is a new leaf over t's data, and every tensor is a Variable."""

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data, requires_grad=False, volatile=False):
        if volatile:
            import warnings

            warnings.warn("volatile was removed and now has no effect. Use `with ember.no_grad():` instead.",
                          stacklevel=2)
        if not isinstance(data, _Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)


def __getattr__(name):
    # ember.autograd.functional builds on ember.func, which needs the rest of ember (and profiler on
    # ember.profiler): loaded on first use.
    if name in ("functional", "profiler"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")
