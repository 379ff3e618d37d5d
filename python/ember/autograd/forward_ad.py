"""ember.autograd.forward_ad: forward-mode derivatives with torch's interface (dual_level, make_dual,
unpack_dual).

Inside ``with dual_level():``, ``make_dual(x, t)`` gives a tensor that stands for x carrying the tangent
t; computing with it records the usual (reverse-mode) graph, and ``unpack_dual(y)`` gives y's primal and
its tangent J t, found by differentiating twice: J^T u is linear in u, so the derivative of <J^T u, t>
with respect to u is J t. Tangents are therefore exact, at the price of two backward passes per
unpack_dual of a computed tensor, and only through operations that record gradients (not inside
``no_grad``). Leaving the level forgets its duals.
"""

import contextlib
from collections import namedtuple

import ember

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])

# One entry per open level: {id(dual): (dual, tangent)}.
_levels = []


def enter_dual_level():
    """Opens a dual level (only one at a time, as in torch) and returns its index."""
    if _levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _levels.append({})
    return len(_levels) - 1


def exit_dual_level(*, level=None):
    """Closes the current dual level: its dual tensors lose their tangents."""
    if not _levels or (level is not None and level != len(_levels) - 1):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _levels.pop()


@contextlib.contextmanager
def dual_level():
    """The context in which dual tensors carry their tangents."""
    level = enter_dual_level()
    try:
        yield level
    finally:
        exit_dual_level(level=level)


def _current(level, what):
    if not _levels:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if level is not None and level != len(_levels) - 1:
        raise RuntimeError(f"{what}: level {level} is not the current dual level")
    return _levels[-1]


def make_dual(tensor, tangent, *, level=None):
    """A tensor standing for `tensor` with the forward gradient `tangent` (same shape and dtype kind)."""
    duals = _current(level, "make_dual")
    if not isinstance(tensor, ember.Tensor) or not isinstance(tangent, ember.Tensor):
        raise TypeError("make_dual(): expected tensor and tangent to be Tensors")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if tensor.requires_grad:
        dual = tensor.view_as(tensor)  # keeps tensor's own graph for reverse mode
    else:
        dual = tensor.detach().requires_grad_()
    duals[id(dual)] = (dual, tangent.detach())
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of `tensor`: the tangent is None where no dual of the level reaches it."""
    if not _levels:
        return UnpackedDualTensor(tensor, None)
    duals = _current(level, "unpack_dual")
    if id(tensor) in duals and duals[id(tensor)][0] is tensor:
        return UnpackedDualTensor(tensor.detach(), duals[id(tensor)][1])
    if not isinstance(tensor, ember.Tensor) or tensor.grad_fn is None or not duals:
        return UnpackedDualTensor(tensor, None)
    from ember.func._transforms import _pushforward  # ember.func imports autograd: here, not at the top

    with ember.enable_grad():
        (tangent,) = _pushforward([tensor], [d for d, _ in duals.values()], [t for _, t in duals.values()])
    return UnpackedDualTensor(tensor.detach(), None if tangent is None else tangent.detach())
