"""ember.amp: automatic mixed precision, as torch.amp: ``autocast`` and
``GradScaler``.

GradScaler is complete (on any device: it scales the loss, unscales the
gradients, skips steps whose gradients overflowed and adapts the scale).
autocast accepts torch's arguments and, disabled, does nothing; enabled on
a device Ember runs, it raises, because lower-precision dispatch comes with
the autocast work. Both disable themselves with torch's warning for CUDA
on a machine without a GPU, so CUDA scripts run on the CPU.
"""

from .autocast_mode import (  # noqa: F401
    autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_available, is_autocast_enabled,
)
from .grad_scaler import GradScaler  # noqa: F401
