"""ember.autograd.Function: differentiable operations defined in Python.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    Exp.apply(x)
"""

import functools

from .. import _C
from .grad_mode import no_grad

_ag = _C._autograd
_Tensor = _C.Tensor


class FunctionCtx:
    """The ``ctx`` that forward fills in and backward reads."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._to_save = tensors

    @property
    def saved_tensors(self):
        if not hasattr(self, "_saved_tensors"):
            if hasattr(self, "_to_save"):
                return self._to_save
            return ()
        return self._saved_tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self._materialize_grads = bool(value)


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_name = name + "Backward"


class Function(metaclass=_FunctionMeta):
    """Base class: define static ``forward(ctx, *args)`` and
    ``backward(ctx, *grads)`` (or forward without ctx plus
    ``setup_context(ctx, inputs, output)``), call ``apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward
    setup_context = None

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        grad_enabled = _ag.is_grad_enabled()
        ctx.needs_input_grad = tuple(grad_enabled and isinstance(a, _Tensor) and a.requires_grad for a in args)
        with no_grad():
            if cls.setup_context is not None and cls.setup_context is not Function.setup_context:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)

        is_tuple = isinstance(output, tuple)
        outputs = output if is_tuple else (output,)
        tensor_positions = [i for i, o in enumerate(outputs) if isinstance(o, _Tensor)]
        input_positions = [i for i, a in enumerate(args) if isinstance(a, _Tensor)]
        num_args = len(args)
        backward = cls.backward if cls.backward is not Function.backward else cls.vjp

        def run_backward(saved, grads):
            ctx._saved_tensors = tuple(saved)
            # Non-tensor outputs get no gradient; backward sees one per output.
            full = [None] * len(outputs)
            for pos, g in zip(tensor_positions, grads):
                full[pos] = g
            result = backward(ctx, *full)
            if not isinstance(result, tuple):
                result = (result,)
            if len(result) != num_args:
                if len(result) > num_args and all(r is None for r in result[num_args:]):
                    result = result[:num_args]
                else:
                    raise RuntimeError(f"function {cls._backward_name} returned an incorrect number of gradients "
                                       f"(expected {num_args}, got {len(result)})")
            grads_for_tensors = []
            for pos in input_positions:
                g = result[pos]
                if g is not None and not isinstance(g, _Tensor):
                    raise TypeError(f"function {cls._backward_name} returned a gradient of type "
                                    f"{type(g).__name__} at index {pos}; expected a Tensor or None")
                grads_for_tensors.append(g)
            for pos, a in enumerate(args):
                if not isinstance(a, _Tensor) and result[pos] is not None:
                    raise RuntimeError(f"function {cls._backward_name} returned a gradient different than None at "
                                       f"position {pos + 1}, but the corresponding forward input was not a Variable")
            return grads_for_tensors

        wrapped, _node = _ag._finish_function(
            cls._backward_name, run_backward, [args[i] for i in input_positions],
            [outputs[i] for i in tensor_positions], list(getattr(ctx, "_dirty", ())),
            list(getattr(ctx, "_non_differentiable", ())), list(getattr(ctx, "_to_save", ())),
            getattr(ctx, "_materialize_grads", True))
        if hasattr(ctx, "_to_save"):
            del ctx._to_save  # now held (version-checked) by the node
        outputs = list(outputs)
        for pos, t in zip(tensor_positions, wrapped):
            outputs[pos] = t
        return tuple(outputs) if is_tuple else outputs[0]


def once_differentiable(fn):
    """For backward functions that cannot be differentiated again: they run
    without recording, even under create_graph."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _ag.is_grad_enabled() or not any(isinstance(a, _Tensor) and a.requires_grad for a in args):
            return outputs
        # Under create_graph: differentiating these results again must fail
        # loudly rather than give a silently missing gradient.
        single = not isinstance(outputs, tuple)
        wrapped = tuple(_DelayedError.apply(o) if isinstance(o, _Tensor) else o
                        for o in ((outputs,) if single else outputs))
        return wrapped[0] if single else wrapped
    return wrapper


class _DelayedError(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")
