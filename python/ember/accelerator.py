"""ember.accelerator: the device beside the CPU that scripts should use, as
torch.accelerator. CUDA is Ember's only accelerator so far; without a GPU
there is none: ``is_available()`` is False and ``current_accelerator()``
None."""

import ember

from . import cuda as _cuda


def is_available():
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """The accelerator's device type as a device (``device(type='cuda')``),
    or None when there is none."""
    return ember.device("cuda") if _cuda.is_available() else None


def device_count():
    return _cuda.device_count()


def current_device_index():
    return _cuda.current_device()


def set_device_index(device):
    _cuda.set_device(device)


def synchronize(device=None):
    _cuda.synchronize(device)
