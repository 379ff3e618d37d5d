"""ember.cpu: torch.cpu's device functions, for scripts written against any
device module (``getattr(torch, device_type)``), and ``ember.cpu.amp``."""

from . import amp  # noqa: F401


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """CPU ops finish before they return: nothing to wait for."""
