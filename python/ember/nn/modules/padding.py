"""Padding layers: constant (and zero), reflection, replication and circular, in 1, 2 and 3 dimensions."""

from .. import functional as F
from ..functional import _ntuple
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


class _PadNd(Module):
    __constants__ = ["padding", "mode", "value"]
    mode = "constant"
    dims = 1

    def __init__(self, padding, value=None):
        super().__init__()
        # One int pads every side; otherwise (left, right[, top, bottom[, front, back]]).
        self.padding = _ntuple(2 * self.dims)(padding)
        if value is not None:
            self.value = value

    def forward(self, input):
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        if self.mode == "constant":
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


def _padding_class(name, mode, dims, zero=False):
    if mode == "constant" and not zero:
        def __init__(self, padding, value):
            _PadNd.__init__(self, padding, value)
    elif zero:
        def __init__(self, padding):
            _PadNd.__init__(self, padding, 0.0)

        def extra_repr(self):
            return f"{self.padding}"
    else:
        def __init__(self, padding):
            _PadNd.__init__(self, padding)
    body = {"mode": mode, "dims": dims, "__init__": __init__, "__module__": __name__,
            "__doc__": f"Pads the last {dims} dimension(s) ({mode}{', with zeros' if zero else ''})."}
    if zero:
        body["extra_repr"] = extra_repr
    return type(name, (_PadNd,), body)


# The fifteen classes differ only in mode and dimension count: made from one table.
for _dims in (1, 2, 3):
    for _name, _mode, _zero in (("ConstantPad", "constant", False), ("ZeroPad", "constant", True),
                                ("ReflectionPad", "reflect", False), ("ReplicationPad", "replicate", False),
                                ("CircularPad", "circular", False)):
        globals()[f"{_name}{_dims}d"] = _padding_class(f"{_name}{_dims}d", _mode, _dims, _zero)
