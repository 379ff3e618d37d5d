"""ember.cuda: the CUDA devices, as ``torch.cuda``.

Works on every machine: where no GPU (or no driver) is present,
``is_available()`` is False, ``device_count()`` is 0 and the calls that need
a device raise an error that says why. Seeding without a device does
nothing, as in PyTorch.
"""

import os as _os
import sys as _sys

from .. import _C

OutOfMemoryError = _C.OutOfMemoryError

_TYPE = "cuda"


def _find_cublas():
    """Points Ember at the cuBLAS of the nvidia-cublas wheel, when installed.

    Ember loads cuBLAS on the first matrix product (so that importing it never
    needs one); the wheel's copy is not on the loader's search path.
    """
    if _os.environ.get("EMBER_CUBLAS_LIBRARY"):
        return
    for entry in _sys.path:
        for sub in ("cu13", "cublas"):
            candidate = _os.path.join(entry or ".", "nvidia", sub, "lib", "libcublas.so.13")
            if _os.path.exists(candidate):
                _os.environ["EMBER_CUBLAS_LIBRARY"] = candidate
                return


_find_cublas()


def is_available():
    """Whether a CUDA device can be used."""
    return _C._device_count(_TYPE) > 0


def is_initialized():
    """Whether CUDA has been set up in this process (never without a device)."""
    return is_available()


def device_count():
    """The number of usable CUDA devices (0 without a GPU or driver)."""
    return _C._device_count(_TYPE)


def _unavailable_reason():
    return _C._device_unavailable_reason(_TYPE)


def _lazy_check():
    if not is_available():
        raise RuntimeError(f"CUDA is not available: {_unavailable_reason()}")


def _index(device):
    """The device index of ``device`` (None: the current device)."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _C.device(device)
    if device.type != _TYPE:
        raise ValueError(f"Expected a cuda device, but got: {device}")
    return current_device() if device.index is None else device.index


def current_device():
    _lazy_check()
    return _C._current_device(_TYPE)


def set_device(device):
    index = _index(device)
    if index >= 0:
        _C._set_device(_TYPE, index)


def synchronize(device=None):
    """Waits for all work queued on ``device``."""
    _C._device_synchronize(_TYPE, _index(device))


def get_device_name(device=None):
    return _C._device_name(_TYPE, _index(device))


def is_bf16_supported(including_emulation=True):
    # No bfloat16 CUDA kernels yet: say so rather than let a script pick them.
    return False


class device:
    """Context manager that makes ``idx`` the current CUDA device."""

    def __init__(self, idx):
        self.idx = -1 if idx is None else _index(idx)
        self.prev = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev = current_device()
            if self.prev != self.idx:
                set_device(self.idx)

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev != self.idx:
            set_device(self.prev)
        return False


def manual_seed(seed):
    """Seeds the CUDA generators; without a device it does nothing (as torch)."""
    # CUDA random kernels are not there yet: nothing draws from a CUDA generator.
    int(seed)


def manual_seed_all(seed):
    manual_seed(seed)


def get_rng_state_all():
    """One state per device: an empty list without a device (as torch)."""
    if device_count():
        raise NotImplementedError("ember.cuda.get_rng_state_all: CUDA generators are not supported by Ember yet")
    return []


def set_rng_state_all(new_states):
    if list(new_states):
        raise NotImplementedError("ember.cuda.set_rng_state_all: CUDA generators are not supported by Ember yet")


def seed():
    pass


def seed_all():
    pass


# ---- memory -------------------------------------------------------------------


def memory_stats(device=None):
    """The caching allocator's counters for ``device`` (PyTorch's key names);
    empty where CUDA is not available, as torch's before CUDA is initialized."""
    if not is_available():
        return {}
    return dict(_C._device_memory_stats(_TYPE, _index(device)))


def memory_allocated(device=None):
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None):
    if is_available():
        _C._device_reset_peak_memory_stats(_TYPE, _index(device))


def empty_cache():
    """Returns the cached, unused blocks to the device (no-op without one)."""
    _C._device_empty_cache(_TYPE)
