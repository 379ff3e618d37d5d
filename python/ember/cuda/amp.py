"""ember.cuda.amp: the CUDA spellings of ember.amp that older scripts use
(``torch.cuda.amp.GradScaler()``, ``torch.cuda.amp.autocast()``)."""

import ember

from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler


class GradScaler(_grad_scaler.GradScaler):
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class autocast(_autocast_mode.autocast):
    def __init__(self, enabled=True, dtype=ember.float16, cache_enabled=True):
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    return _autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    return _autocast_mode.custom_bwd(bwd, device_type="cuda")
