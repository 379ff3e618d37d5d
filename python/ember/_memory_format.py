"""Memory formats: the order in which a tensor's dims are laid out in memory.
channels_last keeps a batch of images as N, H, W, C (the channel fastest)
while its shape stays N, C, H, W; contiguous() and to() take a format and
is_contiguous() checks one."""

from . import _C

Tensor = _C.Tensor


class memory_format:
    def __init__(self, name, dims_order=None):
        self._name = name
        self._order = dims_order  # the dims from slowest to fastest (None: not a layout)

    def __repr__(self):
        return f"ember.{self._name}"

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last", (0, 2, 3, 1))
channels_last_3d = memory_format("channels_last_3d", (0, 2, 3, 4, 1))

_plain_contiguous = Tensor.contiguous
_plain_is_contiguous = Tensor.is_contiguous


def _layout_order(self, fmt, op):
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be ember.memory_format, not {type(fmt).__name__}")
    if fmt is preserve_format:
        raise RuntimeError(f"{op}: preserve memory format is unsupported by the contiguous operator")
    if fmt._order is not None and self.dim() != len(fmt._order):
        raise RuntimeError(f"{op}: required rank {len(fmt._order)} tensor to use {fmt._name} format, got rank "
                           f"{self.dim()}")
    return fmt._order


def _is_contiguous(self, memory_format=contiguous_format):
    """is_contiguous(memory_format=ember.contiguous_format) -> bool

    Whether the elements lie in memory in the order of the format, without gaps."""
    order = _layout_order(self, memory_format, "is_contiguous")
    if order is None:
        return _plain_is_contiguous(self)
    return _plain_is_contiguous(self.permute(order))


def _contiguous(self, memory_format=contiguous_format):
    """contiguous(memory_format=ember.contiguous_format) -> Tensor

    self laid out densely in the order of the format (self itself where it already is)."""
    order = _layout_order(self, memory_format, "contiguous")
    if order is None:
        return _plain_contiguous(self)
    if _plain_is_contiguous(self.permute(order)):
        return self
    inverse = sorted(range(len(order)), key=order.__getitem__)
    return _plain_contiguous(self.permute(order)).permute(inverse)


Tensor.is_contiguous = _is_contiguous
Tensor.contiguous = _contiguous
