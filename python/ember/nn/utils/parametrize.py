"""Parametrizations (torch.nn.utils.parametrize): a module's tensor computed
on each access from an `original` one by small modules, e.g. a weight kept
normalized or orthogonal.

Registering one gives the module a class of its own (a subclass named
Parametrized<Class>) with a property for the tensor, and moves the original
under ``module.parametrizations[name].original`` (or original0, original1,
... when right_inverse splits it), which is where state_dicts find it."""

import contextlib

import ember

from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["register_parametrization", "is_parametrized", "remove_parametrizations", "cached",
           "type_before_parametrizations", "transfer_parametrizations_and_params", "ParametrizationList"]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Inside the block each parametrized tensor is computed once and reused."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _as_parameter_like(original, value):
    return Parameter(value, original.requires_grad) if isinstance(original, Parameter) else value


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to ``original`` (or to original0, original1, ...)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with ember.no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        if isinstance(new, ember.Tensor):
            self.is_tensor = True
            self.ntensors = 1
            # The original keeps its identity (optimizers may hold it): its data becomes the inverse.
            with ember.no_grad():
                if new is not original:
                    original.data = new.detach().clone()
            self._register_original("original", original)
        else:
            if not isinstance(new, (list, tuple)):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple). "
                                 f"Got {type(new).__name__}")
            self.is_tensor = False
            self.ntensors = len(new)
            for i, t in enumerate(new):
                if not isinstance(t, ember.Tensor):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(t).__name__}.")
                self._register_original(f"original{i}", _as_parameter_like(original, t.detach().clone()))
        if not unsafe:
            value = self()
            if not isinstance(value, ember.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
            if value.dtype != original_dtype:
                raise ValueError(f"Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {value.dtype}")
            if value.shape != original_shape:
                raise ValueError(f"Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {value.shape}")

    def _register_original(self, name, tensor):
        if isinstance(tensor, Parameter):
            self.register_parameter(name, tensor)
        else:
            self.register_buffer(name, tensor)

    def right_inverse(self, value):
        """Sets the originals so that the parametrized tensor becomes ``value``."""
        with ember.no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                elif not self.unsafe:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
            if self.is_tensor:
                self.original.copy_(value)
            else:
                for i, t in enumerate(value):
                    getattr(self, f"original{i}").copy_(t)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module):
    cls = module.__class__

    def getstate(self):
        raise RuntimeError("Serialization of parametrized modules is only supported through state_dict().")

    param_cls = type(f"Parametrized{cls.__name__}", (cls,), {"__getstate__": getstate})
    module.__class__ = param_cls


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            if key not in _cache:
                _cache[key] = parametrization()
            return _cache[key]
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module, tensor_name=None):
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes ``module.<tensor_name>`` the output of ``parametrization`` applied to the original tensor."""
    if not isinstance(parametrization, Module):
        raise TypeError(f"register_parametrization: expected an nn.Module parametrization, got "
                        f"{type(parametrization).__name__}")
    if is_parametrized(module, tensor_name):
        if not unsafe:
            value = getattr(module, tensor_name)
            new = parametrization(value)
            if new.shape != value.shape or new.dtype != value.dtype:
                raise ValueError("Registering a parametrization may not change the shape or dtype of the tensor, "
                                 "unless the `unsafe` flag is enabled.")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
        return module
    if tensor_name not in module._buffers and tensor_name not in module._parameters:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    original = getattr(module, tensor_name)
    parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _inject_new_class(module)
        module.parametrizations = ModuleDict()
    _inject_property(module, tensor_name)
    module.parametrizations[tensor_name] = parametrizations
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undoes register_parametrization: ``module.<tensor_name>`` becomes a plain tensor again, holding the
    parametrized value (leave_parametrized) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with ember.no_grad():
                value = getattr(module, tensor_name)
                if value.shape == original.shape and value.dtype == original.dtype:
                    original.copy_(value)
                else:
                    original = _as_parameter_like(original, value.detach().clone())
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        with ember.no_grad():
            value = getattr(module, tensor_name)
        original = Parameter(value.detach().clone(), value.requires_grad) if \
            isinstance(parametrizations.original0, Parameter) else value.detach().clone()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before parametrizations gave it one of its own."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Registers from_module's parametrizations (and their originals) on to_module."""
    if not is_parametrized(from_module):
        raise ValueError(f"from_module {from_module} is not parametrized")
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations)
    for name in names:
        if not hasattr(to_module, name) or not is_parametrized(to_module, name):
            if not is_parametrized(to_module, name) and name not in to_module._parameters and \
                    name not in to_module._buffers:
                setattr(to_module, name, Parameter(getattr(from_module, name).detach().clone()))
            for parametrization in from_module.parametrizations[name]:
                register_parametrization(to_module, name, parametrization)
        source = from_module.parametrizations[name]
        target = to_module.parametrizations[name]
        with ember.no_grad():
            if source.is_tensor:
                target.original.copy_(source.original)
            else:
                for i in range(source.ntensors):
                    getattr(target, f"original{i}").copy_(getattr(source, f"original{i}"))
    return to_module
