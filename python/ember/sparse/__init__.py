"""Sparse COO tensors: ``ember.sparse_coo_tensor`` and ``ember.sparse.mm`` /
``sum``, over the C++ layout (aten/core/SparseTensorImpl.h)."""

from .. import _C


class layout:
    """A tensor layout, as ``torch.strided`` / ``torch.sparse_coo``."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "ember." + self._name

    def __reduce__(self):
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
_LAYOUTS = {"strided": strided, "sparse_coo": sparse_coo}


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with entries ``values`` at ``indices`` (sparse_dim x nnz).

    Indices are always checked (``check_invariants`` is accepted for torch's
    sake): an index out of range is an error here, never a bad read later."""
    import ember
    if not isinstance(indices, _C.Tensor):
        indices = ember.tensor(indices, dtype=ember.int64, device=device)
    if not isinstance(values, _C.Tensor):
        values = ember.tensor(values, dtype=dtype, device=device)
    if dtype is not None or device is not None:
        values = values.to(device=device if device is not None else values.device,
                           dtype=dtype if dtype is not None else values.dtype)
        indices = indices.to(device=values.device)
    result = _C._sparse_coo_tensor(indices, values, None if size is None else list(size),
                                   is_coalesced=is_coalesced)
    if requires_grad:
        result.requires_grad_(True)
    return result


def mm(mat1, mat2):
    """Matrix product where either operand may be sparse (torch.sparse.mm)."""
    return _C.mm(mat1, mat2)


def sum(input, dim=None, dtype=None):  # noqa: A001  (torch's name)
    """The sum of a sparse tensor's entries over ``dim`` (all dims by default), as torch.sparse.sum:
    sparse while sparse dims remain, strided once every sparse dim is summed."""
    if dim is not None:
        return input.sum(dim, dtype=dtype)
    return input.sum(dtype=dtype)
