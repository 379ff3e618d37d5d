"""Naming an out-of-tree backend, as torch.utils.rename_privateuse1_backend:
the PrivateUse1 device type takes the backend's name ('npu', 'foo'), so
that ``device='foo:0'``, ``x.to('foo')`` and printed devices use it, and
``generate_methods_for_privateuse1_backend`` adds ``Tensor.is_foo``,
``Tensor.foo()`` and ``Module.foo()`` as ``is_cuda`` / ``cuda()`` are."""

import sys

import ember

from .. import _C

__all__ = ["generate_methods_for_privateuse1_backend", "rename_privateuse1_backend"]


def rename_privateuse1_backend(backend_name):
    """Names the PrivateUse1 device type (once per process; the same name again is fine)."""
    _C._rename_privateuse1_backend(backend_name)


def _register_device_module(device_type, module):
    """Makes ``module`` reachable as ``ember.<device_type>`` (the backend's is_available, device_count, ...)."""
    device_type = ember.device(device_type).type
    if hasattr(ember, device_type):
        raise RuntimeError(f"The runtime module of '{device_type}' has already been registered with "
                           f"'{getattr(ember, device_type)}'")
    setattr(ember, device_type, module)
    sys.modules[f"ember.{device_type}"] = module


def generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_packed_sequence=True,
                                             for_storage=False, unsupported_dtype=None):
    """Adds the backend's spellings of is_cuda / cuda() to Tensor, Module and PackedSequence."""
    name = _C._get_privateuse1_backend_name()
    if name == "privateuseone":
        raise RuntimeError("generate_methods_for_privateuse1_backend: name the backend first with "
                           "ember.utils.rename_privateuse1_backend")
    if for_storage:
        raise NotImplementedError("generate_methods_for_privateuse1_backend: Ember has no typed storages "
                                  "(for_storage=True is not supported)")
    unsupported = tuple(unsupported_dtype or ())

    def to_backend(self, device=None, non_blocking=False, **kwargs):
        if self.dtype in unsupported:
            raise RuntimeError(f"Can not create tensor on {name} with dtype {self.dtype}")
        index = device if isinstance(device, int) else None
        target = ember.device(name, index) if index is not None else ember.device(device or name)
        if target.type != name:
            raise RuntimeError(f"Invalid device, must be {name} device")
        return self.to(target, non_blocking=non_blocking)

    if for_tensor:
        _add(ember.Tensor, f"is_{name}", property(lambda self: self.device.type == name))
        _add(ember.Tensor, name, to_backend)
    if for_module:
        _add(ember.nn.Module, name, lambda self, device=None: self._apply(lambda t: to_backend(t, device)))
    if for_packed_sequence:
        from ..nn.utils.rnn import PackedSequence

        _add(PackedSequence, f"is_{name}", property(lambda self: self.data.device.type == name))
        _add(PackedSequence, name, lambda self, *args, **kwargs: self.to(ember.device(name), *args, **kwargs))


def _add(cls, attribute, value):
    if hasattr(cls, attribute):
        raise RuntimeError(f"The custom device '{attribute}' is already an attribute of {cls.__name__}")
    setattr(cls, attribute, value)
