"""Memory formats: the order in which a tensor's dims are laid out in memory.
channels_last keeps a batch of images as N, H, W, C (the channel fastest)
while its shape stays N, C, H, W. The format objects and every operator that
takes one (contiguous, is_contiguous, clone, empty_like, to, ...) live in C++
(c10/core/MemoryFormat.h); this module only names them for ember's namespace."""

from ._C import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format  # noqa: F401

# The rank each layout format needs (nn.Module.to only converts parameters of that rank).
LAYOUT_RANK = {channels_last: 4, channels_last_3d: 5}
