"""Functions whose Python signature differs from their schema's: they take
their tensors or shapes as separate arguments (torch.functional's spelling)."""

from . import _C
from ._size import Size


def broadcast_tensors(*tensors):
    """broadcast_tensors(*tensors) -> tuple of Tensors

    Views of ``tensors`` expanded to their common broadcast shape.

    >>> a, b = ember.broadcast_tensors(ember.ones(2, 1), ember.zeros(3))
    >>> a.shape, b.shape
    (ember.Size([2, 3]), ember.Size([2, 3]))
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return tuple(_C.broadcast_tensors(list(tensors)))


def broadcast_shapes(*shapes):
    """broadcast_shapes(*shapes) -> Size

    The shape that tensors of ``shapes`` broadcast to, without allocating
    them (the rule and its error are broadcast_tensors', on meta tensors).

    >>> ember.broadcast_shapes((2, 1), (3,))
    ember.Size([2, 3])
    """
    metas = []
    for shape in shapes:
        metas.append(_C.empty((shape,) if isinstance(shape, int) else tuple(shape), device="meta"))
    if not metas:
        return Size([])
    return Size(_C.broadcast_tensors(metas)[0].shape)
