"""ember.cpu.amp: the CPU spelling of ember.amp.autocast that older scripts
use (``torch.cpu.amp.autocast()``)."""

import ember

from ..amp import autocast_mode as _autocast_mode


class autocast(_autocast_mode.autocast):
    def __init__(self, enabled=True, dtype=ember.bfloat16, cache_enabled=True):
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
