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

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled():
    return _sdp["flash"]


def enable_flash_sdp(enabled):
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled():
    return _sdp["math"]


def enable_math_sdp(enabled):
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled():
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled):
    _sdp["cudnn"] = bool(enabled)
