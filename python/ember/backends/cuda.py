"""The CUDA backend's switches (see ember.cuda for the devices)."""

from ember import _C

from .._precision import get_float32_matmul_precision, set_float32_matmul_precision


def is_built():
    """Whether Ember was built with CUDA support (a GPU may still be absent)."""
    return _C._device_backend_built("cuda")


class _MatmulFlags:
    """``ember.backends.cuda.matmul``: how float32 and reduced-precision
    products may round. ``allow_tf32`` is the float32 matmul precision seen
    as a flag (True unless it is "highest")."""

    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        set_float32_matmul_precision("high" if value else "highest")


matmul = _MatmulFlags()

def _sdp_switch(kind):
    """The (is-enabled, enable) pair of one scaled-dot-product attention kernel's switch."""
    state = {"enabled": True}

    def enabled():
        return state["enabled"]

    def enable(value):
        state["enabled"] = bool(value)

    enabled.__name__, enable.__name__ = f"{kind}_sdp_enabled", f"enable_{kind}_sdp"
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _sdp_switch("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_switch("mem_efficient")
math_sdp_enabled, enable_math_sdp = _sdp_switch("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_switch("cudnn")
