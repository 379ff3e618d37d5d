"""ember.nn.attention: choosing scaled_dot_product_attention's kernels, as
torch.nn.attention. On the CPU, as in torch, there are two: the fused
kernel (FLASH_ATTENTION: float and double without dropout) and the
composite (MATH: everything). With both turned off there is no kernel
left, and the call says so, as torch's does."""

import contextlib
import enum

import ember

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self):
        return f"SDPBackend.{self.name}"


# Each backend's switch in ember.backends.cuda (where torch keeps them too).
_SWITCHES = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
             SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Only ``backends`` may serve scaled_dot_product_attention inside the block."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, (list, tuple)) or not all(isinstance(b, SDPBackend) for b in backends):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    switches = ember.backends.cuda
    previous = {kind: getattr(switches, f"{kind}_sdp_enabled")() for kind in _SWITCHES.values()}
    for backend, kind in _SWITCHES.items():
        getattr(switches, f"enable_{kind}_sdp")(backend in backends)
    try:
        yield {}
    finally:
        for kind, enabled in previous.items():
            getattr(switches, f"enable_{kind}_sdp")(enabled)
