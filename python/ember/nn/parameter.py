"""Parameter and Buffer: the tensors a Module registers (``torch.nn.parameter``)."""

from collections import OrderedDict

from ember import _C

Tensor = _C.Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


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


class UninitializedTensorMixin:
    """A placeholder whose shape is not known yet (lazy modules); ``materialize`` gives it one and turns it into
    its ``cls_to_become``. Until then it holds no elements. (torch also refuses every operation on it through
    __torch_function__; defining __ember_function__ here would put that check on every call of every user.)"""

    def materialize(self, shape, device=None, dtype=None):
        import ember

        data = ember.empty(list(shape), device=device or self.device, dtype=dtype or self.dtype)
        self.__class__ = self.cls_to_become
        with ember.no_grad():
            self.data = data
        return self

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Tensor._make_subclass(cls, _C.empty([0], device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return Tensor._make_subclass(cls, _C.empty([0], device=device, dtype=dtype), requires_grad)


def is_lazy(param):
    return isinstance(param, UninitializedTensorMixin)
