"""ember.amp: automatic mixed precision, as torch.amp: ``autocast`` and
``GradScaler``.

autocast runs a region's ops in mixed precision through the dispatcher's
AutocastCPU/AutocastCUDA keys and one policy table (aten/autocast).
GradScaler scales the loss, unscales the gradients, skips steps whose
gradients overflowed and adapts the scale. Both disable themselves with
torch's warning for CUDA on a machine without a GPU, so CUDA scripts run on
the CPU.
"""

from .autocast_mode import (  # noqa: F401
    autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_available, is_autocast_enabled,
)
from .grad_scaler import GradScaler  # noqa: F401
