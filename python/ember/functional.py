"""Functions whose Python signature differs from their schema's: they take
their tensors or shapes as separate arguments (torch.functional's spelling)."""

import builtins

import ember

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


def einsum(equation, *operands):
    """einsum(equation, *operands) -> Tensor

    Sums products of the operands' elements as the subscripts say: ``"ij,jk->ik"``
    is a matrix product, ``"ii->i"`` a diagonal, ``"...ij->...ji"`` a batched
    transpose; without ``->`` the output holds the subscripts used once, in
    alphabetical order. The operands may also come as one list.

    >>> ember.einsum("i,i->", ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))
    tensor(11.)
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    if not isinstance(equation, str):
        raise TypeError("einsum(): the sublist format (operand, [subscripts], ...) is not supported in Ember; pass "
                        "an equation string")
    return _C.einsum(equation, list(operands))


def _into(out, result):
    """result, or written into out= (resized to it) where one was given: the out= of Python-level functions.
    A tuple result goes into a tuple of out tensors (a named tuple keeps its type)."""
    if out is None:
        return result
    if isinstance(out, (tuple, list)):
        for o, r in zip(out, result):
            o.resize_(r.shape).copy_(r)
        return type(result)(*out) if hasattr(result, "_fields") else tuple(out)
    return out.resize_(result.shape).copy_(result)


def tensordot(a, b, dims=2, out=None):
    """tensordot(a, b, dims=2) -> Tensor

    Contracts the last ``dims`` dims of a with the first ``dims`` of b, or the
    dims listed in ``dims = (dims_a, dims_b)``.

    >>> ember.tensordot(ember.ones(2, 3), ember.ones(3, 4), dims=1).shape
    ember.Size([2, 4])
    """
    if not isinstance(a, _C.Tensor) or not isinstance(b, _C.Tensor):
        raise TypeError(f"tensordot(): expected Tensors a and b, got {type(a).__name__} and {type(b).__name__}")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    elif isinstance(dims, _C.Tensor):
        return tensordot(a, b, dims.tolist() if dims.dim() > 0 else int(dims.item()), out)
    else:
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    return _into(out, _C.tensordot(a, b, dims_a, dims_b))


def meshgrid(*tensors, indexing=None):
    """meshgrid(*tensors, indexing=None) -> tuple of Tensors

    Grids of coordinates from 1-D tensors: with ``indexing="ij"`` (the default)
    output i varies along dim i; with ``"xy"`` the first two dims swap.

    >>> x, y = ember.meshgrid(ember.tensor([1, 2]), ember.tensor([3, 4, 5]), indexing="ij")
    >>> x.shape
    ember.Size([2, 3])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing is None:
        import warnings

        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for t in tensors:
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"meshgrid(): expected Tensors, got {type(t).__name__}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    if any(t.dtype != tensors[0].dtype for t in tensors) or any(t.device != tensors[0].device for t in tensors):
        raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have the same dtype and device")
    vectors = [t.reshape([-1]) for t in tensors]
    swap = indexing == "xy" and len(vectors) >= 2
    if swap:
        vectors[0], vectors[1] = vectors[1], vectors[0]
    shape = [v.numel() for v in vectors]
    grids = []
    for i, v in enumerate(vectors):
        view = [1] * len(vectors)
        view[i] = -1
        grids.append(v.reshape(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary')

    The p-norm distance between each row of x1 and each row of x2, batched
    over leading dims. Ember always computes the exact differences (torch may
    use a matrix product for p=2, which rounds); compute_mode is checked and
    otherwise has no effect.

    >>> ember.cdist(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0], [1.0, 0.0]]))
    tensor([[5., 1.]])
    """
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _C.cdist(x1, x2, p, _CDIST_MODES[compute_mode])


def _as_rows(input, dim):
    """input with dim first and the other dims flattened: (size along dim, rest)."""
    moved = input.movedim(dim, 0)
    return moved.reshape([moved.shape[0], -1]), moved.shape


def _from_rows(rows, moved_shape, dim):
    return rows.reshape([rows.shape[0], *moved_shape[1:]]).movedim(0, dim)


def _runs(rows):
    """For rows (n, m) or values (n,): the run each belongs to (consecutive equal ones share one) and the
    first position of each run."""
    if rows.shape[0] == 0:
        empty = ember.zeros(0, dtype=ember.int64, device=rows.device)
        return empty, empty
    change = rows[1:] != rows[:-1]
    if change.dim() > 1:
        change = change.any(1)
    starts = ember.cat([ember.ones(1, dtype=ember.bool, device=rows.device), change])
    return starts.to(ember.int64).cumsum(0) - 1, starts.nonzero().reshape([-1])


def _unique_results(output, inverse, run, return_inverse, return_counts):
    results = [output]
    if return_inverse:
        results.append(inverse)
    if return_counts:
        results.append(ember.bincount(run, minlength=int(run.max()) + 1 if run.numel() else 0))
    return results[0] if len(results) == 1 else tuple(results)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None)

    The distinct elements of input, sorted (or, with ``dim``, its distinct
    slices along dim in lexicographic order); with ``return_inverse`` also
    where each element (slice) went, with ``return_counts`` how often each occurs.

    >>> ember.unique(ember.tensor([3, 1, 3, 2]))
    tensor([1, 2, 3])
    >>> ember.unique(ember.tensor([[1, 2], [0, 5], [1, 2]]), dim=0)
    tensor([[0, 5],
            [1, 2]])
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"unique(): argument 'input' must be Tensor, not {type(input).__name__}")
    if dim is None:
        output, inverse, counts = _C._unique2(input, sorted, return_inverse, return_counts)
        if return_inverse and return_counts:
            return output, inverse, counts
        if return_inverse:
            return output, inverse
        if return_counts:
            return output, counts
        return output
    rows, moved_shape = _as_rows(input, dim)
    # Lexicographic order: stable sorts by each column, the last column first.
    order = ember.arange(rows.shape[0], device=input.device)
    for column in reversed(range(rows.shape[1])):
        order = order[rows[order, column].argsort(stable=True)]
    ordered = rows[order]
    run, firsts = _runs(ordered)
    inverse = ember.zeros_like(run).scatter(0, order, run)
    return _unique_results(_from_rows(ordered[firsts], moved_shape, dim), inverse, run, return_inverse,
                           return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)

    input with each run of equal consecutive elements (slices along dim) kept once.

    >>> ember.unique_consecutive(ember.tensor([1, 1, 2, 2, 3, 1, 1]))
    tensor([1, 2, 3, 1])
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"unique_consecutive(): argument 'input' must be Tensor, not {type(input).__name__}")
    if dim is None:
        flat = input.reshape([-1])
        run, firsts = _runs(flat)
        return _unique_results(flat[firsts], run.reshape(input.shape), run, return_inverse, return_counts)
    rows, moved_shape = _as_rows(input, dim)
    run, firsts = _runs(rows)
    return _unique_results(_from_rows(rows[firsts], moved_shape, dim), run, run, return_inverse, return_counts)


def block_diag(*tensors):
    """block_diag(*tensors) -> Tensor

    The tensors (at most 2-D) as blocks along the diagonal of one matrix.

    >>> ember.block_diag(ember.tensor([[1, 2]]), ember.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    return _C.block_diag(list(tensors))


def cartesian_prod(*tensors):
    """cartesian_prod(*tensors) -> Tensor

    Every combination of one element from each 1-D tensor, one row each.

    >>> ember.cartesian_prod(ember.tensor([1, 2]), ember.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    return _C.cartesian_prod(list(tensors))


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """histogramdd(input, bins, *, range=None, weight=None, density=False) -> (hist, bin_edges)

    The histogram of the points in ``input``'s rows (its innermost
    dimension is D, the histogram's): ``bins`` is one count for every
    dimension, a count per dimension, or each dimension's edges as a
    tensor. Without ``range`` each dimension spans its data (widened by
    0.5 both ways where all values are equal). The last bin of each
    dimension includes its right edge; points outside, or NaN, are not
    counted. ``density`` divides by the total and the bin volumes.

    >>> ember.histogramdd(ember.tensor([[0., 1.], [1., 1.], [2., 0.5]]), bins=[2, 2]).hist
    tensor([[0., 1.],
            [1., 1.]])
    """
    if not input.is_floating_point():
        raise NotImplementedError(f'"histogramdd" not implemented for \'{input.dtype}\'')
    dims = input.shape[-1] if input.dim() else 0
    points = input.reshape(-1, dims).detach()
    if isinstance(bins, int):
        bins = [bins] * dims
    bins = list(bins)
    if len(bins) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"histogramdd: for a {dims}-dimensional histogram range should have {2 * dims} "
                           f"elements, but got {len(range)}")
    if weight is not None and tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError("histogramdd: if weight tensor is provided it should have the same shape as the "
                           "input tensor excluding its innermost dimension, but got input with shape "
                           f"{list(input.shape)} and weight with shape {list(weight.shape)}")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError("histogramdd: if weight tensor is provided, input tensor and weight tensor should have the "
                           f"same dtype, but got input({input.dtype}), and weight({weight.dtype})")
    edges = []
    for d, b in enumerate(bins):
        if isinstance(b, ember.Tensor):
            if b.dtype != input.dtype:
                raise RuntimeError("histogramdd: input tensor and bins tensors should have the same dtype, but got "
                                   f"input with dtype {input.dtype} and bins for dimension {d} with dtype {b.dtype}")
            edges.append(b)
            continue
        if b <= 0:
            raise RuntimeError(f"histogramdd(): bins must be > 0, but got {b} for dimension {d}")
        if range is not None:
            low, high = float(range[2 * d]), float(range[2 * d + 1])
        elif points.shape[0]:
            column = points[:, d]
            finite = column[~column.isnan()]
            low, high = (float(finite.min()), float(finite.max())) if finite.numel() else (0.0, 0.0)
        else:
            low, high = 0.0, 0.0
        if low > high:
            raise RuntimeError(f"histogramdd: min should not exceed max, but got min {low:g} max {high:g} for "
                               f"dimension {d}")
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges.append(ember.linspace(low, high, b + 1, dtype=input.dtype, device=input.device))
    counts = [e.numel() - 1 for e in edges]
    # Each point's bin per dimension (right edge of the last bin included), then one flat index.
    flat = ember.zeros(points.shape[0], dtype=ember.int64, device=input.device)
    inside = ember.ones(points.shape[0], dtype=ember.bool, device=input.device)
    for d, e in enumerate(edges):
        column = points[:, d].contiguous()
        index = ember.searchsorted(e, column, right=True) - 1
        index = ember.where(column == e[-1], ember.full_like(index, counts[d] - 1), index)
        inside &= (index >= 0) & (index < counts[d]) & ~column.isnan()
        flat = flat * counts[d] + index.clamp(0, max(counts[d] - 1, 0))
    total = 1
    for c in counts:
        total *= c
    values = None if weight is None else weight.reshape(-1)
    kept_weights = ember.where(inside, values if values is not None else ember.ones_like(flat, dtype=input.dtype),
                               ember.zeros(1, dtype=input.dtype, device=input.device))
    hist = ember.zeros(total, dtype=input.dtype, device=input.device).index_add_(0, flat, kept_weights)
    hist = hist.reshape(counts)
    if density:
        volume = None
        for d, e in enumerate(edges):
            width = (e[1:] - e[:-1]).reshape([-1 if i == d else 1 for i in builtins.range(dims)])
            volume = width if volume is None else volume * width
        hist = hist / (hist.sum() * volume)
    return ember._C._return_type("histogramdd", ["hist", "bin_edges"], (hist, tuple(edges)))
