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


class _CudaDeviceProperties:
    """What ``get_device_properties`` reports: name, total_memory (bytes), major, minor,
    multi_processor_count."""

    def __init__(self, fields):
        self.__dict__.update(fields)

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    _lazy_check()
    return _CudaDeviceProperties(_C._device_properties(_TYPE, _index(device)))


def get_device_name(device=None):
    return get_device_properties(device).name


def get_device_capability(device=None):
    properties = get_device_properties(device)
    return properties.major, properties.minor


def mem_get_info(device=None):
    """(free bytes, total bytes) on the device."""
    _lazy_check()
    return tuple(_C._device_mem_get_info(_TYPE, _index(device)))


def is_tf32_supported():
    return is_available() and get_device_capability() >= (8, 0)


def can_device_access_peer(device, peer_device):
    _lazy_check()
    return _index(device) == _index(peer_device)


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


def get_rng_state(device="cuda"):
    _lazy_check()
    raise NotImplementedError("ember.cuda.get_rng_state: CUDA generators are not supported by Ember yet")


def set_rng_state(new_state, device="cuda"):
    # Without a device there is no generator to set: nothing to do, as torch.
    if is_available():
        raise NotImplementedError("ember.cuda.set_rng_state: CUDA generators are not supported by Ember yet")


def initial_seed():
    _lazy_check()
    raise NotImplementedError("ember.cuda.initial_seed: CUDA generators are not supported by Ember yet")


def seed():
    pass


def seed_all():
    pass


default_generators = ()


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


def memory_stats_as_nested_dict(device=None):
    """memory_stats' "a.b.c" keys as nested dicts."""
    nested = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        level = nested
        for part in path:
            level = level.setdefault(part, {})
        level[last] = value
    return nested


def memory_summary(device=None, abbreviated=False):
    """A table of the caching allocator's counters for the device."""
    _lazy_check()
    stats = memory_stats(device)
    width = max((len(k) for k in stats), default=10)
    lines = [f"ember.cuda memory summary, device {_index(device)}", "-" * (width + 16)]
    lines += [f"{key:<{width}}  {value:>14}" for key, value in sorted(stats.items())]
    return "\n".join(lines)


# torch's older names for the reserved ("cached") memory.
memory_cached = memory_reserved
max_memory_cached = max_memory_reserved


# The caching allocator keeps peaks only: each of torch's resets is that one.
reset_max_memory_allocated = reset_max_memory_cached = reset_accumulated_memory_stats = reset_peak_memory_stats


def set_per_process_memory_fraction(fraction, device=None):
    _lazy_check()
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    raise NotImplementedError("ember.cuda.set_per_process_memory_fraction: a memory cap is not supported by "
                              "Ember's caching allocator yet")


def ipc_collect():
    _lazy_check()


# ---- streams, events and graphs: need a device ------------------------------------------------


def _needs_streams(name):
    _lazy_check()
    raise NotImplementedError(f"ember.cuda.{name}: CUDA streams and events are not supported by Ember yet")


class Stream:
    """A CUDA stream (needs a device)."""

    def __new__(cls, device=None, priority=0, **kwargs):
        _needs_streams("Stream")


class ExternalStream(Stream):
    pass


class Event:
    """A CUDA event (needs a device)."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False):
        _needs_streams("Event")


class CUDAGraph:
    """A captured CUDA graph (needs a device)."""

    def __new__(cls, *args, **kwargs):
        _needs_streams("CUDAGraph")


def current_stream(device=None):
    _needs_streams("current_stream")


def default_stream(device=None):
    _needs_streams("default_stream")


def set_stream(stream):
    if stream is not None:
        _needs_streams("set_stream")


class StreamContext:
    """``with ember.cuda.stream(s):`` runs the block on stream ``s``; ``stream(None)`` changes nothing."""

    def __init__(self, stream):
        if stream is not None:
            _needs_streams("stream")
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def stream(stream):
    return StreamContext(stream)


has_half = True
