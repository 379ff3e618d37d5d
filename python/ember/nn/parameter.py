"""Parameter and Buffer: the tensors a Module registers (``torch.nn.parameter``)."""

from collections import OrderedDict

from ember import _C

Tensor = _C.Tensor

__all__ = ["Parameter", "Buffer", "is_lazy"]


class Parameter(Tensor):
    r"""A Tensor that is a module parameter.

    Assigning a Parameter as a Module attribute registers it in the module's
    parameters. ``Parameter(data)`` is a leaf that shares ``data``'s storage.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty([0])
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter data must be a Tensor, not {type(data).__name__}")
        return Tensor._make_subclass(cls, data.detach(), requires_grad)

    def __init__(self, data=None, requires_grad=True):  # everything happens in __new__
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        # The detached data pickles as a plain tensor (Tensor.__reduce__).
        return (_rebuild_parameter, (self.detach(), self.requires_grad, OrderedDict()))

    __hash__ = Tensor.__hash__


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return Parameter(data, requires_grad)


class _BufferMeta(type):
    # Buffer(x) returns a plain tensor flagged as a buffer, as in torch.
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    r"""Marks a tensor as a buffer when assigned to a Module attribute.

    ``Buffer(data, persistent=True)`` returns a detached tensor flagged so
    that ``module.name = Buffer(t)`` registers it with ``register_buffer``.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.empty([0])
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param):
    return False
