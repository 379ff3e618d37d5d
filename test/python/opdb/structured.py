"""The structured operators of the operator database: reductions, linear
algebra, joining/indexing/sorting, neural-network functions, convolution and
pooling.

Every entry of OPS names an operator, how to call it on a module (``ember``
or, as an oracle, ``torch``), a NumPy reference computed in float64 /
complex128 / int64, the dtypes it is tested for and a sample generator.
Samples are recipes (Arr specs, not tensors): the same values and the same
views (transposed, strided) are built on either module and any device.

Known Ember bugs are strict xfails of exactly the cases they break.
Deliberate differences from torch are comments where a case leaves them out.
"""

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
import pytest

import ember
from ember_testing import to_numpy, torch, unique_index

from .dtypes import ACCUMULATED, COMPLEX, FLOATS, INTS, LOWP, TOLERANCES, dtype_name, round_to_bfloat16
from .dtypes import numpy_storage_dtype as storage_dtype

if torch is not None:
    import torch.nn.functional as F


INF = math.inf


def xfail(reason, needs_torch=False):
    """Marks for a known Ember bug. A bug that only torch shows (a result
    dtype, an exception type) is skipped when torch is missing, so that the
    strict xfail does not turn into an XPASS."""
    marks = [pytest.mark.xfail(reason=reason, strict=True)]
    if needs_torch:
        marks.append(pytest.mark.skipif(torch is None, reason="the bug shows only against torch"))
    return marks


# ---- samples ------------------------------------------------------------------------


def ref_dtype(d):
    if d == "bool":
        return np.dtype(bool)
    if d in INTS:
        return np.dtype("int64")
    if d.startswith("complex"):
        return np.dtype("complex128")
    return np.dtype("float64")


class Arr:
    """A tensor to build on ember or torch: NumPy values (already representable
    in `dtype`) and a view: None, "T" (a transposed view of transposed storage)
    or "strided" (every other element of a storage twice as wide)."""

    def __init__(self, values, dtype, view=None):
        self.dtype = dtype
        self.values = np.asarray(values).astype(storage_dtype(dtype))
        self.view = view

    VIEWS = {"T": lambda t: t.transpose(-1, -2), "strided": lambda t: t[..., ::2]}

    def storage(self):
        """The NumPy storage that the view turns into the values."""
        v = self.values
        if self.view == "T":
            return np.array(np.swapaxes(v, -1, -2), order="C")
        if self.view == "strided":
            storage = np.zeros(v.shape[:-1] + (2 * v.shape[-1],), v.dtype)
            storage[..., ::2] = v
            return storage
        return np.array(v, order="C")  # (np.ascontiguousarray makes 0-d arrays 1-d)

    def make(self, lib):
        t = lib.from_numpy(self.storage())
        if self.dtype == "bfloat16":
            t = t.to(lib.bfloat16)
        return self.VIEWS[self.view](t) if self.view else t

    def ref(self):
        return self.values.astype(ref_dtype(self.dtype))

    def __repr__(self):
        s = f"{self.dtype}{list(self.values.shape)}"
        return f"{s}.{self.view}" if self.view else s


class DT:
    """A dtype argument, resolved on each module."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


def build(x, lib):
    if isinstance(x, Arr):
        return x.make(lib)
    if isinstance(x, DT):
        return getattr(lib, x.name)
    if isinstance(x, list) and any(isinstance(i, Arr) for i in x):
        return [build(i, lib) for i in x]
    return x


def build_ref(x):
    if isinstance(x, Arr):
        return x.ref()
    if isinstance(x, DT):
        return x.name
    if isinstance(x, list) and any(isinstance(i, Arr) for i in x):
        return [build_ref(i) for i in x]
    return x


@dataclass
class Sample:
    args: tuple
    kwargs: dict = field(default_factory=dict)
    desc: str = ""
    marks: list = field(default_factory=list)
    torch: bool = True  # compare with torch (False: a deliberate difference)
    ref: bool = True  # compare with the NumPy reference

    def materialize(self, lib):
        """(args, kwargs) built on `lib` (ember or torch)."""
        return [build(a, lib) for a in self.args], {k: build(v, lib) for k, v in self.kwargs.items()}


def values(d, shape, seed=0, kind="normal"):
    """Values of dtype `d` (storage dtype) for a shape. kind: normal, prod
    (magnitudes near 1, for products), ties (few small integers), pos."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    if d == "bool":
        x = rng.integers(0, 2, n).astype(bool)
    elif d in INTS:
        lo, hi = {"normal": (-9, 10), "prod": (-2, 3), "ties": (-2, 3), "pos": (1, 5)}[kind]
        if d == "uint8":
            lo = max(lo, 0)
        x = rng.integers(lo, hi, n)
    else:
        def real():
            if kind == "prod":
                return rng.uniform(0.6, 1.4, n) * rng.choice([-1.0, 1.0], n)
            if kind == "ties":
                return rng.integers(-2, 3, n).astype(float)
            if kind == "pos":
                return rng.uniform(0.5, 3.0, n)
            return rng.standard_normal(n) * 3

        x = real() + 1j * real() if d.startswith("complex") else real()
    x = np.asarray(x).reshape(shape).astype(storage_dtype(d))
    return round_to_bfloat16(x) if d == "bfloat16" else x


def A(d, shape, seed=0, kind="normal", view=None):
    return Arr(values(d, shape, seed, kind), d, view)


def wide(d, bits):
    """The dtype= argument of a sample: float<bits>, complex for complex input."""
    if d.startswith("complex"):
        return "complex128" if bits == 64 else "complex64"
    return f"float{bits}"


def index_arr(idx, dtype="int64"):
    return Arr(np.asarray(idx), dtype)


# ---- comparing ----------------------------------------------------------------------


def torch_numpy(tt):
    tt = tt.detach().resolve_conj()
    if tt.dtype == torch.bfloat16:
        tt = tt.float()
    return tt.numpy()


def assert_values(got, expected, dtype, scale_tol=1.0, what=""):
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
    if dtype in TOLERANCES:
        rtol, atol = TOLERANCES[dtype][ACCUMULATED]
        finite = np.abs(expected[np.isfinite(expected)]) if expected.size else np.zeros(0)
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        np.testing.assert_allclose(
            got.astype(expected.dtype if expected.dtype.kind == "c" else np.result_type(got, np.float64)),
            expected, rtol=rtol * scale_tol, atol=atol * scale * scale_tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)


def flatten(result):
    """A list of tensors from a tensor, a named tuple or a list."""
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def compare_torch(e, t, scale_tol=1.0):
    es, ts = flatten(e), flatten(t)
    assert len(es) == len(ts), (len(es), len(ts))
    for i, (a, b) in enumerate(zip(es, ts)):
        assert tuple(a.shape) == tuple(b.shape), f"output {i}: shape {tuple(a.shape)} vs torch {tuple(b.shape)}"
        assert dtype_name(a.dtype) == dtype_name(b.dtype), f"output {i}: dtype {a.dtype} vs torch {b.dtype}"
        assert_values(to_numpy(a), torch_numpy(b), dtype_name(a.dtype), scale_tol, f"output {i} vs torch")


def compare_ref(e, r, scale_tol=1.0):
    es = flatten(e)
    rs = list(r) if isinstance(r, (tuple, list)) else [r]
    assert len(es) == len(rs), (len(es), len(rs))
    for i, (a, b) in enumerate(zip(es, rs)):
        assert_values(to_numpy(a), np.asarray(b), dtype_name(a.dtype), scale_tol, f"output {i} vs NumPy")


# ---- shapes, diagonals, splits and the smaller reductions and products ---------------------------


def diagonal_samples(d):
    return [
        Sample((A(d, (4, 5), 0),), desc="main"),
        Sample((A(d, (4, 5), 1),), {"offset": 2}, desc="above"),
        Sample((A(d, (4, 5), 2),), {"offset": -3}, desc="below"),
        Sample((A(d, (3, 4, 5), 3),), {"offset": 1, "dim1": 2, "dim2": 0}, desc="dims_2_0"),
        Sample((A(d, (4, 6), 4, view="T"),), {"offset": -1}, desc="transposed"),
        Sample((A(d, (3, 3), 5),), {"offset": 5}, desc="past_the_corner"),
    ]


def ref_diagonal(a, offset=0, dim1=0, dim2=1):
    return np.diagonal(a, offset, dim1, dim2).copy()


def diag_embed_samples(d):
    return [
        Sample((A(d, (2, 3), 0),), desc="batch"),
        Sample((A(d, (3,), 1),), {"offset": -1}, desc="below"),
        Sample((A(d, (2, 3), 2),), {"offset": 2, "dim1": 0, "dim2": 2}, desc="dims_0_2"),
    ]


def ref_diag_embed(a, offset=0, dim1=-2, dim2=-1):
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    rows = np.arange(a.shape[-1]) + max(-offset, 0)
    out[..., rows, rows + offset] = a
    d1, d2 = dim1 % (a.ndim + 1), dim2 % (a.ndim + 1)
    return np.moveaxis(out, (-2, -1), (d1, d2)) if (d1, d2) != (a.ndim - 1, a.ndim) else out


def diagonal_scatter_samples(d):
    return [
        Sample((A(d, (3, 4), 0), A(d, (3,), 1)), desc="main"),
        Sample((A(d, (3, 4), 2), A(d, (2,), 3)), {"offset": 2}, desc="above"),
        Sample((A(d, (2, 3, 3), 4), A(d, (2, 2), 5)), {"offset": -1, "dim1": 1, "dim2": 2}, desc="batched_below"),
    ]


def ref_diagonal_scatter(a, src, offset=0, dim1=0, dim2=1):
    out = a.copy()
    view = np.moveaxis(out, (dim1, dim2), (-2, -1))
    rows = np.arange(src.shape[-1]) + max(-offset, 0)
    view[..., rows, rows + offset] = src
    return out


def select_scatter_samples(d):
    return [Sample((A(d, (3, 4), 0), A(d, (4,), 1), 0, 2), desc="row"),
            Sample((A(d, (3, 4), 2), A(d, (3,), 3), 1, -1), desc="last_column"),
            Sample((A(d, (4, 3), 4, view="T"), A(d, (3,), 5), 0, 0), desc="transposed")]


def ref_select_scatter(a, src, dim, index):
    out = a.copy()
    np.moveaxis(out, dim, 0)[index] = src
    return out


def slice_scatter_samples(d):
    return [Sample((A(d, (5, 3), 0), A(d, (2, 3), 1)), {"start": 1, "end": 5, "step": 2}, desc="every_other_row"),
            Sample((A(d, (3, 4), 2), A(d, (3, 2), 3)), {"dim": 1, "start": -2}, desc="last_columns"),
            Sample((A(d, (2, 3), 4), A(d, (2, 3), 5)), desc="whole")]


def ref_slice_scatter(a, src, dim=0, start=None, end=None, step=1):
    out = a.copy()
    index = [slice(None)] * a.ndim
    index[dim] = slice(start, end, step)
    out[tuple(index)] = src
    return out


def as_strided_scatter_samples(d):
    return [Sample((A(d, (3, 3), 0), A(d, (3,), 1), (3,), (4,)), desc="diagonal"),
            Sample((A(d, (2, 4), 2), A(d, (2, 2), 3), (2, 2), (4, 2), 1), desc="offset_window"),
            # The window follows self's layout (torch's meaning), which the NumPy reference cannot see.
            Sample((A(d, (4, 2), 4, view="T"), A(d, (2, 3), 5), (2, 3), (1, 2)), desc="transposed_self", ref=False)]


def ref_as_strided_scatter(a, src, size, stride, storage_offset=0):
    out = a.copy(order="K")  # self's layout: the window addresses its memory in that order
    memory = out.ravel(order="K")
    window = np.lib.stride_tricks.as_strided(memory[storage_offset:], size, [s * out.itemsize for s in stride])
    window[...] = src
    return out


def block_diag_samples(d):
    return [Sample((A(d, (2, 3), 0), A(d, (1,), 1), A(d, (), 2), A(d, (2, 2), 3)), desc="mixed_ranks"),
            Sample((A(d, (0, 2), 4), A(d, (2, 1), 5)), desc="empty_block")]


def ref_block_diag(*blocks):
    blocks = [b.reshape(1, -1) if b.ndim < 2 else b for b in blocks]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)), blocks[0].dtype)
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def unflatten_samples(d):
    return [Sample((A(d, (2, 12), 0), 1, (3, 4)), desc="last"),
            Sample((A(d, (6, 2), 1), 0, (-1, 2)), desc="inferred"),
            Sample((A(d, (4, 6), 2, view="T"), -1, (3, 2, 1)), desc="transposed")]


def ref_unflatten(a, dim, sizes):
    dim %= a.ndim
    sizes = list(sizes)
    if -1 in sizes:
        sizes[sizes.index(-1)] = a.shape[dim] // -int(np.prod(sizes))
    return a.reshape(a.shape[:dim] + tuple(sizes) + a.shape[dim + 1:])


def one_tensor_samples(*shapes):
    def samples(d):
        return [Sample((A(d, shape, i),), desc="x".join(map(str, shape)) or "0d") for i, shape in enumerate(shapes)] + \
            [Sample((A(d, (4, 3), 9, view="T"),), desc="transposed")]
    return samples


def tensor_split_samples(kind):
    def samples(d):
        if kind == "tensor_split.sections":
            return [Sample((A(d, (7, 2), 0), 3), desc="uneven"), Sample((A(d, (2, 5), 1), 2), {"dim": 1}, desc="dim1"),
                    Sample((A(d, (2, 3), 2), 5), {"dim": -1}, desc="more_than_size")]
        if kind == "tensor_split.indices":
            return [Sample((A(d, (7, 2), 0), [1, 4]), desc="two_cuts"),
                    Sample((A(d, (3, 6), 1), [-2, 9, 2]), {"dim": 1}, desc="negative_past_and_backwards")]
        if kind == "tensor_split.tensor":
            return [Sample((A(d, (7, 2), 0), index_arr([2, 5])), desc="indices_tensor"),
                    Sample((A(d, (7, 2), 1), index_arr(3)), desc="sections_tensor")]
        name, form = kind.split(".")
        shape = {"hsplit": (2, 4, 2), "vsplit": (4, 2), "dsplit": (1, 2, 4)}[name]
        return [Sample((A(d, shape, 0), 2 if form == "int" else [1, 3]), desc=form)]
    return samples


def ref_tensor_split(a, sections_or_indices, dim=0):
    if isinstance(sections_or_indices, np.ndarray) and sections_or_indices.ndim == 0:
        sections_or_indices = int(sections_or_indices)
    elif isinstance(sections_or_indices, np.ndarray):
        sections_or_indices = list(sections_or_indices)
    return np.array_split(a, sections_or_indices, axis=dim)


def ref_named_split(name):
    axis = {"vsplit": 0, "dsplit": 2}

    def ref(a, sections):
        return np.array_split(a, sections, axis=axis.get(name, 1 if a.ndim > 1 else 0))
    return ref


def rot90_samples(d):
    return [Sample((A(d, (3, 4), 0),), desc="once"),
            Sample((A(d, (2, 3, 4), 1), 2, [2, 0]), desc="twice_dims_2_0"),
            Sample((A(d, (3, 4), 2), -1), desc="backwards"),
            Sample((A(d, (3, 4), 3), 4), desc="full_turn"),
            Sample((A(d, (4, 3), 4, view="T"), 3), desc="transposed")]


def ref_rot90(a, k=1, dims=(0, 1)):
    return np.rot90(a, k, axes=tuple(dims)).copy()


def tile_samples(d):
    return [Sample((A(d, (2, 3), 0), (2, 1)), desc="same_rank"),
            Sample((A(d, (3,), 1), (2, 1, 2)), desc="more_dims"),
            Sample((A(d, (2, 3, 2), 2), (3,)), desc="fewer_dims"),
            Sample((A(d, (4, 3), 3, view="T"), (0, 2)), desc="zero_times")]


def take_samples(d):
    return [Sample((A(d, (3, 4), 0), index_arr([[0, 11], [-1, 5]])), desc="2d_index"),
            Sample((A(d, (4, 3), 1, view="T"), index_arr([2, -12])), desc="transposed_negative"),
            Sample((A(d, (), 2), index_arr([0, 0])), desc="0d")]


def ref_take(a, index):
    return np.take(a.reshape(-1), index)


def put_samples(d):
    return [Sample((A(d, (3, 4), 0), index_arr([[0, 10], [-1, 5]]), A(d, (2, 2), 1)), desc="2d_index"),
            Sample((A(d, (4, 3), 2, view="T"), index_arr([2, -12]), A(d, (2,), 3)), desc="transposed_negative"),
            Sample((A(d, (3, 4), 4), index_arr([1, 6, 1]), A(d, (3,), 5)), {"accumulate": True},
                   desc="accumulate_repeats"),
            Sample((A(d, (), 6), index_arr([0]), A(d, (1,), 7)), desc="0d")]


def ref_put(a, index, source, accumulate=False):
    out = np.array(a, copy=True).reshape(-1)
    index = np.asarray(index).reshape(-1)
    source = np.asarray(source).reshape(-1)
    if accumulate:
        np.add.at(out, index, source.astype(out.dtype))
    else:
        out[index] = source
    return out.reshape(np.shape(a))


def frexp_samples(d):
    special = Arr(np.array([0.0, -0.0, 1.0, -3.5, 1e-30, 8.0, np.inf, -np.inf, np.nan, 0.75], dtype=np.float64), d)
    return [Sample((A(d, (3, 4), 0),), desc="normal"), Sample((A(d, (4, 3), 1, view="T"),), desc="transposed"),
            Sample((special,), desc="special_values_ties")]  # (no gradient cases: 0, inf and NaN)


def ref_frexp(a):
    mantissa, exponent = np.frexp(a)
    return mantissa, exponent.astype(np.int32)


def argwhere_samples(d):
    v = values(d, (3, 4), 0, kind="ties")
    return [Sample((Arr(v, d),), desc="ties"), Sample((Arr(v.T.copy(), d, view="T"),), desc="transposed"),
            Sample((Arr(np.asarray(v[0, 0]), d),), desc="0d")]


def ref_argwhere(a):
    return np.argwhere(a)


def isin_samples(kind):
    def samples(d):
        x = values(d, (3, 4), 0, kind="ties")
        test = values(d, (5,), 1, kind="ties")
        if kind == "Tensor_Tensor":
            return [Sample((Arr(x, d), Arr(test, d)), desc="ties"),
                    Sample((Arr(x, d), Arr(test[:0], d)), desc="empty_test"),
                    Sample((Arr(x.T.copy(), d, view="T"), Arr(test.reshape(5, 1), d)), {"invert": True},
                           desc="invert_2d_test")]
        if kind == "Tensor_Scalar":
            return [Sample((Arr(x, d), 1), desc="scalar_test"), Sample((Arr(x, d), 0), {"invert": True}, desc="invert")]
        return [Sample((1, Arr(test, d)), desc="scalar_element"), Sample((7, Arr(test, d)), desc="absent")]
    return samples


def ref_isin(elements, test_elements, assume_unique=False, invert=False):
    return np.isin(elements, test_elements, invert=invert)


def clamp_one_samples(bound_kind):
    def samples(d):
        if bound_kind == "scalar":
            return [Sample((A(d, (3, 4), 0), 1), desc="scalar_bound"),
                    Sample((A(d, (4, 3), 1, view="T"), -2), desc="transposed")]
        return [Sample((A(d, (3, 4), 0), A(d, (4,), 1)), desc="broadcast_bound"),
                Sample((A(d, (3, 4), 2), A(d, (3, 4), 3)), desc="same_shape")]
    return samples


def ref_clamp_one(lower):
    return lambda a, bound: np.maximum(a, bound) if lower else np.minimum(a, bound)


def inplace(name):
    return lambda lib, x, *a, **k: getattr(x.clone(), name)(*a, **k)


def cumulative_samples(d):
    return [Sample((A(d, (3, 5), 0), 1), desc="rows"),
            Sample((A(d, (4, 3), 1), 0), desc="columns"),
            Sample((A(d, (3, 4), 2, kind="ties"), -1), desc="ties_last_wins"),
            Sample((A(d, (5, 3), 3, view="T"), 1), desc="transposed"),
            Sample((A(d, (), 4), 0), desc="0d")]


def ref_running_extreme(is_max):
    def ref(a, dim):
        if a.ndim == 0:
            return a, np.array(0)
        moved = np.moveaxis(a, dim, -1)
        vals, idxs = np.empty_like(moved), np.zeros(moved.shape, np.int64)
        for pos in np.ndindex(moved.shape[:-1]):
            best, at = moved[pos + (0,)], 0
            for i, x in enumerate(moved[pos]):
                if (x >= best) if is_max else (x <= best):
                    best, at = x, i
                vals[pos + (i,)], idxs[pos + (i,)] = best, at
        return np.moveaxis(vals, -1, dim), np.moveaxis(idxs, -1, dim)
    return ref


def ref_logcumsumexp(a, dim):
    if a.ndim == 0:
        return a
    return np.logaddexp.accumulate(a, axis=dim)


def logcumsumexp_samples(d):
    spread = values(d, (3, 4), 5) * 300  # far apart: exp overflows or vanishes in a plain composition
    return [s for s in cumulative_samples(d) if "ties" not in s.desc] + [Sample((Arr(spread, d), 1), desc="spread")]


def count_samples(d):
    return [Sample((A(d, (3, 4), 0, kind="ties"),), desc="all"),
            Sample((A(d, (3, 4), 1, kind="ties"),), {"dim": 1}, desc="dim1"),
            Sample((A(d, (3, 4, 2), 2, kind="ties"), [0, 2]), desc="dims_0_2"),
            Sample((A(d, (4, 3), 3, kind="ties", view="T"),), {"dim": 0}, desc="transposed")]


def ref_count_nonzero(a, dim=None):
    return np.count_nonzero(a, axis=tuple(dim) if isinstance(dim, list) else dim)


def with_nans(d, shape, seed):
    v = values(d, shape, seed)
    if d in FLOATS:
        v = v.copy()
        v.reshape(-1)[::3] = np.nan
    return Arr(v, d)


def nan_reduction_samples(d):
    return [Sample((with_nans(d, (3, 4), 0),), desc="all"),
            Sample((with_nans(d, (3, 4), 1),), {"dim": 1}, desc="dim1"),
            Sample((with_nans(d, (3, 4, 2), 2),), {"dim": [0, 2], "keepdim": True}, desc="dims_keepdim")]


def ref_nansum(a, dim=None, keepdim=False):
    return np.nansum(a, axis=axis(dim, a.ndim), keepdims=keepdim)


def ref_nanmean(a, dim=None, keepdim=False):
    with np.errstate(all="ignore"):
        return np.nanmean(a, axis=axis(dim, a.ndim), keepdims=keepdim)


def aminmax_samples(d):
    return [Sample((A(d, (3, 4), 0),), desc="all"),
            Sample((A(d, (3, 4), 1),), {"dim": 1}, desc="dim1"),
            Sample((A(d, (3, 4), 2),), {"dim": 0, "keepdim": True}, desc="dim0_keepdim"),
            Sample((A(d, (4, 3), 3, view="T"),), {"keepdim": True}, desc="transposed_all_keepdim")]


def ref_aminmax(a, dim=None, keepdim=False):
    return np.amin(a, axis=dim, keepdims=keepdim), np.amax(a, axis=dim, keepdims=keepdim)


def moments_samples(overload):
    def samples(d):
        if overload == "correction":
            return [Sample((A(d, (3, 4), 0),), desc="all"),
                    Sample((A(d, (3, 4), 1), [1]), {"correction": 0, "keepdim": True}, desc="dim1_population"),
                    Sample((A(d, (4, 3), 2, view="T"),), {"dim": [0]}, desc="transposed")]
        if overload == "unbiased":
            return [Sample((A(d, (3, 4), 3), False), desc="biased_all")]
        return [Sample((A(d, (3, 4), 4), [0], True, True), desc="dim0_keepdim")]
    return samples


def ref_moments(std):
    def ref(a, dim=None, unbiased=True, keepdim=False, correction=None):
        if isinstance(dim, bool):  # the (self, unbiased) overload
            dim, unbiased = None, dim
        ddof = (1 if unbiased else 0) if correction is None else correction
        ax = axis(dim, a.ndim)
        spread = np.std if std else np.var
        return spread(a, axis=ax, ddof=ddof, keepdims=keepdim), np.mean(a, axis=ax, keepdims=keepdim)
    return ref


def trapezoid_samples(form):
    def samples(d):
        if form == "x":
            x = np.sort(values("float64", (5,), 7))
            grid = np.sort(values("float64", (3, 5), 8), axis=1)
            return [Sample((A(d, (3, 5), 0), Arr(x, d)), desc="shared_x"),
                    Sample((A(d, (3, 5), 1), Arr(grid, d)), {"dim": 1}, desc="x_per_row"),
                    Sample((A(d, (5, 3), 2, view="T"), Arr(x[:3], d)), desc="transposed")]
        return [Sample((A(d, (3, 5), 3),), desc="unit_spacing"),
                Sample((A(d, (4, 3), 4),), {"dx": 0.5, "dim": 0}, desc="dx_dim0"),
                Sample((A(d, (2, 0), 5),), desc="empty")]
    return samples


def ref_trapezoid_pieces(y, x=None, dx=1, dim=-1):
    y = np.moveaxis(y, dim, -1)
    heights = (y[..., 1:] + y[..., :-1]) * 0.5
    if x is None:
        spacing = dx
    else:
        spacing = np.diff(np.moveaxis(x, dim, -1) if x.ndim > 1 else x, axis=-1)
    return heights * spacing


def ref_trapezoid(cumulative):
    def ref(y, x=None, dx=1, dim=-1):
        pieces = ref_trapezoid_pieces(y, x, dx, dim)
        out = np.cumsum(pieces, axis=-1) if cumulative else pieces.sum(-1)
        return np.moveaxis(out, -1, dim % y.ndim) if cumulative else out
    return ref


def cross_samples(d):
    return [Sample((A(d, (4, 3), 0), A(d, (4, 3), 1)), {"dim": 1}, desc="rows"),
            Sample((A(d, (3, 2), 2), A(d, (3, 1), 3)), {"dim": 0}, desc="broadcast_columns"),
            Sample((A(d, (2, 3), 4), A(d, (2, 3), 5)), desc="first_dim_of_3")]


def ref_cross(a, b, dim=None):
    if dim is None:
        dim = next(i for i, n in enumerate(np.broadcast_shapes(a.shape, b.shape)) if n == 3)
    return np.cross(a, b, axis=dim)


def two_tensor_samples(*pairs):
    def samples(d):
        return [Sample((A(d, sa, 2 * i), A(d, sb, 2 * i + 1)), desc=f"{sa}_{sb}") for i, (sa, sb) in enumerate(pairs)]
    return samples


FFT_DTYPES = ("float32", "float64") + COMPLEX
LAPACK_DTYPES = ("float32", "float64") + COMPLEX


def well_conditioned(d, shape, seed=0):
    """Matrices with a dominant diagonal (invertible, well conditioned)."""
    x = values(d, shape, seed) * 0.1
    return Arr(x + 4 * np.eye(shape[-1], dtype=x.dtype), d)


def positive_definite(d, shape, seed=0):
    x = values(d, shape, seed) * 0.3
    return Arr(x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1], dtype=x.dtype), d)


def square_samples(make):
    def samples(d):
        return [Sample((make(d, (3, 3), 0),), desc="single"), Sample((make(d, (2, 4, 4), 1),), desc="batched")]
    return samples


def solve_samples(make):
    def samples(d):
        return [Sample((make(d, (3, 3), 0), A(d, (3, 2), 1)), desc="matrix"),
                Sample((make(d, (2, 4, 4), 2), A(d, (2, 4, 3), 3)), desc="batched")]
    return samples


def linalg_fn(name, lib=None, post=None):
    def call(lib_, *a, **k):
        result = getattr((lib or lib_).linalg, name)(*a, **k)
        return post(result) if post else result
    if lib is not None:
        return lambda *a, **k: call(None, *a, **k)
    return call


def linalg_op(name, samples, ref=None, post=None, **kw):
    return Op(f"linalg.{name}", samples, LAPACK_DTYPES, ref, fn=linalg_fn(name, post=post),
              torch_fn=linalg_fn(name, torch, post), **kw)


def _scipy(name, *fixed):
    def ref(*args):
        import scipy.special as sp  # imported on use: only these entries need SciPy
        return getattr(sp, name)(*fixed, *args)
    return ref


def grid(lo, hi, n=29):
    """Evenly spread values of [lo, hi] (endpoints included) as a sample."""
    def samples(d):
        x = np.linspace(lo, hi, n).astype(storage_dtype(d))
        return [Sample((Arr(x, d),), desc="grid"), Sample((Arr(x.reshape(-1, 1)[: n - n % 2].reshape(2, -1), d),),
                                                        desc="2d")]
    return samples


def grid2(lo, hi, other, n=17):
    def samples(d):
        x = np.linspace(lo, hi, n).astype(storage_dtype(d))
        return [Sample((Arr(x, d), Arr(np.full(n, other, dtype=storage_dtype(d)), d)), desc=f"other{other}")]
    return samples


def special_op(name, samples, ref, torch_too=True, aten=None, **kw):
    """An ember.special function checked against SciPy (and torch, where torch is as accurate)."""
    def make(lib_or_none):
        if lib_or_none is None:
            return lambda lib, *a: getattr(lib.special, name)(*a)
        return lambda *a: getattr(lib_or_none.special, name)(*a)

    def no_torch(d):
        return [dataclasses.replace(smp, torch=False) for smp in samples(d)]
    return Op(f"special.{name}", samples if torch_too else no_torch, ("float32", "float64"), ref, fn=make(None),
              torch_fn=make(torch), aten=aten, **kw)


def _triu_solve(a, b):
    return np.linalg.solve(np.triu(a), b)


def fft_fn(name, lib=None):
    if lib is not None:
        return lambda *a, **k: getattr(lib.fft, name)(*a, **k)
    return lambda lib_, *a, **k: getattr(lib_.fft, name)(*a, **k)


def ref_fft(name):
    """NumPy's transform with torch's argument names (dim for axis/axes)."""
    f = getattr(np.fft, name)
    if name.endswith("n"):
        return lambda a, s=None, dim=None, norm=None: f(a, s, dim, norm)
    return lambda a, n=None, dim=-1, norm=None: f(a, n, dim, norm)


def fft_samples(name):
    def samples(d):
        out = [Sample((A(d, (3, 8), 0),), desc="rows"),
               Sample((A(d, (3, 8), 1, view="T"),), {"norm": "ortho"}, desc="transposed_ortho")]
        if name.endswith("n"):
            out.append(Sample((A(d, (2, 3, 4), 2),), {"s": (4, 6), "norm": "forward"}, desc="s_forward"))
        else:
            out.append(Sample((A(d, (5, 6), 2),), {"n": 7, "dim": 0}, desc="n_dim0"))
        return out
    return samples


def ref_inner(a, b):
    return np.inner(a, b)


def addr_samples(d):
    return [Sample((A(d, (3, 4), 0), A(d, (3,), 1), A(d, (4,), 2)), desc="plain"),
            Sample((A(d, (4,), 3), A(d, (3,), 4), A(d, (4,), 5)), {"beta": 2, "alpha": 3}, desc="broadcast_scaled"),
            Sample((A(d, (3, 4), 6), A(d, (3,), 7), A(d, (4,), 8)), {"beta": 0}, desc="beta0")]


def addr_inplace_samples(d):
    return [s for s in addr_samples(d) if s.desc != "broadcast_scaled"]


def ref_addr(a, v1, v2, beta=1, alpha=1):
    product = alpha * np.outer(v1, v2)
    return product + (0 * a if beta == 0 else beta * a)


def dist_samples(d):
    return [Sample((A(d, (3, 4), 0), A(d, (3, 4), 1)), desc="p2"),
            Sample((A(d, (3, 4), 2), A(d, (4,), 3), 1), desc="p1_broadcast"),
            Sample((A(d, (5,), 4), A(d, (5,), 5), INF), desc="pinf"),
            Sample((A(d, (5,), 6), A(d, (5,), 7), 3.5), desc="p3.5")]


def ref_dist(a, b, p=2):
    diff = np.abs(a - b).reshape(-1)
    return diff.max() if p == INF else (diff ** p).sum() ** (1 / p)


def cartesian_samples(d):
    return [Sample((A(d, (2,), 0), A(d, (3,), 1)), desc="two"), Sample((A(d, (2,), 2), A(d, (1,), 3), A(d, (2,), 4)),
                                                                  desc="three"),
            Sample((A(d, (3,), 5),), desc="one")]


def ref_cartesian_prod(*vectors):
    if len(vectors) == 1:
        return vectors[0]
    grids = np.meshgrid(*vectors, indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1)


# ---- windows, spaced values and quantiles -------------------------------------------------------------


def window_samples(d):
    kw = {"dtype": DT(d)}
    return [Sample((0,), kw, desc="empty"), Sample((1,), kw, desc="one"), Sample((6,), kw, desc="periodic"),
            Sample((7, False), kw, desc="symmetric")]


def ref_window(name):
    def ref(length, periodic=True, alpha=0.54, beta=0.46, dtype=None):
        if length <= 1:
            return np.ones(length)
        span = length if periodic else length - 1
        n = np.arange(length)
        if name == "hann":
            return 0.5 - 0.5 * np.cos(2 * np.pi * n / span)
        if name == "hamming":
            return alpha - beta * np.cos(2 * np.pi * n / span)
        if name == "blackman":
            return 0.42 - 0.5 * np.cos(2 * np.pi * n / span) + 0.08 * np.cos(4 * np.pi * n / span)
        return 1 - np.abs(2 * n / span - 1)
    return ref


def logspace_samples(d):
    return [Sample((-1, 2, 4), {"dtype": DT(d)}, desc="decades"),
            Sample((0, 3, 4), {"base": 2.0, "dtype": DT(d)}, desc="base2"),
            Sample((1, 1, 0), {"dtype": DT(d)}, desc="empty")]


def ref_logspace(start, end, steps, base=10.0, dtype=None):
    values_ = base ** np.linspace(start, end, steps)
    return values_.astype(np.int64) if dtype in INTS else values_  # truncated, as the cast to integers


def range_samples(d):
    return [Sample((0, 4), {"dtype": DT(d)}, desc="integers"), Sample((1, 2, 0.25), {"dtype": DT(d)}, desc="quarters"),
            Sample((3, 0, -1.5), {"dtype": DT(d)}, desc="down")]


def ref_range(start, end, step=1, dtype=None):
    return start + step * np.arange(int(np.floor((end - start) / step)) + 1)


def quantile_samples(overload, nan):
    def samples(d):
        x = values(d, (4, 7), 0)
        if nan:
            x = x.copy()
            x[1, 2] = x[3, 0] = np.nan
        q = Arr(np.array([0.0, 0.3, 1.0]), d) if overload == "tensor" else 0.3
        return [Sample((Arr(x, d), q), desc="all"),
                Sample((Arr(x, d), q, 1), desc="dim1"),
                Sample((Arr(x, d), q, 0, True), desc="dim0_keepdim"),
                Sample((Arr(x, d), q), {"interpolation": "lower"}, desc="lower"),
                Sample((Arr(x, d), q, -1), {"interpolation": "midpoint"}, desc="midpoint"),
                Sample((Arr(x, d), q, 0), {"interpolation": "nearest"}, desc="nearest"),
                Sample((Arr(x.T.copy(), d, view="T"), q, 1), {"interpolation": "higher"}, desc="transposed_higher")]
    return samples


def ref_quantile(nan):
    def ref(a, q, dim=None, keepdim=False, interpolation="linear"):
        method = "nanquantile" if nan else "quantile"
        return getattr(np, method)(a, q, axis=dim, keepdims=keepdim, method=interpolation)
    return ref


def nanmedian_samples(d):
    x = values(d, (3, 5), 0)
    if d in FLOATS:
        x = x.copy()
        x[0, 1] = x[2, :] = np.nan
    return [Sample((Arr(x, d),), desc="all"), Sample((Arr(x, d), 1), desc="dim1"),
            Sample((Arr(x.T.copy(), d, view="T"), 0, True), desc="transposed_keepdim")]


def ref_nanmedian(a, dim=None, keepdim=False):
    if dim is None:
        flat = np.sort(a.reshape(-1))
        valid = flat[~np.isnan(flat)] if flat.dtype.kind == "f" else flat
        return valid[(len(valid) - 1) // 2] if len(valid) else np.nan
    moved = np.sort(np.moveaxis(a, dim, -1), axis=-1)
    out = []
    for row in moved.reshape(-1, moved.shape[-1]):
        valid = row[~np.isnan(row)] if row.dtype.kind == "f" else row
        out.append(valid[(len(valid) - 1) // 2] if len(valid) else np.nan)
    values_ = np.array(out).reshape(moved.shape[:-1])
    return np.expand_dims(values_, dim) if keepdim else values_


# ---- the table ------------------------------------------------------------------------


@dataclass
class Op:
    name: str  # test id
    samples: Callable  # samples(dtype) -> [Sample]
    dtypes: tuple
    ref: Optional[Callable] = None  # NumPy reference on build_ref(args)
    fn: Optional[Callable] = None  # fn(lib, *args, **kwargs); default lib.<aten>
    torch_fn: Optional[Callable] = None  # torch's spelling where it differs
    aten: Optional[str] = None
    method: bool = False  # Tensor.<aten> exists: checked against the function
    tol: Callable = lambda d: 1.0  # tolerance multiplier per input dtype
    named: tuple = ()  # field names of a returned named tuple
    dtype_xfails: dict = field(default_factory=dict)  # dtype -> marks for every sample of it
    data_dependent: bool = False  # the result's geometry needs values (not run on meta)
    # Positions of the arguments to differentiate in gradient cases made from
    # the float64 samples (opdb/gradients.py); empty: hand-made cases only.
    grad: tuple = ()

    def call(self, lib, args, kwargs):
        if lib is torch and self.torch_fn is not None:
            return self.torch_fn(*args, **kwargs)
        if self.fn is not None:
            return self.fn(lib, *args, **kwargs)
        return getattr(lib, self.aten or self.name)(*args, **kwargs)


def representative_samples(op):
    """The samples one dtype (float32 where the op takes it) gives, without
    known failures, whose first argument is a tensor or a list of tensors:
    what the method and Meta tests run."""
    d = "float32" if "float32" in op.dtypes else op.dtypes[-1]
    return [s for s in op.samples(d) if not s.marks and isinstance(s.args[0], (Arr, list))]


def axis(dim, ndim):
    if dim is None or ndim == 0:
        return None
    if isinstance(dim, (list, tuple)):
        return tuple(dim) if len(dim) else None
    return dim


def lowp_loose(factor):
    return lambda d: factor if d in LOWP else 1.0


# -- reductions --


def reduction_samples(d, kind="normal", dims=True, allow_empty=True, dim_lists=True, single_dim=False):
    s = [Sample((A(d, (3, 4, 5), 0, kind),), desc="full")]
    s.append(Sample((A(d, (4, 6), 1, kind, view="T"),), desc="transposed_full"))
    s.append(Sample((A(d, (), 2, kind),), desc="0d"))
    if allow_empty:
        s.append(Sample((A(d, (0, 3), 3, kind),), desc="empty_full"))
    if dims:
        if single_dim:
            s += [
                Sample((A(d, (3, 4, 5), 4, kind), 1), desc="dim1"),
                Sample((A(d, (3, 4, 5), 5, kind), -1), {"keepdim": True}, desc="dim-1_keepdim"),
                Sample((A(d, (4, 6), 6, kind, view="T"), 0), desc="transposed_dim0"),
                Sample((A(d, (3, 8), 7, kind, view="strided"), 1), desc="strided_dim1"),
                Sample((A(d, (), 8, kind), 0), desc="0d_dim0"),
                Sample((A(d, (5, 4), 14, kind), 0), desc="dim0_columns"),
            ]
            if allow_empty:
                s.append(Sample((A(d, (0, 3), 9, kind), 0), desc="empty_dim0"))
        else:
            s += [
                Sample((A(d, (3, 4, 5), 4, kind),), {"dim": [1]}, desc="dim1"),
                Sample((A(d, (3, 4, 5), 5, kind),), {"dim": [-1], "keepdim": True}, desc="dim-1_keepdim"),
                Sample((A(d, (4, 6), 6, kind, view="T"),), {"dim": [0]}, desc="transposed_dim0"),
                Sample((A(d, (3, 8), 7, kind, view="strided"),), {"dim": [1]}, desc="strided_dim1"),
                Sample((A(d, (), 8, kind),), {"dim": [0]}, desc="0d_dim0"),
            ]
            if dim_lists:
                s += [
                    # Leading dims of a contiguous input: the column-wise loop.
                    Sample((A(d, (3, 4, 5), 14, kind),), {"dim": [0]}, desc="dim0_columns"),
                    Sample((A(d, (3, 4, 5), 15, kind),), {"dim": [1, 0], "keepdim": True}, desc="dims01_columns"),
                    Sample((A(d, (3, 4, 5), 10, kind),), {"dim": [0, 2]}, desc="dims02"),
                    Sample((A(d, (3, 4, 5), 11, kind),), {"dim": [-1, -3], "keepdim": True}, desc="dims-1-3_keepdim"),
                    Sample((A(d, (2, 3, 4), 12, kind, view="T"),), {"dim": [0, 1]}, desc="transposed_dims01"),
                ]
            if allow_empty:
                s.append(Sample((A(d, (0, 3), 9, kind),), {"dim": [0]}, desc="empty_dim0"))
                s.append(Sample((A(d, (0, 3), 13, kind),), {"dim": [1]}, desc="empty_dim1"))
    return s


def ref_sum(a, dim=None, keepdim=False, dtype=None):
    return np.sum(a, axis=axis(dim, a.ndim), keepdims=keepdim)


def large_samples(d, kind="normal", dim_kw=True):
    """Long rows: split over threads (and the vectorized float sum)."""
    return [
        Sample((A(d, (70000,), 40, kind),), desc="large_full"),
        Sample((A(d, (3, 40000), 41, kind),), {"dim": [1]} if dim_kw else {"dim": 1}, desc="large_rows"),
    ]


def sum_samples(d):
    s = reduction_samples(d) + large_samples(d)
    s.append(Sample((A(d, (3, 4), 20), [0, 1], True), desc="positional_dims_keepdim"))
    s.append(Sample((A(d, (3, 4), 21),), {"dtype": DT(wide(d, 64))}, desc="dtype_float64"))
    s.append(Sample((A(d, (3, 4), 22),), {"dim": [1], "dtype": DT(wide(d, 32))}, desc="dim_dtype_float32"))
    s.append(Sample((A(d, (3, 4), 23),), {"dim": []}, desc="empty_dim_list_is_all"))
    return s


def mean_samples(d):
    s = reduction_samples(d) + large_samples(d)
    s.append(Sample((A(d, (3, 4), 21),), {"dtype": DT(wide(d, 64))}, desc="dtype_float64"))
    return s


def ref_prod(a, dim=None, keepdim=False, dtype=None):
    return np.prod(a, axis=axis(dim, a.ndim), keepdims=keepdim)


def prod_samples(d):
    s = reduction_samples(d, kind="prod", single_dim=True)
    s.append(Sample((A(d, (3, 4), 21, "prod"),), {"dtype": DT(wide(d, 64))}, desc="dtype_float64"))
    s.append(Sample((A(d, (3, 4), 22, "prod"), 1), {"dtype": DT(wide(d, 64))}, desc="dim_dtype_float64"))
    return s


def nan_sample(d, kw=None, desc="nan"):
    v = values(d, (3, 4), 30)
    v[1, 2] = np.nan
    v[2, 0] = np.nan
    return Sample((Arr(v, d),), kw or {}, desc=desc)


def ref_amax(a, dim=(), keepdim=False):
    return np.max(a, axis=axis(dim, a.ndim), keepdims=keepdim)


def ref_amin(a, dim=(), keepdim=False):
    return np.min(a, axis=axis(dim, a.ndim), keepdims=keepdim)


def amax_samples(d):
    s = [x for x in reduction_samples(d) if x.desc not in ("empty_full", "empty_dim0")] + large_samples(d)
    s.append(Sample((A(d, (3, 4), 1, "ties"),), {"dim": [1]}, desc="ties"))
    if d in FLOATS:
        s.append(nan_sample(d, {"dim": [1]}))
    return s


def max_full_samples(d):
    s = [Sample((A(d, (3, 4, 5), 0),), desc="full"),
         Sample((A(d, (4, 6), 1, view="T"),), desc="transposed"),
         Sample((A(d, (), 2),), desc="0d")]
    if d in FLOATS:
        s.append(nan_sample(d))
    return s


def ref_max_dim(a, dim, keepdim=False):
    return np.max(a, axis=dim, keepdims=keepdim), np.argmax(a, axis=dim, keepdims=keepdim)


def ref_min_dim(a, dim, keepdim=False):
    return np.min(a, axis=dim, keepdims=keepdim), np.argmin(a, axis=dim, keepdims=keepdim)


def max_dim_samples(d):
    s = [
        Sample((A(d, (3, 4, 5), 0), 1), desc="dim1"),
        Sample((A(d, (3, 4, 5), 1), -1), {"keepdim": True}, desc="dim-1_keepdim"),
        Sample((A(d, (4, 6), 2, view="T"), 0), desc="transposed_dim0"),
        Sample((A(d, (3, 8), 3, view="strided"), 1), desc="strided_dim1"),
        Sample((A(d, (), 4), 0), desc="0d"),
        Sample((A(d, (0, 3), 5), 1), desc="empty_kept_dim"),
        Sample((A(d, (4, 7), 6, "ties"), 1), desc="ties_first_index"),
        Sample((A(d, (7, 4), 7, "ties"), 0), desc="ties_first_index_dim0"),
        Sample((A(d, (3, 40000), 8, "ties"), 1), desc="large_ties_rows"),
    ]
    if d in FLOATS:
        s.append(Sample(nan_sample(d).args + (1,), desc="nan"))
    return s


def ref_argmax(a, dim=None, keepdim=False):
    if a.ndim == 0:
        return np.array(0)
    return np.argmax(a, axis=dim, keepdims=keepdim)


def ref_argmin(a, dim=None, keepdim=False):
    if a.ndim == 0:
        return np.array(0)
    return np.argmin(a, axis=dim, keepdims=keepdim)


def argmax_samples(d):
    s = [
        Sample((A(d, (3, 4, 5), 0),), desc="flat"),
        Sample((A(d, (3, 4, 5), 0),), {"keepdim": True}, desc="flat_keepdim"),
        Sample((A(d, (3, 4, 5), 1),), {"dim": 1}, desc="dim1"),
        Sample((A(d, (3, 4, 5), 2),), {"dim": -1, "keepdim": True}, desc="dim-1_keepdim"),
        Sample((A(d, (4, 6), 3, view="T"),), {"dim": 0}, desc="transposed_dim0"),
        Sample((A(d, (4, 6), 3, view="T"),), desc="transposed_flat"),
        Sample((A(d, (), 4),), desc="0d"),
        Sample((A(d, (5, 7), 5, "ties"),), desc="ties_flat"),
        Sample((A(d, (5, 7), 6, "ties"),), {"dim": 1}, desc="ties_dim1"),
        Sample((A(d, (7, 5), 7, "ties"),), {"dim": 0}, desc="ties_dim0"),
        Sample((A(d, (0, 3), 8),), {"dim": 1}, desc="empty_kept_dim"),
        Sample((A(d, (70000,), 9, "ties"),), desc="large_ties_flat"),
        Sample((A(d, (3, 40000), 10, "ties"),), {"dim": 1}, desc="large_ties_rows"),
    ]
    if d in FLOATS:
        s.append(nan_sample(d, desc="nan_flat"))
        s.append(nan_sample(d, {"dim": 1}, desc="nan_dim1"))
        s.append(nan_sample(d, {"dim": 0}, desc="nan_dim0"))
    return s


def ref_var(a, dim=None, unbiased=None, keepdim=False, correction=None):
    ddof = 1 if correction is None else correction
    if unbiased is not None:
        ddof = 1 if unbiased else 0
    with np.errstate(all="ignore"):
        return np.var(a, axis=axis(dim, a.ndim), ddof=ddof, keepdims=keepdim)


def ref_std(*args, **kwargs):
    return np.sqrt(ref_var(*args, **kwargs))


def var_samples(d):
    x = lambda seed, view=None, shape=(3, 4, 5): A(d, shape if view is None else (4, 6), seed, view=view)
    return [
        Sample((x(0),), desc="full"),
        Sample((x(1),), {"unbiased": False}, desc="full_biased"),
        Sample((x(2), [1]), desc="dim1_positional_unbiased"),
        Sample((x(3), [0, 2], False, True), desc="dims02_biased_keepdim"),
        Sample((x(4),), {"dim": [-1], "correction": 0}, desc="correction0"),
        Sample((x(5),), {"dim": [0, 1], "correction": 2, "keepdim": True}, desc="correction2_keepdim"),
        Sample((x(6, "T"),), {"dim": [0]}, desc="transposed"),
        Sample((A(d, (3, 8), 7, view="strided"),), {"dim": [1]}, desc="strided"),
        Sample((A(d, (3, 1), 8),), {"dim": [1]}, desc="single_element_is_nan"),
    ]


def ref_norm(a, p=2, dim=(), keepdim=False):
    ax = axis(dim, a.ndim)
    a = np.abs(a)
    if p == INF:
        return np.max(a, axis=ax, keepdims=keepdim)
    if p == -INF:
        return np.min(a, axis=ax, keepdims=keepdim)
    if p == 0:
        return np.sum(a != 0, axis=ax, keepdims=keepdim).astype(float)
    return np.sum(a ** p, axis=ax, keepdims=keepdim) ** (1.0 / p)


def norm_samples(d):
    s = []
    for p in (1, 2, INF, -INF, 0, 3):
        s.append(Sample((A(d, (3, 4, 5), 0), p), desc=f"p{p}_full"))
        s.append(Sample((A(d, (3, 4, 5), 1), p, [1]), desc=f"p{p}_dim1"))
        s.append(Sample((A(d, (3, 4, 5), 2), p, [0, -1], True), desc=f"p{p}_dims0-1_keepdim"))
    s.append(Sample((A(d, (4, 6), 3, view="T"), 2, [0]), desc="p2_transposed"))
    s.append(Sample((A(d, (4, 6), 4),), desc="default_p"))
    v = values(d, (3, 4), 5)
    v[0, 1] = 0
    v[2, :2] = 0
    s.append(Sample((Arr(v, d), 0, [1]), desc="p0_with_zeros"))
    return s


def torch_norm(x, p=2, dim=None, keepdim=False):
    return torch.linalg.vector_norm(x, ord=p, dim=dim if dim else None, keepdim=keepdim)


def ref_logsumexp(a, dim, keepdim=False):
    a = a.astype(np.float64)
    ax = axis(dim, a.ndim)
    m = np.max(a, axis=ax, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)
    with np.errstate(all="ignore"):
        r = np.log(np.sum(np.exp(a - m), axis=ax, keepdims=True)) + m
    if keepdim or a.ndim == 0:
        return r
    return np.squeeze(r, axis=ax)


def logsumexp_samples(d):
    s = [
        Sample((A(d, (3, 4, 5), 0), [1]), desc="dim1"),
        Sample((A(d, (3, 4, 5), 1), [0, 2]), desc="dims02"),
        Sample((A(d, (3, 4, 5), 2), [-1], True), desc="dim-1_keepdim"),
        Sample((A(d, (4, 6), 3, view="T"), [0]), desc="transposed"),
        Sample((A(d, (), 4), [0]), desc="0d"),
        # torch.logsumexp(x, []) raises (a shape error); Ember reduces every
        # dim, as sum(dim=[]) does. Deliberate: NumPy only.
        Sample((A(d, (3, 4), 5), []), desc="empty_dim_list_all", torch=False),
    ]
    if d in FLOATS:
        v = values(d, (4, 3), 6)
        v[1, :] = -np.inf
        v[2, 0] = np.inf
        v[3, 1] = -np.inf
        s.append(Sample((Arr(v, d), [1]), desc="inf_rows"))
    return s


def all_samples(d):
    s = [x for x in reduction_samples(d, dim_lists=False, single_dim=True)]
    v = np.ones((3, 4), storage_dtype(d))
    v[1, 2] = 0
    s.append(Sample((Arr(v, d), 1), desc="one_zero"))
    return s


def ref_all(a, dim=None, keepdim=False):
    return np.all(a, axis=axis(dim, a.ndim), keepdims=keepdim)


def ref_any(a, dim=None, keepdim=False):
    return np.any(a, axis=axis(dim, a.ndim), keepdims=keepdim)


UINT8_ALL = "torch's all/any keep uint8 for uint8 input (legacy); Ember returns bool"


def ref_softmax(a, dim, dtype=None, log=False):
    if a.ndim == 0:
        return np.zeros(()) if log else np.ones(())
    a = a.astype(np.float64)
    m = np.max(a, axis=dim, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)
    with np.errstate(all="ignore"):
        e = np.exp(a - m)
        total = np.sum(e, axis=dim, keepdims=True)
        return a - m - np.log(total) if log else e / total


def softmax_samples(d):
    s = [
        Sample((A(d, (3, 4, 5), 0), 1), desc="dim1"),
        Sample((A(d, (3, 4, 5), 1), -1), desc="dim-1"),
        Sample((A(d, (3, 4, 5), 2), 0), desc="dim0"),
        Sample((A(d, (4, 6), 3, view="T"), 1), desc="transposed"),
        Sample((A(d, (3, 8), 4, view="strided"), -1), desc="strided"),
        Sample((A(d, (), 5), 0), desc="0d"),
        Sample((A(d, (0, 3), 6), 1), desc="empty"),
        Sample((A(d, (3, 4), 7), 1), {"dtype": DT(wide(d, 64))}, desc="dtype_float64"),
    ]
    v = values(d, (3, 4), 8)
    v[1, :] = -np.inf
    v[2, 0] = -np.inf
    s.append(Sample((Arr(v, d), 1), desc="neg_inf_rows"))
    s.append(Sample((Arr(np.arange(12).reshape(3, 4) % 5, "int64"), 1),
                    {"dtype": DT("float32")}, desc="int_input_with_dtype"))
    return s


def ref_cumsum(a, dim, dtype=None):
    if a.ndim == 0:
        return a.copy()
    return np.cumsum(a, axis=dim)


def ref_cumprod(a, dim, dtype=None):
    if a.ndim == 0:
        return a.copy()
    return np.cumprod(a, axis=dim)


def cum_samples(d, kind="normal"):
    return [
        Sample((A(d, (3, 4, 5), 0, kind), 1), desc="dim1"),
        Sample((A(d, (3, 4, 5), 1, kind), -1), desc="dim-1"),
        Sample((A(d, (3, 4, 5), 2, kind), 0), desc="dim0"),
        Sample((A(d, (4, 6), 3, kind, view="T"), 1), desc="transposed"),
        Sample((A(d, (3, 8), 4, kind, view="strided"), 1), desc="strided"),
        Sample((A(d, (), 5, kind), 0), desc="0d"),
        Sample((A(d, (0, 3), 6, kind), 0), desc="empty"),
        Sample((A(d, (3, 4), 7, kind), 1), {"dtype": DT(wide(d, 64))}, desc="dtype_float64"),
    ]


# -- linear algebra --

LINALG_DTYPES = ("float32", "float64", "complex64", "int64")


def mm_samples(d):
    return [
        Sample((A(d, (3, 4), 0), A(d, (4, 5), 1)), desc="plain"),
        Sample((A(d, (3, 4), 2, view="T"), A(d, (4, 5), 3)), desc="self_transposed"),
        Sample((A(d, (3, 4), 4), A(d, (4, 5), 5, view="T")), desc="other_transposed"),
        Sample((A(d, (3, 4), 6, view="T"), A(d, (4, 5), 7, view="T")), desc="both_transposed"),
        Sample((A(d, (3, 4), 8, view="strided"), A(d, (4, 5), 9, view="strided")), desc="strided"),
        Sample((A(d, (1, 4), 10), A(d, (4, 1), 11)), desc="row_col"),
        Sample((A(d, (0, 4), 12), A(d, (4, 5), 13)), desc="empty_m"),
        Sample((A(d, (3, 0), 14), A(d, (0, 5), 15)), desc="empty_k"),
        Sample((A(d, (40, 33), 16), A(d, (33, 20), 17)), desc="larger"),
    ]


def bmm_samples(d):
    return [
        Sample((A(d, (2, 3, 4), 0), A(d, (2, 4, 5), 1)), desc="plain"),
        Sample((A(d, (2, 3, 4), 2, view="T"), A(d, (2, 4, 5), 3, view="T")), desc="transposed"),
        Sample((A(d, (2, 3, 4), 4, view="strided"), A(d, (2, 4, 5), 5)), desc="strided"),
        Sample((A(d, (0, 3, 4), 6), A(d, (0, 4, 5), 7)), desc="empty_batch"),
        Sample((A(d, (2, 3, 0), 8), A(d, (2, 0, 5), 9)), desc="empty_k"),
    ]


def ref_addmm(s, a, b, beta=1, alpha=1):
    p = alpha * (a @ b)
    return p if beta == 0 else beta * s + p


def addmm_samples(d):
    fl = d != "int64"
    beta, alpha = (0.5, 2.0) if fl else (2, 3)
    nan_self = values(d, (3, 5), 9)
    if fl:
        nan_self[0, 0] = np.nan
    return [
        Sample((A(d, (3, 5), 0), A(d, (3, 4), 1), A(d, (4, 5), 2)), desc="plain"),
        Sample((A(d, (3, 5), 3), A(d, (3, 4), 4), A(d, (4, 5), 5)), {"beta": beta, "alpha": alpha}, desc="beta_alpha"),
        Sample((A(d, (5,), 6), A(d, (3, 4), 7), A(d, (4, 5), 8)), desc="broadcast_row_self"),
        Sample((A(d, (3, 1), 6), A(d, (3, 4), 7), A(d, (4, 5), 8)), {"alpha": alpha}, desc="broadcast_col_self"),
        Sample((A(d, (), 6), A(d, (3, 4), 7), A(d, (4, 5), 8)), desc="broadcast_0d_self"),
        Sample((A(d, (3, 5), 10, view="T"), A(d, (3, 4), 11, view="T"), A(d, (4, 5), 12, view="T")),
               desc="transposed"),
        # beta=0: self is ignored, NaN included (as in torch).
        Sample((Arr(nan_self, d), A(d, (3, 4), 13), A(d, (4, 5), 14)), {"beta": 0}, desc="beta0_ignores_self"),
        Sample((A(d, (3, 5), 15), A(d, (3, 0), 16), A(d, (0, 5), 17)), {"beta": beta}, desc="empty_k"),
    ]


def mv_samples(d):
    return [
        Sample((A(d, (3, 4), 0), A(d, (4,), 1)), desc="plain"),
        Sample((A(d, (3, 4), 2, view="T"), A(d, (4,), 3)), desc="transposed"),
        Sample((A(d, (3, 4), 4), A(d, (4,), 5, view="strided")), desc="strided_vec"),
        Sample((A(d, (0, 4), 6), A(d, (4,), 7)), desc="empty"),
    ]


def dot_samples(d):
    return [
        Sample((A(d, (7,), 0), A(d, (7,), 1)), desc="plain"),
        Sample((A(d, (7,), 2, view="strided"), A(d, (7,), 3)), desc="strided"),
        Sample((A(d, (0,), 4), A(d, (0,), 5)), desc="empty"),
    ]


def trace_samples(d):
    return [
        Sample((A(d, (3, 3), 0),), desc="square"),
        Sample((A(d, (2, 5), 1),), desc="wide"),
        Sample((A(d, (5, 2), 2, view="T"),), desc="tall_transposed"),
        Sample((A(d, (4, 3), 3, view="strided"),), desc="strided"),
        Sample((A(d, (0, 3), 4),), desc="empty"),
    ]


MATMUL_EMPTY_K = (
    "matmul of an N-D (N >= 3) by a 1-/2-D operand with an empty contracted dim raises "
    "\"shape '[-1, 0]' is invalid for input of size 0\" (reshape(-1, 0)); torch returns zeros"
)


def matmul_samples(d):
    return [
        Sample((A(d, (4,), 0), A(d, (4,), 1)), desc="1d_1d"),
        Sample((A(d, (3, 4), 2), A(d, (4,), 3)), desc="2d_1d"),
        Sample((A(d, (4,), 4), A(d, (4, 5), 5)), desc="1d_2d"),
        Sample((A(d, (3, 4), 6, view="T"), A(d, (4, 5), 7)), desc="2d_2d_transposed"),
        Sample((A(d, (2, 3, 4), 8), A(d, (4, 5), 9)), desc="3d_2d"),
        Sample((A(d, (2, 3, 4), 10), A(d, (4,), 11)), desc="3d_1d"),
        Sample((A(d, (4,), 12), A(d, (2, 4, 5), 13)), desc="1d_3d"),
        Sample((A(d, (3, 4), 14), A(d, (2, 4, 5), 15)), desc="2d_3d"),
        Sample((A(d, (2, 1, 3, 4), 16), A(d, (5, 4, 2), 17)), desc="4d_3d_broadcast"),
        Sample((A(d, (2, 1, 3, 4), 18, view="T"), A(d, (1, 3, 4, 2), 19, view="T")), desc="4d_4d_broadcast_transposed"),
        Sample((A(d, (0, 3, 4), 20), A(d, (4, 2), 21)), desc="empty_batch"),
        Sample((A(d, (2, 3, 0), 22), A(d, (0, 5), 23)), desc="3d_2d_empty_k"),
        Sample((A(d, (2, 3, 0), 22), A(d, (2, 0, 5), 23)), desc="3d_3d_empty_k"),
    ]


def ref_linear(x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


def linear_samples(d):
    return [
        Sample((A(d, (3, 4), 0), A(d, (5, 4), 1)), desc="no_bias"),
        Sample((A(d, (3, 4), 2), A(d, (5, 4), 3), A(d, (5,), 4)), desc="bias"),
        Sample((A(d, (4,), 5), A(d, (5, 4), 6), A(d, (5,), 7)), desc="1d_input_bias"),
        Sample((A(d, (2, 3, 4), 8), A(d, (5, 4), 9), A(d, (5,), 10)), desc="3d_input_bias"),
        Sample((A(d, (3, 4), 11, view="T"), A(d, (5, 4), 12, view="T")), desc="transposed_no_bias"),
        Sample((A(d, (3, 4), 13), A(d, (5, 4), 14), None), desc="bias_none"),
    ]


# -- joining, splitting, indexing, sorting --


def ref_cat(tensors, dim=0):
    ranks = {t.ndim for t in tensors if not (t.ndim == 1 and t.size == 0)}
    parts = [t for t in tensors if not (t.ndim == 1 and t.size == 0 and ranks and ranks != {1})]
    return np.concatenate(parts, axis=dim)


def cat_samples(d):
    other = "float64" if d != "float64" else "int32"
    return [
        Sample(([A(d, (2, 3), 0), A(d, (4, 3), 1)],), desc="dim0"),
        Sample(([A(d, (2, 3), 2), A(d, (2, 1), 3), A(d, (2, 4), 4)], 1), desc="dim1_three"),
        Sample(([A(d, (2, 3), 5, view="T"), A(d, (2, 3), 6, view="strided")], -1), desc="noncontiguous_dim-1"),
        Sample(([A(d, (2, 3), 7), A(other, (2, 3), 8)],), desc=f"promotion_with_{other}"),
        Sample(([A("int32", (2, 3), 7), A(d, (1, 3), 8), A("bool", (1, 3), 9)],), desc="promotion_three_dtypes"),
        Sample(([A(d, (2, 3), 9), A(d, (0,), 10), A(d, (1, 3), 11)],), desc="legacy_skip_1d_empty"),
        Sample(([A(d, (0,), 12), A(d, (2, 3), 13)], 1), desc="legacy_skip_1d_empty_first"),
        Sample(([A(d, (2, 3), 14), A("float64", (0,), 15)],), desc="legacy_skip_1d_empty_promotes"),
        Sample(([A(d, (0, 3), 16), A(d, (2, 3), 17)],), desc="empty_2d"),
        Sample(([A(d, (3,), 18)],), desc="single"),
        Sample(([A(d, (3,), 19), A(d, (0,), 20)],), desc="1d_with_1d_empty"),
    ]


def stack_samples(d):
    return [
        Sample(([A(d, (2, 3), 0), A(d, (2, 3), 1)],), desc="dim0"),
        Sample(([A(d, (2, 3), 2), A(d, (2, 3), 3), A(d, (2, 3), 4)], 1), desc="dim1"),
        Sample(([A(d, (2, 3), 5, view="T"), A(d, (2, 3), 6)], -1), desc="dim-1_noncontiguous"),
        Sample(([A(d, (), 7), A(d, (), 8)],), desc="0d"),
        Sample(([A(d, (0, 3), 9), A(d, (0, 3), 10)], 2), desc="empty"),
    ]


def ref_split(a, size, dim=0):
    n = a.shape[dim]
    if isinstance(size, (list, tuple)):
        cuts = np.cumsum(size)[:-1]
    else:
        cuts = list(range(size, n, size)) if n else []
    return np.split(a, cuts, axis=dim)


SPLIT_LIST = "ember.split / Tensor.split reject a list of sizes (TypeError); torch dispatches it to split_with_sizes"


def split_samples(d):
    return [
        Sample((A(d, (5, 4), 0), 2), desc="int_uneven"),
        Sample((A(d, (5, 4), 1), 2, -1), desc="int_dim-1"),
        Sample((A(d, (5, 4), 2, view="T"), 3, 1), desc="int_transposed"),
        Sample((A(d, (5, 4), 3), 10), desc="int_larger_than_dim"),
        Sample((A(d, (0, 4), 4), 2), desc="int_empty"),
        Sample((A(d, (5, 4), 5), [1, 4]), desc="list"),
        Sample((A(d, (5, 4), 6), [1, 0, 3], 1), desc="list_dim1_zero_part"),
    ]


def split_with_sizes_samples(d):
    return [
        Sample((A(d, (5, 4), 5), [1, 4]), desc="dim0"),
        Sample((A(d, (5, 4), 6), [1, 0, 3], 1), desc="dim1_zero_part"),
        Sample((A(d, (5, 4), 7, view="T"), [2, 2], -1), desc="transposed_dim-1"),
    ]


def ref_chunk(a, chunks, dim=0):
    n = a.shape[dim]
    if n == 0:  # torch: `chunks` empty pieces
        return [a] * chunks
    return ref_split(a, max(-(-n // chunks), 1), dim)


def chunk_samples(d):
    return [
        Sample((A(d, (6, 4), 0), 2), desc="even"),
        Sample((A(d, (6, 4), 1), 4), desc="uneven"),
        Sample((A(d, (6, 4), 2), 3, -1), desc="dim-1"),
        Sample((A(d, (3, 4), 3), 5), desc="more_chunks_than_elements"),
        Sample((A(d, (5, 4), 4, view="T"), 2, 1), desc="transposed"),
        Sample((A(d, (0, 4), 5), 2), desc="empty_dim"),
    ]


def ref_unbind(a, dim=0):
    return [np.take(a, i, axis=dim) for i in range(a.shape[dim])]


def unbind_samples(d):
    return [
        Sample((A(d, (3, 4), 0),), desc="dim0"),
        Sample((A(d, (3, 4), 1), -1), desc="dim-1"),
        Sample((A(d, (3, 4), 2, view="T"), 1), desc="transposed"),
        Sample((A(d, (0, 4), 3),), desc="empty"),
    ]


def ref_index_select(a, dim, index):
    if a.ndim == 0:
        return a.reshape(1)[index.reshape(-1)].reshape(a.shape if index.ndim == 0 else (index.size,))
    return np.take(a, index.reshape(-1), axis=dim)


def index_select_samples(d):
    return [
        Sample((A(d, (4, 5), 0), 0, index_arr([3, 0, 0, 2])), desc="dim0_repeats"),
        Sample((A(d, (4, 5), 1), -1, index_arr([4, 1])), desc="dim-1"),
        Sample((A(d, (2, 4, 5), 2), 1, index_arr([1, 3], "int32")), desc="int32_index"),
        Sample((A(d, (4, 5), 3, view="T"), 1, index_arr([0, 3])), desc="transposed"),
        Sample((A(d, (4, 6), 4, view="strided"), 1, index_arr([2, 1])), desc="strided"),
        Sample((A(d, (4, 5), 5), 0, index_arr(np.zeros(0, np.int64))), desc="empty_index"),
        Sample((A(d, (4, 5), 6), 1, index_arr(2)), desc="0d_index"),
    ]


def index_add_samples(d):
    return [
        Sample((A(d, (4, 3), 0), 0, index_arr([3, 0, 0]), A(d, (3, 3), 1)), desc="dim0_repeats"),
        Sample((A(d, (2, 5), 2), -1, index_arr([4, 1], "int32"), A(d, (2, 2), 3)), {"alpha": 2}, desc="alpha_int32"),
        Sample((A(d, (3, 4), 4, view="T"), 1, index_arr([0, 3, 3]), A(d, (3, 3), 5)), desc="transposed_self"),
        Sample((A(d, (4, 3), 6), 0, index_arr(np.zeros(0, np.int64)), A(d, (0, 3), 7)), desc="empty_index"),
        Sample((A(d, (5,), 8), 0, index_arr(2), A(d, (1,), 9)), desc="0d_index"),
    ]


def ref_index_add(a, dim, index, source, alpha=1):
    out = np.array(a, copy=True)
    idx = np.asarray(index).reshape(-1)
    src = np.asarray(source).reshape(out.shape[:dim % max(out.ndim, 1)] + (idx.size,) +
                                     out.shape[dim % max(out.ndim, 1) + 1:]) if out.ndim else source
    moved = np.moveaxis(out, dim, 0)
    np.add.at(moved, idx, np.moveaxis(src * alpha, dim, 0).astype(out.dtype))
    return out


def ref_gather(a, dim, index):
    if a.ndim == 0:
        return np.broadcast_to(a, index.shape).copy()
    dim %= a.ndim
    sl = tuple(slice(None) if d == dim else slice(0, index.shape[d]) for d in range(a.ndim))
    return np.take_along_axis(a[sl], index, axis=dim)


def gather_samples(d):
    rng = np.random.default_rng(0)
    return [
        Sample((A(d, (3, 4), 0), 1, index_arr(rng.integers(0, 4, (3, 6)))), desc="dim1_wider"),
        Sample((A(d, (3, 4), 1), 0, index_arr(rng.integers(0, 3, (2, 4)))), desc="dim0"),
        Sample((A(d, (3, 4, 5), 2), -1, index_arr(rng.integers(0, 5, (2, 3, 2)))), desc="dim-1_smaller"),
        Sample((A(d, (4, 5), 3, view="T"), 0, index_arr(rng.integers(0, 4, (4, 5)))), desc="transposed"),
        Sample((A(d, (3, 4), 4), 1, Arr(rng.integers(0, 4, (3, 4)), "int64", view="T")), desc="transposed_index"),
        Sample((A(d, (3, 4), 5), 1, index_arr(np.zeros((3, 0), np.int64))), desc="empty_index"),
    ]


def ref_scatter(a, dim, index, src, add=False):
    out = a.copy()
    scalar = not isinstance(src, np.ndarray)
    for pos in np.ndindex(*index.shape):
        tgt = list(pos)
        tgt[dim] = index[pos]
        v = src if scalar else src[pos]
        if add:
            out[tuple(tgt)] += v
        else:
            out[tuple(tgt)] = v
    return out


def ref_scatter_add(a, dim, index, src):
    return ref_scatter(a, dim, index, src, add=True)


def scatter_samples(d):
    return [
        Sample((A(d, (3, 5), 0), 1, index_arr(unique_index((3, 3), 1, 5, 0)), A(d, (3, 4), 1)), desc="dim1_src_larger"),
        Sample((A(d, (4, 3), 2), 0, index_arr(unique_index((2, 3), 0, 4, 1)), A(d, (2, 3), 3)), desc="dim0"),
        Sample((A(d, (4, 3), 4), -2, index_arr(unique_index((3, 2), 0, 4, 2)), A(d, (3, 2), 5)), desc="dim-2_smaller"),
        Sample((A(d, (5, 3), 6, view="T"), 1, index_arr(unique_index((5, 2), 1, 3, 3)), A(d, (5, 2), 7, view="T")),
               desc="transposed"),
        Sample((A(d, (3, 5), 8), 1, index_arr(unique_index((3, 2), 1, 5, 4)), 2), desc="value_int"),
        Sample((A(d, (3, 5), 9), 0, index_arr(unique_index((2, 5), 0, 3, 5)), 1.5 if d in FLOATS or d.startswith("c")
                else 7), desc="value"),
        Sample((A(d, (3, 5), 10), 1, index_arr(np.zeros((3, 0), np.int64)), A(d, (3, 0), 11)), desc="empty_index"),
    ]


def scatter_add_samples(d):
    rng = np.random.default_rng(7)
    return [
        Sample((A(d, (3, 5), 0), 1, index_arr(rng.integers(0, 5, (3, 6))), A(d, (3, 6), 1)), desc="dim1_duplicates"),
        Sample((A(d, (4, 3), 2), 0, index_arr(rng.integers(0, 4, (6, 3))), A(d, (6, 3), 3)), desc="dim0_duplicates"),
        Sample((A(d, (4, 3), 4, view="T"), -1, index_arr(rng.integers(0, 3, (4, 2))), A(d, (4, 5), 5)),
               desc="transposed_src_larger"),
    ]


def ref_scatter_reduce(a, dim, index, src, reduce, include_self=True):
    """Each slot folds the src values index sends to it (self's first unless left out)."""
    out = a.copy()
    dim %= max(a.ndim, 1)
    slots = {}
    for pos in np.ndindex(*index.shape):
        tgt = list(pos)
        tgt[dim] = index[pos]
        slots.setdefault(tuple(tgt), []).append(src[pos])
    fold = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    for tgt, vals in slots.items():
        vals = ([a[tgt]] if include_self else []) + vals
        v = fold(np.array(vals, dtype=np.float64 if a.dtype.kind == "f" else a.dtype))
        if reduce == "mean" and a.dtype.kind in "iu":
            v = np.floor_divide(np.sum(vals), len(vals))
        out[tgt] = v
    return out


def scatter_reduce_samples(d):
    rng = np.random.default_rng(11)
    reduces = ("sum", "prod", "mean", "amax", "amin") if d != "bool" else ("sum", "prod", "amax", "amin")
    s = []
    for k, r in enumerate(reduces):
        s += [
            Sample((A(d, (3, 5), 2 * k), 1, index_arr(rng.integers(0, 5, (3, 6))), A(d, (3, 6), 2 * k + 1), r),
                   desc=f"{r}_dim1_duplicates"),
            Sample((A(d, (4, 3), 2 * k, view="T"), 0, index_arr(rng.integers(0, 4, (2, 3))), A(d, (3, 5), 2 * k + 1),
                    r), {"include_self": False}, desc=f"{r}_without_self_transposed_src_larger"),
        ]
    s.append(Sample((A(d, (3, 5), 20), 1, index_arr(np.zeros((3, 0), np.int64)), A(d, (3, 0), 21), "sum"),
                    desc="empty_index"))
    return s


def ref_index_reduce(a, dim, index, source, reduce, include_self=True):
    dim %= max(a.ndim, 1)
    idx = np.asarray(index).reshape(-1)
    spread = np.broadcast_to(idx.reshape([-1 if d == dim else 1 for d in range(a.ndim)]), source.shape)
    return ref_scatter_reduce(a, dim, spread, source, reduce, include_self)


def index_reduce_samples(d):
    s = []
    for k, r in enumerate(("prod", "mean", "amax", "amin")):
        s += [
            Sample((A(d, (4, 3), 2 * k), 0, index_arr([3, 0, 0]), A(d, (3, 3), 2 * k + 1), r), desc=f"{r}_dim0"),
            Sample((A(d, (3, 4), 2 * k, view="T"), -1, index_arr([1, 3, 1], "int32"), A(d, (3, 3), 2 * k + 1), r),
                   {"include_self": False}, desc=f"{r}_without_self_transposed_int32_index"),
        ]
    return s


def legacy_scatter_reduce_samples(d):
    rng = np.random.default_rng(5)
    return [
        Sample((A(d, (3, 5), 0), 1, index_arr(rng.integers(0, 5, (3, 4))), A(d, (3, 4), 1)), {"reduce": "add"},
               desc="add"),
        Sample((A(d, (3, 5), 2), 1, index_arr(rng.integers(0, 5, (3, 4))), A(d, (3, 4), 3)), {"reduce": "multiply"},
               desc="multiply"),
        Sample((A(d, (3, 5), 4), 0, index_arr(rng.integers(0, 3, (2, 5))), 2), {"reduce": "multiply"},
               desc="value_multiply"),
    ]


def ref_legacy_scatter_reduce(a, dim, index, src, reduce):
    if not isinstance(src, np.ndarray):
        src = np.full(index.shape, src, dtype=a.dtype)
    return ref_scatter_reduce(a, dim, index, src, {"add": "sum", "multiply": "prod"}[reduce])


def view_dtype_samples(d):
    """(x, x's dtype, the dtype to view it as): the reference gets x widened, so it
    narrows it back to its own bytes first."""
    size = np.dtype(d).itemsize
    same = {"bool": "uint8", "int32": "float32", "float32": "int32", "float64": "int64", "complex64": "float64"}[d]
    s = [
        Sample((A(d, (3, 4), 0), DT(d), DT(same)), desc="same_size"),
        Sample((A(d, (3, 4), 1, view="T"), DT(d), DT(same)), desc="same_size_transposed"),
        Sample((A(d, (2, 3), 2), DT(d), DT("uint8")), desc="to_bytes"),
        Sample((A(d, (2, 3), 3), DT(d), DT(d)), desc="own_dtype"),
    ]
    if size < 8:
        s.append(Sample((A(d, (3, 8 // size), 4), DT(d), DT("float64")), desc="to_wider"))
    if size == 8:
        s.append(Sample((A(d, (3, 2), 5), DT(d), DT("int16")), desc="to_narrower"))
    return s


def ref_view_dtype(a, own, dtype):
    a = a.astype(own)
    return (np.ascontiguousarray(a) if a.ndim and a.strides[-1] == a.itemsize else a).view(dtype)


def cov_samples(d):
    fw = Arr(np.array([1, 2, 1, 3, 1]), "int64")
    aw = Arr(np.array([0.5, 1.0, 2.0, 1.0, 0.25]), "float64" if d == "float64" else "float32")
    return [
        Sample((A(d, (3, 5), 0),), desc="rows"),
        Sample((A(d, (5,), 1),), desc="one_variable"),
        Sample((A(d, (5, 3), 2, view="T"),), {"correction": 0}, desc="transposed_no_correction"),
        Sample((A(d, (2, 5), 3),), {"fweights": fw}, desc="frequency_weights"),
        Sample((A(d, (2, 5), 4),), {"aweights": aw, "correction": 2}, desc="observation_weights"),
        Sample((A(d, (2, 5), 5),), {"fweights": fw, "aweights": aw}, desc="both_weights"),
    ]


def ref_cov(a, correction=1, fweights=None, aweights=None):
    return np.cov(a, ddof=correction, fweights=fweights, aweights=aweights)


def corrcoef_samples(d):
    return [Sample((A(d, (3, 5), 0),), desc="rows"), Sample((A(d, (6, 4), 1, view="T"),), desc="transposed")]


def vander_samples(d):
    return [
        Sample((A(d, (4,), 0),), desc="square"),
        Sample((A(d, (3,), 1), 5), desc="wide"),
        Sample((A(d, (3,), 2),), {"N": 2, "increasing": True}, desc="narrow_increasing"),
        Sample((A(d, (3,), 3), 0), desc="no_columns"),
    ]


def ref_vander(x, N=None, increasing=False):
    out = np.vander(x, N, increasing=increasing)
    return out.astype(np.int64) if x.dtype.kind in "iub" else out


def histogram_samples(d):
    edges = Arr(np.array([-2.0, -0.5, 0.0, 1.5, 3.0]), d)
    return [
        Sample((A(d, (4, 5), 0),), {"bins": 6}, desc="data_range"),
        Sample((A(d, (20,), 1), 4), {"range": (-1.0, 1.0), "density": True}, desc="range_density"),
        Sample((A(d, (20,), 2), edges), desc="edges"),
        Sample((A(d, (20,), 3), edges), {"weight": A(d, (20,), 4), "density": True}, desc="edges_weights_density"),
    ]


def ref_histogram(a, bins=100, range=None, weight=None, density=False):
    hist, edges = np.histogram(a.reshape(-1), bins, range=range, weights=None if weight is None else weight.reshape(-1),
                               density=density)
    return hist, edges


def masks(shape, seed):
    return Arr(np.random.default_rng(seed).integers(0, 2, shape).astype(bool), "bool")


def ref_masked_fill(a, mask, value):
    v = np.asarray(value)
    if a.dtype.kind in "iu":
        v = np.trunc(v.real).astype(np.int64)
    elif a.dtype == bool:
        v = v.astype(bool)
    return np.where(mask, v, a)


def masked_fill_samples(d):
    v = 1.5 if (d in FLOATS or d.startswith("c")) else 3
    return [
        Sample((A(d, (3, 4), 0), masks((3, 4), 1), v), desc="scalar"),
        Sample((A(d, (3, 4), 2), masks((4,), 3), v), desc="broadcast_mask"),
        Sample((A(d, (3, 4), 4, view="T"), masks((3, 4), 5), v), desc="transposed"),
        Sample((A(d, (3, 4), 6), masks((3, 4), 7), Arr(np.array(v), d)), desc="0d_tensor_value"),
        Sample((A(d, (), 8), Arr(np.array(True), "bool"), v), desc="0d"),
        Sample((A(d, (4,), 9), masks((2, 4), 10), v), desc="mask_broadcasts_self"),
    ] + ([Sample((A(d, (3, 4), 11), masks((3, 4), 12), 2.7), desc="float_value_truncates")] if d in INTS else [])


def stack_family_samples(d):
    """Operands for hstack, vstack, dstack and column_stack: every rank they reshape."""
    return [
        Sample(([A(d, (3,), 0), A(d, (3,), 1)],), desc="1d"),
        Sample(([A(d, (2, 3), 2), A(d, (2, 3), 3, view="T")],), desc="2d_transposed"),
        Sample(([A(d, (), 4), A(d, (), 5)],), desc="0d"),
        Sample(([A(d, (2, 1, 3), 6), A(d, (2, 1, 3), 7)],), desc="3d"),
        Sample(([A(d, (4,), 8)],), desc="single"),
    ]


def atleast_samples(d):
    return [Sample((A(d, shape, i),), desc=f"{len(shape)}d") for i, shape in enumerate([(), (3,), (2, 3), (2, 1, 3)])]


def ref_masked_select(a, mask):
    a, mask = np.broadcast_arrays(a, mask)
    return a[mask]


def masked_select_samples(d):
    return [
        Sample((A(d, (3, 4), 0), masks((3, 4), 1)), desc="same_shape"),
        Sample((A(d, (3, 4), 2, view="T"), masks((4,), 3)), desc="broadcast_mask_transposed"),
        Sample((A(d, (4,), 4), masks((2, 4), 5)), desc="mask_broadcasts_self"),
        Sample((A(d, (), 6), Arr(np.array(True), "bool")), desc="0d"),
        Sample((A(d, (0, 3), 7), masks((0, 3), 8)), desc="empty"),
    ]


def ref_repeat_interleave(a, repeats, dim=None):
    return np.repeat(a, repeats, axis=dim)


def repeat_interleave_samples(d):
    return [
        Sample((A(d, (2, 3), 0), 2), desc="flattened"),
        Sample((A(d, (2, 3), 1, view="T"), 3, 0), desc="dim0_transposed"),
        Sample((A(d, (2, 3), 2), 1, -1), desc="dim-1_once"),
        Sample((A(d, (2, 3), 3), 0, 1), desc="zero_times"),
        Sample((A(d, (2, 3), 4), index_arr([1, 0, 2]), 1), desc="tensor_repeats"),
        Sample((A(d, (4,), 5), index_arr([2], "int32")), desc="one_repeat_count"),
    ]


def repeat_interleave_counts_samples(d):
    return [
        Sample((index_arr([2, 0, 3]),), desc="counts"),
        Sample((index_arr(np.zeros(0, np.int64)),), desc="empty"),
    ]


def diag_samples(d):
    return [
        Sample((A(d, (3,), 0),), desc="vector"),
        Sample((A(d, (3,), 1), 2), desc="vector_above"),
        Sample((A(d, (2,), 2), -1), desc="vector_below"),
        Sample((A(d, (3, 4), 3),), desc="matrix"),
        Sample((A(d, (3, 4), 4, view="T"), 1), desc="matrix_transposed_above"),
        Sample((A(d, (4, 6), 5, view="strided"), -2), desc="matrix_strided_below"),
        Sample((A(d, (2, 3), 6), 5), desc="past_the_edge"),
    ]


def outer_samples(d):
    return [
        Sample((A(d, (3,), 0), A(d, (4,), 1)), desc="vectors"),
        Sample((A(d, (0,), 2), A(d, (2,), 3)), desc="empty"),
        Sample((A(d, (6,), 4, view="strided"), A(d, (1,), 5)), desc="strided"),
    ]


def einsum_samples(d):
    return [
        Sample(("ij,jk->ik", A(d, (2, 3), 0), A(d, (3, 4), 1)), desc="matmul"),
        Sample(("ij,jk", A(d, (3, 2), 2, view="T"), A(d, (2, 2), 3)), desc="implicit_output_transposed"),
        Sample(("ii->i", A(d, (3, 3), 4)), desc="diagonal"),
        Sample(("iij->j", A(d, (2, 2, 3), 5)), desc="trace_like"),
        Sample(("...ij,...jk->...ik", A(d, (2, 2, 3), 6), A(d, (3, 2), 7)), desc="ellipsis_broadcast"),
        Sample(("bhqd,bhkd->bhqk", A(d, (2, 2, 3, 4), 8), A(d, (2, 2, 5, 4), 9)), desc="attention_scores"),
        Sample(("abc,cd,de->abe", A(d, (2, 3, 2), 10), A(d, (2, 3), 11), A(d, (3, 2), 12)), desc="three_operands"),
        Sample(("i,j->ij", A(d, (3,), 13), A(d, (1,), 14)), desc="outer_size1"),
        Sample(("ij->", A(d, (0, 3), 15)), desc="empty_sum"),
        Sample(("ijk->kij", A(d, (2, 3, 2), 16)), desc="permute"),
    ]


def tensordot_samples(d):
    return [
        Sample((A(d, (2, 3, 4), 0), A(d, (3, 4, 2), 1), [1, 2], [0, 1]), desc="two_dims"),
        Sample((A(d, (3, 2), 2), A(d, (3, 4), 3), [0], [0]), desc="first_dims"),
        Sample((A(d, (2, 3), 4), A(d, (4, 5), 5), [], []), desc="outer"),
        Sample((A(d, (4, 3), 6, view="T"), A(d, (3, 2), 7), [-1], [0]), desc="transposed_negative_dim"),
    ]


def order_stat_samples(d):
    v = np.random.default_rng(0).permutation(24).reshape(2, 3, 4).astype(d)  # distinct values: no ties
    return [
        Sample((Arr(v, d), 2), {"dim": 1}, desc="dim1"),
        Sample((Arr(v, d), 1), {"dim": -1, "keepdim": True}, desc="smallest_keepdim"),
        Sample((Arr(v[0].T.copy(), d, view="T"), 3), {"dim": 0}, desc="transposed"),
        Sample((Arr(v[0, 0, 0], d), 1), desc="0d"),
    ]


def ref_kthvalue(a, k, dim=-1, keepdim=False):
    if a.ndim == 0:
        return a, np.array(0)
    order = np.argsort(a, axis=dim, kind="stable")
    idx = np.take(order, [k - 1], axis=dim)
    values = np.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        values, idx = values.squeeze(dim), idx.squeeze(dim)
    return values, idx


def sorted_index_at_samples(d):
    rng = np.random.default_rng(5)
    ties = rng.integers(0, 4, (3, 7)).astype(d)  # equal values: the stable order picks the first
    w = rng.permutation(21).reshape(3, 7).astype(d)
    if d == "float32":
        w[0, 2] = w[2, 5] = w[2, 1] = np.nan  # NaN sorts last, in position order
    pos = Arr(np.array([[0], [3], [6]]), "int64")
    return [
        Sample((Arr(ties, d), 1, pos), desc="ties"),
        Sample((Arr(w, d), 1, pos), desc="nan_last"),
        Sample((Arr(w, d), 0, Arr(np.array([[2, 0, 1, 2, 0, 1, 2]]), "int64")), desc="dim0"),
        Sample((Arr(w.T.copy(), d, view="T"), 0, Arr(np.array([[6, 5, 0]]), "int64")), desc="transposed"),
    ]


def ref_sorted_index_at(a, dim, position):
    order = np.argsort(a, axis=dim, kind="stable")  # NaN last, as Ember and torch sort
    return np.take_along_axis(order, position, axis=dim)


def median_samples(d, reduce_all=True):
    v = np.random.default_rng(1).permutation(24).reshape(4, 6).astype(d)
    w = v.copy()
    if d == "float32":  # NaN propagates (float64 samples also make the gradient cases, where NaN cannot)
        w[1, 2] = np.nan
    if reduce_all:
        samples = [Sample((Arr(v, d),), desc="even_count"), Sample((Arr(v[:3, :3], d),), desc="odd_count")]
        return samples + ([Sample((Arr(w, d),), desc="with_nan")] if d == "float32" else [])
    samples = [Sample((Arr(v, d), 1), desc="dim1"), Sample((Arr(v, d), 0, True), desc="dim0_keepdim")]
    return samples + ([Sample((Arr(w, d), 1), desc="nan_row")] if d == "float32" else [])


def ref_median(a, dim=None, keepdim=False):
    if dim is None:
        flat = np.sort(a.reshape(-1), kind="stable")
        return flat[(flat.size - 1) // 2] if not np.isnan(flat).any() else np.array(np.nan, a.dtype)
    n = a.shape[dim]
    order = np.argsort(a, axis=dim, kind="stable")
    nans = np.isnan(a).sum(axis=dim, keepdims=True) if a.dtype.kind == "f" else np.zeros_like(
        np.take(a, [0], axis=dim), dtype=np.int64)
    position = np.where(nans > 0, n - nans, (n - 1) // 2)
    idx = np.take_along_axis(order, position, axis=dim)
    values = np.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        values, idx = values.squeeze(dim), idx.squeeze(dim)
    return values, idx


def unique_samples(d):
    v = np.array([3, 1, 2, 3, 1, 0, 2, 2]).astype(d)
    return [
        Sample((Arr(v, d),), desc="plain"),
        Sample((Arr(v.reshape(2, 4), d), True, True, True), desc="2d_inverse_counts"),
        Sample((Arr(v[:0], d), True, True, True), desc="empty"),
        Sample((Arr(v[2], d), True, False, True), desc="0d_counts"),
    ]


def ref_unique(a, sorted=True, return_inverse=False, return_counts=False):
    values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
    return (values, inverse.reshape(a.shape) if return_inverse else np.zeros(0, np.int64),
            counts if return_counts else np.zeros(0, np.int64))


def ref_nonzero(a):
    return np.argwhere(a)


def nonzero_samples(d):
    v = values(d, (3, 4, 2), 0, "ties")
    return [
        Sample((Arr(v, d),), desc="3d"),
        Sample((Arr(v.swapaxes(0, 2).copy(), d, view="T"),), desc="transposed"),
        Sample((Arr(np.ones((), storage_dtype(d)), d),), desc="0d_true"),
        Sample((Arr(np.zeros((), storage_dtype(d)), d),), desc="0d_false"),
        Sample((Arr(np.zeros((0, 3), storage_dtype(d)), d),), desc="empty"),
        Sample((Arr(np.zeros((2, 3), storage_dtype(d)), d),), desc="all_zero"),
    ]


# equal and item return Python values; the entries wrap them in a tensor.


def equal_samples(d):
    v = values(d, (3, 4), 0)
    w = v.copy()
    w[1, 2] = values(d, (), 1) if w[1, 2] != values(d, (), 1) else w[1, 2] + 1
    return [
        Sample((Arr(v, d), Arr(v.copy(), d)), desc="same"),
        Sample((Arr(v, d), Arr(v.T.copy(), d, view="T")), desc="same_transposed"),
        Sample((Arr(v, d), Arr(w, d)), desc="one_differs"),
        Sample((Arr(v, d), Arr(v[:2], d)), desc="other_shape"),
        Sample((Arr(v[:, :1], d), Arr(np.broadcast_to(v[:, :1], (3, 4)).copy(), d)), desc="broadcastable_not_equal"),
        Sample((Arr(v[:0], d), Arr(v[:0], d)), desc="empty"),
        Sample((Arr(v[0, 0], d), Arr(v[0, 0], d)), desc="0d"),
    ]


def ref_equal(a, b):
    return np.array(a.shape == b.shape and bool(np.array_equal(a, b)))


def isclose_samples(d):
    v = values(d, (3, 4), 0)
    w = v.copy()
    w[0, :2] = v[0, :2] + (0 if d == "bool" else 1)  # far
    if d.startswith("float"):
        w[1] = v[1] * (1 + 1e-7)  # within rtol
    return [
        Sample((Arr(v, d), Arr(w, d)), desc="mixed"),
        Sample((Arr(v, d), Arr(w, d, view="T")), desc="transposed"),
        Sample((Arr(v[:, :1], d), Arr(w, d)), desc="broadcast"),
        Sample((Arr(v, d), Arr(w, d)), {"rtol": 0.5, "atol": 0.5}, desc="loose"),
        Sample((Arr(v[:0], d), Arr(w[:0], d)), desc="empty"),
    ]


def ref_isclose(a, b, rtol=1e-05, atol=1e-08):
    if a.dtype == np.bool_:
        return np.equal(a, b)
    return np.isclose(a, b, rtol=rtol, atol=atol)


def item_samples(d):
    v = values(d, (3, 4), 0)
    return [
        Sample((Arr(v[1, 2], d),), desc="0d"),
        Sample((Arr(v[:1, 2:3], d),), desc="one_element_2d"),
        Sample((Arr(v.T.copy()[2:3, 1:2], d, view="T"),), desc="one_element_transposed"),
    ]


def sort_key_row(row, descending):
    """Stable order of a 1-D row as torch sorts it: NaN is the largest value."""
    idx = list(range(len(row)))
    if descending:
        return sorted(idx, key=lambda i: (0 if np.isnan(row[i]) else 1, -row[i] if not np.isnan(row[i]) else 0))
    return sorted(idx, key=lambda i: (1 if np.isnan(row[i]) else 0, row[i] if not np.isnan(row[i]) else 0))


def ref_sort(a, dim=-1, descending=False):
    if a.ndim == 0:
        return a.copy(), np.array(0)
    moved = np.moveaxis(a, dim, -1)
    vals = np.empty_like(moved)
    idx = np.empty(moved.shape, np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        order = sort_key_row(moved[pos].astype(np.float64), descending)
        idx[pos] = order
        vals[pos] = moved[pos][order]
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


def ref_argsort(a, dim=-1, descending=False):
    return ref_sort(a, dim, descending)[1]


def sort_samples(d):
    s = [
        Sample((A(d, (3, 4, 5), 0),), desc="last_dim"),
        Sample((A(d, (3, 4, 5), 1), 1), desc="dim1"),
        Sample((A(d, (3, 4, 5), 2), 0, True), desc="dim0_descending"),
        Sample((A(d, (4, 6), 3, view="T"),), {"descending": True}, desc="transposed_descending"),
        Sample((A(d, (3, 8), 4, view="strided"), -1), desc="strided"),
        Sample((A(d, (3, 9), 5, "ties"),), desc="ties_stable"),
        Sample((A(d, (3, 9), 6, "ties"),), {"descending": True}, desc="ties_stable_descending"),
        Sample((A(d, (9, 3), 7, "ties"), 0), desc="ties_stable_dim0"),
        Sample((A(d, (), 8),), desc="0d"),
        Sample((A(d, (0, 3), 9),), desc="empty"),
        Sample((A(d, (40,), 10, "ties"),), desc="ties_long_row"),
    ]
    if d in FLOATS:
        v = values(d, (2, 7), 11, "ties")
        v[0, [1, 4]] = np.nan
        v[1, 0] = np.inf
        v[1, 3] = -np.inf
        v[1, 5] = np.nan
        s.append(Sample((Arr(v, d),), desc="nan_inf"))
        s.append(Sample((Arr(v, d),), {"descending": True}, desc="nan_inf_descending"))
    return s


def torch_sort(x, dim=-1, descending=False):
    # torch's default sort is not guaranteed stable; Ember's always is.
    return torch.sort(x, dim=dim, descending=descending, stable=True)


def torch_argsort(x, dim=-1, descending=False):
    return torch.argsort(x, dim=dim, descending=descending, stable=True)


def ref_topk(a, k, dim=-1, largest=True, sorted=True):
    v, i = ref_sort(a, dim, descending=largest)
    if a.ndim == 0:
        return v, i
    return np.take(v, range(k), axis=dim), np.take(i, range(k), axis=dim)


def distinct(d, shape, seed, view=None):
    n = int(np.prod(shape))
    if d == "uint8":
        v = np.random.default_rng(seed).permutation(n)
    else:
        v = np.random.default_rng(seed).permutation(n) - n // 2
    v = v.reshape(shape).astype(storage_dtype(d))
    if d in FLOATS:
        v = v / 4
    return Arr(v, d, view)


def topk_samples(d):
    s = [
        Sample((distinct(d, (3, 7), 0), 3), desc="k3"),
        Sample((distinct(d, (3, 7), 1), 2, 0), desc="dim0"),
        Sample((distinct(d, (3, 7), 2), 4, -1, False), desc="smallest"),
        Sample((distinct(d, (3, 7), 3, view="T"), 2), {"dim": 1}, desc="transposed"),
        Sample((distinct(d, (3, 7), 4), 0), desc="k0"),
        Sample((distinct(d, (3, 7), 5), 7), desc="k_all"),
        Sample((distinct(d, (), 6), 1), desc="0d"),
    ]
    if d in FLOATS:
        v = distinct(d, (2, 6), 7).values.copy()
        v[0, 2] = np.nan
        v[1, 4] = np.nan
        s.append(Sample((Arr(v, d), 2), desc="nan_is_largest"))
    return s


# -- neural-network functions --


def ref_embedding(w, idx):
    return w[idx]


def embedding_samples(d):
    return [
        Sample((A(d, (6, 3), 0), index_arr([0, 5, 2, 2])), desc="1d"),
        Sample((A(d, (6, 3), 1), index_arr([[0, 1], [5, 4], [3, 3]])), desc="2d"),
        Sample((A(d, (6, 3), 2), index_arr(4)), desc="0d_index"),
        Sample((A(d, (6, 3), 3), index_arr([1, 2], "int32")), desc="int32_index"),
        Sample((A(d, (6, 3), 4, view="T"), index_arr([0, 5])), desc="transposed_weight"),
    ]


def ref_dropout(x, p, train):
    return x


def dropout_samples(d):
    return [
        Sample((A(d, (3, 4), 0), 0.5, False), desc="eval_identity"),
        Sample((A(d, (3, 4), 1, view="T"), 0.9, False), desc="eval_transposed"),
        Sample((A(d, (3, 4), 2), 0.0, True), desc="train_p0_identity"),
    ]


def ref_layer_norm(x, shape, w=None, b=None, eps=1e-5):
    ax = tuple(range(x.ndim - len(shape), x.ndim))
    mu = x.mean(axis=ax, keepdims=True)
    var = x.var(axis=ax, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def layer_norm_samples(d):
    return [
        Sample((A(d, (3, 5), 0), [5]), desc="last_dim"),
        Sample((A(d, (2, 3, 4), 1), [3, 4], A(d, (3, 4), 2), A(d, (3, 4), 3)), desc="two_dims_affine"),
        Sample((A(d, (3, 5), 4, view="T"), [5], A(d, (5,), 5), None, 1e-3), desc="transposed_weight_eps"),
        Sample((A(d, (4,), 6), [4], None, A(d, (4,), 7)), desc="1d_bias"),
    ]


def ref_batch_norm_eval(x, w, b, rm, rv, training, momentum, eps, cudnn):
    shape = [1, -1] + [1] * (x.ndim - 2)
    y = (x - rm.reshape(shape)) / np.sqrt(rv.reshape(shape) + eps)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


def batch_norm_eval_samples(d):
    rv = lambda seed, n: Arr(values(d, (n,), seed, "pos"), d)
    return [
        Sample((A(d, (4, 3), 0), A(d, (3,), 1), A(d, (3,), 2), A(d, (3,), 3), rv(4, 3), False, 0.1, 1e-5, False),
               desc="2d"),
        Sample((A(d, (2, 3, 4, 4), 5), None, None, A(d, (3,), 6), rv(7, 3), False, 0.1, 1e-3, False),
               desc="4d_no_affine"),
        Sample((A(d, (2, 3, 5), 8, view="T"), A(d, (3,), 9), None, A(d, (3,), 10), rv(11, 3), False, 0.1, 1e-5, False),
               desc="3d_transposed"),
    ]


REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def reduce_np(loss, reduction):
    return {0: loss, 1: np.mean(loss), 2: np.sum(loss)}[reduction]


def loss_samples(d):
    s = []
    for r in (0, 1, 2):
        s.append(Sample((A(d, (3, 4), 0), A(d, (3, 4), 1), r), desc=f"reduction{r}"))
    s.append(Sample((A(d, (3, 4), 2, view="T"), A(d, (3, 4), 3)), desc="transposed_default_mean"))
    s.append(Sample((A(d, (), 4), A(d, (), 5), 0), desc="0d_none"))
    return s


def torch_loss(fn):
    return lambda a, b, reduction=1: fn(a, b, reduction=REDUCTIONS[reduction])


def ref_mse(a, b, reduction=1):
    return reduce_np((a - b) ** 2, reduction)


def ref_l1(a, b, reduction=1):
    return reduce_np(np.abs(a - b), reduction)


def log_probs(d, shape, seed):
    x = values(d, shape, seed).astype(np.float64)
    cls = 0 if len(shape) == 1 else 1
    x = x - np.log(np.sum(np.exp(x), axis=cls, keepdims=True))
    return Arr(x, d)


def ref_nll(logp, target, weight=None, reduction=1, ignore_index=-100):
    c = logp.shape[0 if logp.ndim == 1 else 1]
    lp = logp[None] if logp.ndim == 1 else np.moveaxis(logp, 1, -1).reshape(-1, c)
    t = target.reshape(-1)
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    w = valid.astype(float) * (weight[safe] if weight is not None else 1.0)
    loss = -lp[np.arange(len(t)), safe] * w
    if reduction == 1:
        return loss.sum() / w.sum()
    if reduction == 2:
        return loss.sum()
    return loss.reshape(target.shape)


def torch_nll(x, t, weight=None, reduction=1, ignore_index=-100):
    return F.nll_loss(x, t, weight=weight, reduction=REDUCTIONS[reduction], ignore_index=ignore_index)


def nll_samples(d):
    t = index_arr([0, 3, 1, 3, 2])
    w = Arr(values(d, (4,), 9, "pos"), d)
    s = []
    for r in (0, 1, 2):
        s.append(Sample((log_probs(d, (5, 4), r), t, None, r), desc=f"reduction{r}"))
        s.append(Sample((log_probs(d, (5, 4), 3 + r), t, w, r), desc=f"weight_reduction{r}"))
        s.append(Sample((log_probs(d, (5, 4), 6 + r), index_arr([0, -100, 1, 3, -100]), w, r),
                        desc=f"ignore_index_weight_reduction{r}"))
    s += [
        Sample((log_probs(d, (5, 4), 10), index_arr([0, 2, 1, 2, 2]), None, 1, 2), desc="ignore_index_2"),
        Sample((log_probs(d, (4,), 11), index_arr(2)), desc="unbatched"),
        Sample((log_probs(d, (4,), 11), index_arr(2), None, 0), desc="unbatched_none"),
        Sample((log_probs(d, (2, 4, 3), 12), index_arr([[0, 3, 1], [2, 2, 0]]), w, 0), desc="kdim_weight_none"),
        Sample((log_probs(d, (2, 4, 3), 13), index_arr([[0, 3, 1], [2, 2, 0]]), w, 1), desc="kdim_weight_mean"),
    ]
    return s


def ref_cross_entropy(x, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    """torch.nn.functional.cross_entropy's definition, in NumPy."""
    cdim = 0 if x.ndim == 1 else 1
    c = x.shape[cdim]
    logp = ref_softmax(x, cdim, log=True)
    wshape = [1] * x.ndim
    wshape[cdim] = c
    wb = weight.reshape(wshape) if weight is not None else np.ones(wshape)
    if target.dtype.kind == "f":
        t = target * (1 - label_smoothing) + label_smoothing / c
        loss = -np.sum(logp * t * wb, axis=cdim)
        if reduction == 1:
            return loss.sum() / (x.size / c)
        return reduce_np(loss, reduction)
    nll = ref_nll(logp, target, weight, reduction, ignore_index)
    if label_smoothing == 0:
        return nll
    ignored = target == ignore_index
    smooth = -np.sum(logp * wb, axis=cdim)
    smooth = np.where(ignored, 0.0, smooth)
    if reduction == 1:
        if weight is not None:
            denom = weight[target[~ignored]].sum()
        else:
            denom = (~ignored).sum()
        smooth = smooth.sum() / denom
    elif reduction == 2:
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / c)


def torch_cross_entropy(x, t, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    return F.cross_entropy(x, t, weight=weight, reduction=REDUCTIONS[reduction], ignore_index=ignore_index,
                           label_smoothing=label_smoothing)


def probs(d, shape, seed):
    p = values(d, shape, seed, "pos").astype(np.float64)
    return Arr(p / p.sum(axis=1, keepdims=True), d)


CE_PROB_SMOOTHING = "cross_entropy_loss with probability targets ignores label_smoothing (torch smooths the targets)"
CE_PROB_WEIGHT = "cross_entropy_loss with probability targets ignores the class weights"
CE_SMOOTH_WEIGHT = ("cross_entropy_loss: label smoothing with class indices ignores the weights in the smoothing term "
                    "(torch: -(logp * w).sum(C), normalized by the weights of the targets)")
CE_SMOOTH_IGNORE = ("cross_entropy_loss: label smoothing with class indices counts ignore_index targets in the "
                    "smoothing term (torch zeroes them and averages over the non-ignored targets)")


def cross_entropy_samples(d):
    t = index_arr([0, 3, 1, 3, 2])
    w = Arr(values(d, (4,), 9, "pos"), d)
    s = []
    for r in (0, 1, 2):
        s.append(Sample((A(d, (5, 4), r), t, None, r), desc=f"indices_reduction{r}"))
        s.append(Sample((A(d, (5, 4), 3 + r), probs(d, (5, 4), 20 + r), None, r), desc=f"probs_reduction{r}"))
    s += [
        Sample((A(d, (5, 4), 6), t, w), desc="indices_weight"),
        Sample((A(d, (5, 4), 7), index_arr([0, -100, 1, 3, -100]), None, 1), desc="indices_ignore_index"),
        Sample((A(d, (5, 4), 8), t, None, 1, -100, 0.1), desc="indices_smoothing_mean"),
        Sample((A(d, (5, 4), 9), t, None, 0, -100, 0.25), desc="indices_smoothing_none"),
        Sample((A(d, (5, 4), 10), t, None, 2, -100, 0.25), desc="indices_smoothing_sum"),
        Sample((A(d, (5, 4), 11), t, w, 1, -100, 0.2), desc="indices_smoothing_weight"),
        Sample((A(d, (5, 4), 12), index_arr([0, -100, 1, 3, -100]), None, 1, -100, 0.2),
               desc="indices_smoothing_ignore_index"),
        Sample((A(d, (5, 4), 13), probs(d, (5, 4), 14), None, 1, -100, 0.2), desc="probs_smoothing"),
        Sample((A(d, (5, 4), 15), probs(d, (5, 4), 16), w, 1), desc="probs_weight"),
        Sample((A(d, (4,), 17), index_arr(1)), desc="unbatched"),
        Sample((A(d, (2, 4, 3), 18), index_arr([[0, 3, 1], [2, 2, 0]])), desc="kdim"),
        Sample((A(d, (5, 4), 19, view="T"), t), desc="transposed"),
    ]
    return s


# -- convolution and pooling --


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def ref_conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    unbatched = x.ndim == 3
    if unbatched:
        x = x[None]
    (sh, sw), (ph, pw), (dh, dw) = pair(stride), pair(padding), pair(dilation)
    n, c, h, wd = x.shape
    oc, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, oc, oh, ow))
    og = oc // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * og:(g + 1) * og]
        for i in range(oh):
            for j in range(ow):
                patch = xs[:, :, i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw]
                out[:, g * og:(g + 1) * og, i, j] = np.einsum("nckl,ockl->no", patch, ws)
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out[0] if unbatched else out


def conv2d_samples(d):
    return [
        Sample((A(d, (2, 3, 6, 5), 0), A(d, (4, 3, 3, 3), 1)), desc="plain"),
        Sample((A(d, (2, 3, 6, 5), 2), A(d, (4, 3, 3, 2), 3), A(d, (4,), 4)), desc="bias"),
        Sample((A(d, (2, 3, 7, 7), 5), A(d, (4, 3, 3, 3), 6), None, 2, 1), desc="stride2_padding1"),
        Sample((A(d, (1, 3, 7, 8), 7), A(d, (2, 3, 2, 3), 8), None, (2, 1), (1, 2)), desc="asymmetric"),
        Sample((A(d, (1, 2, 9, 9), 9), A(d, (3, 2, 3, 3), 10), A(d, (3,), 11), 1, 2, 2), desc="dilation2"),
        Sample((A(d, (2, 4, 5, 5), 12), A(d, (6, 2, 3, 3), 13), A(d, (6,), 14), 1, 1, 1, 2), desc="groups2"),
        Sample((A(d, (1, 4, 5, 5), 15), A(d, (4, 1, 3, 3), 16), None, 1, 1, 1, 4), desc="depthwise"),
        Sample((A(d, (3, 6, 5), 17), A(d, (4, 3, 3, 3), 18), A(d, (4,), 19)), desc="unbatched"),
        Sample((A(d, (2, 3, 5, 6), 20, view="T"), A(d, (4, 3, 3, 3), 21)), desc="transposed_input"),
        Sample((A(d, (2, 3, 6, 5), 22, view="strided"), A(d, (2, 3, 1, 1), 23)), desc="strided_input_1x1"),
    ]


def conv1d_samples(d):
    return [
        Sample((A(d, (2, 3, 7), 30), A(d, (4, 3, 3), 31)), desc="plain"),
        Sample((A(d, (2, 4, 9), 32), A(d, (6, 2, 3), 33), A(d, (6,), 34), 2, 1, 1, 2), desc="stride_padding_groups"),
        Sample((A(d, (3, 8), 35), A(d, (2, 3, 2), 36), None, 1, 2, 2), desc="unbatched_dilation"),
    ]


def ref_conv1d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    return ref_conv2d(x[..., None, :], w[:, :, None, :], b, (1, stride), (0, padding), (1, dilation), groups)[..., 0, :]


def conv_transpose2d_samples(d):
    return [
        Sample((A(d, (2, 3, 4, 5), 70), A(d, (3, 2, 3, 3), 71)), desc="plain"),
        Sample((A(d, (1, 2, 4, 4), 72), A(d, (2, 3, 3, 2), 73), A(d, (3,), 74), 2, 1, 1), desc="stride_padding_output"),
        Sample((A(d, (1, 4, 3, 3), 75), A(d, (4, 1, 2, 2), 76), None, 1, 0, 0, 2, 2), desc="groups_dilation"),
        Sample((A(d, (2, 3, 3), 77), A(d, (2, 2, 3, 3), 78), A(d, (2,), 79), (2, 1), (2, 0)), desc="unbatched_crop"),
    ]


def ref_conv_transpose2d(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    unbatched = x.ndim == 3
    if unbatched:
        x = x[None]
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = pair(stride), pair(padding), pair(output_padding), pair(dilation)
    n, cin, h, wd = x.shape
    _, cog, kh, kw = w.shape
    cig = cin // groups
    # Each input pixel scatters its kernel-weighted copy into the full output, which is then cropped by padding.
    full = np.zeros((n, cog * groups, (h - 1) * sh + dh * (kh - 1) + 1 + oph, (wd - 1) * sw + dw * (kw - 1) + 1 + opw))
    for g in range(groups):
        for i in range(h):
            for j in range(wd):
                contribution = np.einsum("nc,cokl->nokl", x[:, g * cig:(g + 1) * cig, i, j], w[g * cig:(g + 1) * cig])
                full[:, g * cog:(g + 1) * cog, i * sh:i * sh + dh * (kh - 1) + 1:dh,
                     j * sw:j * sw + dw * (kw - 1) + 1:dw] += contribution
    oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1
    ow = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1
    out = full[:, :, ph:ph + oh, pw:pw + ow]
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out[0] if unbatched else out


def group_norm_samples(d):
    return [
        Sample((A(d, (2, 4, 3), 40), 2), desc="plain"),
        Sample((A(d, (2, 6, 2, 2), 41), 3, A(d, (6,), 42), A(d, (6,), 43)), desc="affine"),
        # (With weight: torch 2.13's backward fails without one, "tensor does not have a device".)
        Sample((A(d, (3, 4, 2), 44), 4, A(d, (4,), 46), A(d, (4,), 45), 1e-3), desc="group_per_channel_eps"),
    ]


def ref_group_norm(x, groups, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    xr = x.reshape(n, groups, -1)
    y = ((xr - xr.mean(-1, keepdims=True)) / np.sqrt(xr.var(-1, keepdims=True) + eps)).reshape(x.shape)
    shape = [1, c] + [1] * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


def bilinear_samples(d):
    return [
        Sample((A(d, (3, 4), 50), A(d, (3, 5), 51), A(d, (2, 4, 5), 52)), desc="plain"),
        Sample((A(d, (2, 3, 4), 53), A(d, (2, 3, 5), 54), A(d, (2, 4, 5), 55), A(d, (2,), 56)), desc="batched_bias"),
    ]


def ref_bilinear(x1, x2, w, b=None):
    out = np.einsum("...i,oij,...j->...o", x1, w, x2)
    return out if b is None else out + b


def adaptive_avg_pool_samples(d):
    return [
        Sample((A(d, (2, 3, 6, 6), 60), [3, 2]), desc="divisible"),
        Sample((A(d, (1, 2, 7, 5), 61), [3, 4]), desc="overlapping_windows"),
        Sample((A(d, (3, 5, 5), 62), [1, 1]), desc="global_unbatched"),
    ]


def ref_adaptive_avg_pool(x, size):
    h, w = x.shape[-2:]
    oh, ow = size
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        hs, he = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            ws, we = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[..., i, j] = x[..., hs:he, ws:we].mean(axis=(-2, -1))
    return out


def pool_windows(n, k, s, p, ceil_mode):
    span = n + 2 * p - k
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def ref_pool(x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False, count_include_pad=True,
             divisor_override=None, mode="max"):
    """torch's pooling windows: output sizes by the effective kernel; a window
    clipped to the input, averaged over its part inside input + declared padding."""
    unbatched = x.ndim == 3
    if unbatched:
        x = x[None]
    (kh, kw), (ph, pw), (dh, dw) = pair(kernel), pair(padding), pair(dilation)
    (sh, sw) = pair(stride) if stride not in (None, []) else (kh, kw)
    n, c, h, w = x.shape
    oh = pool_windows(h, dh * (kh - 1) + 1, sh, ph, ceil_mode)
    ow = pool_windows(w, dw * (kw - 1) + 1, sw, pw, ceil_mode)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * sh - ph, j * sw - pw
            rows = [h0 + a * dh for a in range(kh) if 0 <= h0 + a * dh < h]
            cols = [w0 + b * dw for b in range(kw) if 0 <= w0 + b * dw < w]
            win = x[:, :, rows][:, :, :, cols]
            if mode == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
                continue
            padded = (min(h0 + kh, h + ph) - h0) * (min(w0 + kw, w + pw) - w0)
            div = divisor_override or (padded if count_include_pad else len(rows) * len(cols))
            out[:, :, i, j] = win.sum(axis=(2, 3)) / div
    return out[0] if unbatched else out


def ref_max_pool(x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    return ref_pool(x, kernel, stride, padding, dilation, ceil_mode, mode="max")


def ref_avg_pool(x, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return ref_pool(x, kernel, stride, padding, 1, ceil_mode, count_include_pad, divisor_override, mode="avg")


AVG_CEIL_PAD = ("avg_pool2d(ceil_mode=True, count_include_pad=True) on float32 (oneDNN) divides a window that "
                "overhangs the input by the full kernel size; torch (and Ember's other dtypes) divide by the part "
                "inside input + declared padding")


def max_pool_samples(d):
    s = [
        Sample((A(d, (2, 3, 6, 6), 0), 2), desc="k2"),
        Sample((A(d, (2, 3, 7, 6), 1), 3, 2), desc="k3_s2"),
        Sample((A(d, (1, 2, 7, 7), 2), [3, 2], [2, 1], [1, 1]), desc="asymmetric_padding"),
        Sample((A(d, (1, 2, 7, 7), 3), 2, 2, 0, 1, True), desc="ceil_mode"),
        Sample((A(d, (1, 2, 8, 8), 4), 3, 2, 1, 1, True), desc="ceil_mode_padding"),
        Sample((A(d, (3, 5, 5), 5), 2), desc="unbatched"),
        Sample((A(d, (2, 3, 6, 6), 6, view="T"), 2, 1), desc="transposed"),
        Sample((A(d, (1, 1, 5, 5), 7), 2, 2), desc="odd_size_floor"),
        Sample((A(d, (1, 2, 9, 9), 8), 3, 1, 1, 2), desc="dilation2"),
        Sample((A(d, (1, 2, 9, 8), 9), [2, 3], [2, 1], [1, 1], [3, 2], True), desc="dilation_ceil_mode"),
    ]
    if d in FLOATS:
        v = values(d, (1, 1, 4, 4), 10)
        v[0, 0, 1, 1] = np.nan
        s.append(Sample((Arr(v, d), 2), desc="nan_propagates"))
    return s


def avg_pool_samples(d):
    bug = []
    return [
        Sample((A(d, (2, 3, 6, 6), 0), 2), desc="k2"),
        Sample((A(d, (2, 3, 7, 6), 1), 3, 2), desc="k3_s2"),
        Sample((A(d, (1, 2, 7, 7), 2), 3, 2, 1), desc="padding_include"),
        Sample((A(d, (1, 2, 7, 7), 3), 3, 2, 1, False, False), desc="padding_exclude"),
        Sample((A(d, (1, 2, 8, 8), 4), 3, 2, 1, True, True), desc="ceil_mode_padding_include", marks=bug),
        Sample((A(d, (1, 2, 7, 7), 5), 2, 2, 0, True, False), desc="ceil_mode_exclude"),
        Sample((A(d, (1, 2, 7, 7), 6), 2, 2, 0, True, True), desc="ceil_mode_overhang_include", marks=bug),
        Sample((A(d, (3, 5, 5), 7), 2), desc="unbatched"),
        Sample((A(d, (2, 3, 6, 6), 8, view="T"), [2, 3], [1, 2]), desc="transposed"),
        Sample((A(d, (1, 2, 7, 7), 9), 3, 2, 1, True, True, 4), desc="divisor_override"),
    ]


def torch_avg_pool(x, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return F.avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)


REAL = ("bool", "uint8", "int32", "int64") + FLOATS
FLT = FLOATS + ("complex64",)
# ---- searching, counting, differences and fused products ---------------------------------


def nan_to_num_samples(d):
    v = values(d, (3, 4), 0)
    if d in FLOATS:
        v = v.copy()
        v[0, 1], v[1, 2], v[2, 0] = np.nan, np.inf, -np.inf
    return [
        Sample((Arr(v, d),), {"nan": 1.5, "posinf": 100.0, "neginf": -100.0}, desc="all_given"),
        Sample((Arr(v, d),), {"posinf": 7.0, "neginf": -7.0}, desc="nan_default"),
        # The defaults of posinf/neginf are the dtype's extremes, which the float64 reference has not.
        Sample((Arr(v, d),), desc="defaults", ref=False),
        Sample((Arr(v.T.copy(), d, view="T"),), {"nan": 0.0, "posinf": 1.0, "neginf": -1.0}, desc="transposed"),
    ]


def ref_nan_to_num(a, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)


def diff_samples(d):
    return [
        Sample((A(d, (3, 5), 0),), desc="last_dim"),
        Sample((A(d, (4, 3), 1),), {"dim": 0, "n": 2}, desc="second_order_dim0"),
        Sample((A(d, (2, 3), 2),), {"prepend": A(d, (2, 1), 3), "append": A(d, (2, 2), 4)}, desc="prepend_append"),
        Sample((A(d, (3, 4), 5, view="T"),), {"n": 3}, desc="transposed"),
        Sample((A(d, (2, 3), 6),), {"n": 5}, desc="order_past_length"),
        Sample((A(d, (4,), 7),), {"n": 0}, desc="order_zero"),
    ]


def ref_diff(a, n=1, dim=-1, prepend=None, append=None):
    kwargs = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    return np.diff(a, n=n, axis=dim, **kwargs)


def take_along_dim_samples(d):
    v = values(d, (3, 4), 0)
    order = np.argsort(values("float64", (3, 4), 1), axis=1)
    return [
        Sample((Arr(v, d), index_arr(order)), {"dim": 1}, desc="permute_rows"),
        Sample((Arr(v, d), index_arr([[2], [0], [1]])), {"dim": 1}, desc="one_per_row"),
        Sample((Arr(v, d), index_arr([[0, 2, 1, 1]])), {"dim": 0}, desc="broadcast_rows"),
        Sample((Arr(v, d), index_arr([11, 0, 5])), desc="flattened"),
        Sample((Arr(v.T.copy(), d, view="T"), index_arr([[1, 0, 2]])), {"dim": -1}, desc="transposed"),
    ]


def ref_take_along_dim(a, indices, dim=None):
    if dim is None:
        return a.reshape(-1)[indices.reshape(-1)]
    shape = list(np.broadcast_shapes(a.shape[:dim % a.ndim] + (1,) + a.shape[dim % a.ndim + 1:], indices.shape))
    idx = np.broadcast_to(indices, shape)
    shape[dim] = a.shape[dim]
    return np.take_along_axis(np.broadcast_to(a, shape), idx, axis=dim)


def triangle_indices_samples(d):
    return [
        Sample((4, 3), desc="tall"),
        Sample((3, 5, 2), desc="offset_right"),
        Sample((4, 4, -1), {"dtype": DT("int32")}, desc="below_int32"),
        Sample((0, 3), desc="empty"),
    ]


def ref_triangle_indices(lower):
    def ref(row, col, offset=0, dtype=None):
        rows, cols = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
        return np.stack([rows, cols]).astype(np.int64).reshape(2, -1)
    return ref


def index_copy_samples(d):
    return [
        Sample((A(d, (4, 3), 0), 0, index_arr([3, 0]), A(d, (2, 3), 1)), desc="rows"),
        Sample((A(d, (2, 5), 2), -1, index_arr([4, 1, 2]), A(d, (2, 3), 3)), desc="columns"),
        Sample((A(d, (3, 4), 4, view="T"), 1, index_arr([0, 3]), A(d, (3, 2), 5)), desc="transposed_self"),
        Sample((A(d, (4, 3), 6), 0, index_arr(np.zeros(0, np.int64)), A(d, (0, 3), 7)), desc="empty_index"),
        Sample((A(d, (5,), 8), 0, index_arr(2), A(d, (1,), 9)), desc="0d_index"),
    ]


def ref_index_copy(a, dim, index, source):
    out = np.array(a, copy=True)
    np.moveaxis(out, dim, 0)[np.asarray(index).reshape(-1)] = np.moveaxis(np.asarray(source), dim, 0)
    return out


def index_fill_samples(d):
    fill = {"bool": True, "int64": -3}.get(d, 2.5)
    return [
        Sample((A(d, (4, 3), 0), 0, index_arr([3, 0]), fill), desc="rows"),
        Sample((A(d, (2, 5), 2), -1, index_arr([4, 1]), fill), desc="columns"),
        Sample((A(d, (3, 4), 4, view="T"), 1, index_arr([0, 3, 0]), fill), desc="transposed_repeats"),
        Sample((A(d, (4, 3), 6), 1, index_arr([1]), Arr(np.asarray(fill), d)), desc="0d_tensor_value"),
        Sample((A(d, (5,), 8), 0, index_arr(2), fill), desc="0d_index"),
    ]


def ref_index_fill(a, dim, index, value):
    out = np.array(a, copy=True)
    np.moveaxis(out, dim, 0)[np.asarray(index).reshape(-1)] = value
    return out


def addmv_samples(d):
    return [
        Sample((A(d, (3,), 0), A(d, (3, 4), 1), A(d, (4,), 2)), desc="plain"),
        Sample((A(d, (1,), 3), A(d, (4, 3), 4, view="T"), A(d, (3,), 5)), {"beta": 2, "alpha": -1}, desc="broadcast_T"),
        Sample((A(d, (), 6), A(d, (2, 3), 7), A(d, (3,), 8)), {"beta": 0}, desc="beta0_0d"),
    ]


def ref_addmv(s, m, v, beta=1, alpha=1):
    return (0 if beta == 0 else beta * s) + alpha * (m @ v)


def bmm_family_samples(shape, batched_self):
    def samples(d):
        n, p = 3, 5
        self_shape = (2, n, p) if batched_self else (n, p)
        return [
            Sample((A(d, self_shape, 0), A(d, (2, n, 4), 1), A(d, (2, 4, p), 2)), desc="plain"),
            Sample((A(d, (p,), 3), A(d, (2, n, 4), 4), A(d, (2, 4, p), 5)), {"beta": 2, "alpha": 3},
                   desc="broadcast_self"),
            Sample((A(d, self_shape, 6), A(d, (2, n, 4), 7), A(d, (2, 4, p), 8)), {"beta": 0}, desc="beta0"),
        ]
    return samples


def ref_baddbmm(s, b1, b2, beta=1, alpha=1):
    return (0 if beta == 0 else beta * s) + alpha * (b1 @ b2)


def ref_addbmm(s, b1, b2, beta=1, alpha=1):
    return (0 if beta == 0 else beta * s) + alpha * (b1 @ b2).sum(0)


def cdist_samples(d):
    return [
        Sample((A(d, (4, 3), 0), A(d, (2, 3), 1)), desc="euclidean"),
        Sample((A(d, (4, 3), 2), A(d, (5, 3), 3)), {"p": 1.0}, desc="p1"),
        Sample((A(d, (2, 3, 2), 4), A(d, (1, 4, 2), 5)), {"p": 3.0}, desc="p3_batch_broadcast"),
        Sample((A(d, (3, 2), 6), A(d, (2, 2), 7)), {"p": math.inf}, desc="pinf"),
        Sample((A(d, (3, 2), 8), A(d, (2, 2), 9)), {"p": 0.0}, desc="p0"),
        Sample((A(d, (4, 2), 10, view="T"), A(d, (3, 2), 11)), {"compute_mode": "donot_use_mm_for_euclid_dist"}, desc="transposed_mode"),
    ]


def ref_cdist(x1, x2, p=2.0, compute_mode=None):
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(diff.dtype)
    if math.isinf(p):
        return diff.max(-1)
    return (diff ** p).sum(-1) ** (1 / p)


def mode_samples(d):
    ties = np.array([[3, 1, 3, 1, 2], [5, 5, 4, 4, 4], [0, 2, 2, 0, 1]])
    return [
        Sample((Arr(ties, d),), desc="ties_smallest_wins"),
        Sample((Arr(ties.T.copy(), d),), {"dim": 0, "keepdim": True}, desc="dim0_keepdim"),
        Sample((Arr(ties, d, view="T"),), {"dim": 0}, desc="transposed"),
        Sample((A(d, (2, 3, 4), 0, kind="ties"),), {"dim": 1}, desc="3d_random_ties"),
        Sample((Arr(np.asarray(ties[0, 0]), d),), desc="0d"),
    ]


def ref_mode(a, dim=-1, keepdim=False):
    if a.ndim == 0:
        return a, np.array(0)
    moved = np.moveaxis(a, dim, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    vals, idxs = [], []
    for row in flat:
        uniq, counts = np.unique(row, return_counts=True)
        best = uniq[np.argmax(counts)]  # first of the most frequent: the smallest
        vals.append(best)
        idxs.append(np.nonzero(row == best)[0][-1])
    vals = np.array(vals, a.dtype).reshape(moved.shape[:-1])
    idxs = np.array(idxs).reshape(moved.shape[:-1])
    if keepdim:
        vals, idxs = np.expand_dims(vals, dim), np.expand_dims(idxs, dim)
    return vals, idxs


def searchsorted_samples(d):
    seq = np.sort(values(d, (3, 6), 0), axis=1)
    probe = values(d, (3, 4), 1)
    probe[:, 0] = seq[:, 2]  # exact hits: left and right differ
    return [
        Sample((Arr(seq[0], d), Arr(probe, d)), desc="one_sequence"),
        Sample((Arr(seq, d), Arr(probe, d)), {"right": True}, desc="per_row_right"),
        Sample((Arr(seq, d), Arr(probe, d)), {"side": "right", "out_int32": True}, desc="side_int32"),
        Sample((Arr(seq[1][::-1].copy(), d), Arr(probe[0], d)),
               {"sorter": index_arr(np.arange(5, -1, -1))}, desc="sorter"),
        Sample((Arr(seq[2], d), Arr(np.asarray(probe[0, 1]), d)), desc="0d_value"),
        Sample((Arr(seq[0], d), 0.5), {"right": True}, desc="python_number"),
    ]


def ref_searchsorted(seq, v, out_int32=False, right=False, side=None, sorter=None):
    side = side or ("right" if right else "left")
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter, -1)
    if seq.ndim == 1:
        return np.searchsorted(seq, v, side=side)
    return np.stack([np.searchsorted(s, row, side=side) for s, row in zip(seq, v)])


def bucketize_samples(d):
    bounds = np.sort(values(d, (5,), 2))
    probe = values(d, (3, 4), 3)
    probe[0, :2] = bounds[1:3]
    return [
        Sample((Arr(probe, d), Arr(bounds, d)), desc="left"),
        Sample((Arr(probe, d, view="T"), Arr(bounds, d)), {"right": True, "out_int32": True}, desc="right_T"),
        Sample((0.5, Arr(bounds, d)), desc="python_number"),
    ]


def ref_bucketize(v, bounds, out_int32=False, right=False):
    return np.searchsorted(bounds, v, side="right" if right else "left")


def bincount_samples(d):
    counts = np.array([0, 3, 3, 1, 7, 3])
    return [
        Sample((index_arr(counts),), desc="counts"),
        Sample((index_arr(counts),), {"minlength": 10}, desc="minlength"),
        Sample((index_arr(counts), A(d, (6,), 1)), desc="weights"),
        Sample((index_arr(np.zeros(0, np.int64)),), {"minlength": 3}, desc="empty"),
    ]


def ref_bincount(x, weights=None, minlength=0):
    out = np.bincount(x, weights=weights, minlength=minlength)
    return out if weights is not None else out.astype(np.int64)


def histc_samples(d):
    v = values(d, (4, 5), 0)
    return [
        Sample((Arr(v, d),), {"bins": 6}, desc="data_range"),
        Sample((Arr(v, d),), {"bins": 4, "min": -1, "max": 1}, desc="given_range"),
        Sample((Arr(np.full((3,), 2.0), d),), {"bins": 3}, desc="constant"),
    ]


def ref_histc(a, bins=100, min=0, max=0):  # noqa: A002  (torch's names)
    lo, hi = (min, max) if min != max else (a.min(), a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(a, bins=bins, range=(lo, hi))[0].astype(np.float64)



OPS = [
    # -- reductions --
    Op("sum", sum_samples, ("bool", "uint8", "int32", "int64") + FLOATS + ("complex64",), ref_sum, method=True,
       tol=lowp_loose(3.0)),
    Op("mean", mean_samples, FLT, lambda a, dim=None, keepdim=False, dtype=None:
       np.mean(a, axis=axis(dim, a.ndim), keepdims=keepdim), method=True, tol=lowp_loose(3.0)),
    Op("prod", prod_samples, ("bool", "int32", "int64") + FLOATS + ("complex64",), ref_prod, method=True,
       tol=lowp_loose(3.0)),
    Op("amax", amax_samples, REAL, ref_amax, method=True),
    Op("amin", amax_samples, REAL, ref_amin, method=True),
    Op("max", max_full_samples, REAL, lambda a: np.max(a), method=True),
    Op("min", max_full_samples, REAL, lambda a: np.min(a), method=True),
    Op("max.dim", max_dim_samples, REAL, ref_max_dim, aten="max", method=True, named=("values", "indices")),
    Op("min.dim", max_dim_samples, REAL, ref_min_dim, aten="min", method=True, named=("values", "indices")),
    # bool: torch's argmax/argmin refuse it, and so does Ember.
    Op("argmax", argmax_samples, REAL[1:], ref_argmax, method=True),
    Op("argmin", argmax_samples, REAL[1:], ref_argmin, method=True),
    Op("var", var_samples, FLT, ref_var, method=True, tol=lowp_loose(4.0)),
    Op("std", var_samples, FLT, ref_std, method=True, tol=lowp_loose(4.0)),
    Op("norm", norm_samples, FLT, ref_norm, torch_fn=lambda *a, **k: torch_norm(*a, **k), method=True,
       tol=lowp_loose(4.0)),
    Op("logsumexp", logsumexp_samples, FLOATS + ("int64",), ref_logsumexp, method=True),
    Op("all", lambda d: all_samples(d) + large_samples(d, dim_kw=False), ("bool", "uint8", "int64", "float32"),
       ref_all, method=True),
    Op("any", all_samples, ("bool", "uint8", "int64", "float32"), ref_any, method=True),
    Op("softmax", softmax_samples, FLOATS, ref_softmax, method=True),
    Op("log_softmax", softmax_samples, FLOATS, lambda a, dim, dtype=None: ref_softmax(a, dim, log=True), method=True),
    Op("cumsum", cum_samples, ("bool", "int32", "int64") + FLOATS + ("complex64",), ref_cumsum, method=True,
       tol=lowp_loose(3.0)),
    Op("cumprod", lambda d: cum_samples(d, "prod"), ("int32", "int64") + FLOATS + ("complex64",), ref_cumprod,
       method=True, tol=lowp_loose(3.0)),
    # -- linear algebra --
    Op("mm", mm_samples, LINALG_DTYPES + LOWP, lambda a, b: a @ b, method=True, tol=lowp_loose(3.0)),
    Op("bmm", bmm_samples, LINALG_DTYPES, lambda a, b: a @ b, method=True),
    Op("addmm", addmm_samples, LINALG_DTYPES, ref_addmm, method=True),
    Op("mv", mv_samples, LINALG_DTYPES, lambda a, b: a @ b, method=True),
    Op("dot", dot_samples, LINALG_DTYPES, lambda a, b: np.dot(a, b), method=True),
    Op("trace", trace_samples, ("uint8", "int32", "int64") + FLOATS + ("complex64",), np.trace, method=True,
       grad=(0,), tol=lowp_loose(3.0)),
    Op("matmul", matmul_samples, LINALG_DTYPES, np.matmul, method=True),
    Op("__matmul__", matmul_samples, ("float32", "int64"), np.matmul, fn=lambda lib, a, b: a @ b,
       torch_fn=lambda a, b: a @ b),
    Op("linear", linear_samples, LINALG_DTYPES, ref_linear,
       torch_fn=lambda *a: F.linear(*a)),
    # -- joining, splitting, indexing, sorting --
    Op("cat", cat_samples, ("bool", "int64", "float16", "float32", "float64", "complex64"), ref_cat),
    Op("stack", stack_samples, ("int64", "float32", "complex64"), lambda ts, dim=0: np.stack(ts, axis=dim)),
    Op("split", split_samples, ("int64", "float32"), ref_split, method=True),
    Op("split_with_sizes", split_with_sizes_samples, ("int64", "float32"), ref_split, method=True,
       torch_fn=lambda x, sizes, dim=0: torch.split(x, sizes, dim)),
    Op("chunk", chunk_samples, ("int64", "float32"), ref_chunk, method=True),
    Op("unbind", unbind_samples, ("int64", "float32"), ref_unbind, method=True),
    Op("index_select", index_select_samples, ("bool", "int64", "float16", "float32", "complex64"), ref_index_select,
       method=True),
    Op("index_add", index_add_samples, ("int64", "float32", "float64"), ref_index_add, method=True, grad=(0, 3)),
    Op("gather", gather_samples, ("bool", "int64", "float32", "complex64"), ref_gather, method=True),
    Op("scatter", scatter_samples, ("int64", "float32", "float64", "complex64"), ref_scatter, method=True),
    Op("scatter_add", scatter_add_samples, ("int64", "float32", "float64"), ref_scatter_add, method=True),
    Op("cov", cov_samples, ("int64", "float32", "float64"), ref_cov, method=True, grad=(0,)),
    Op("corrcoef", corrcoef_samples, ("float32", "float64"), np.corrcoef, method=True, grad=(0,)),
    Op("vander", vander_samples, ("int64", "float32", "float64"), ref_vander, grad=(0,)),
    Op("histogram", histogram_samples, ("float32", "float64"), ref_histogram, method=True, data_dependent=True,
       named=("hist", "bin_edges")),
    Op("view.dtype", view_dtype_samples, ("bool", "int32", "float32", "float64", "complex64"), ref_view_dtype,
       aten="view", fn=lambda lib, x, own, dtype: x.view(dtype)),
    Op("scatter_reduce", scatter_reduce_samples, ("bool", "int64", "float16", "float32", "float64"), ref_scatter_reduce,
       method=True, grad=(0, 3)),
    Op("scatter_legacy_reduce", legacy_scatter_reduce_samples, ("int64", "float32", "complex64"),
       ref_legacy_scatter_reduce, aten="scatter", method=True),
    Op("index_reduce", index_reduce_samples, ("int64", "float16", "float32", "float64"), ref_index_reduce, method=True,
       grad=(0, 3)),
    Op("masked_fill", masked_fill_samples, ("bool", "int32", "int64", "float16", "float32", "complex64"),
       ref_masked_fill, method=True),
    Op("concat", cat_samples, ("int64", "float32"), ref_cat),
    Op("concatenate", cat_samples, ("int64", "float32"), ref_cat),
    Op("atleast_1d", atleast_samples, ("bool", "float32"), np.atleast_1d, grad=(0,)),
    Op("atleast_2d", atleast_samples, ("bool", "float32"), np.atleast_2d, grad=(0,)),
    Op("atleast_3d", atleast_samples, ("bool", "float32"), np.atleast_3d, grad=(0,)),
    Op("hstack", stack_family_samples, ("bool", "int64", "float32", "complex64"), np.hstack),
    Op("vstack", stack_family_samples, ("bool", "int64", "float32", "complex64"), np.vstack),
    Op("row_stack", stack_family_samples, ("float32",), np.vstack),
    Op("dstack", stack_family_samples, ("bool", "int64", "float32", "complex64"), np.dstack),
    Op("column_stack", stack_family_samples, ("bool", "int64", "float32", "complex64"), np.column_stack),
    Op("masked_select", masked_select_samples, ("bool", "int64", "float32", "complex64"), ref_masked_select,
       method=True, data_dependent=True, grad=(0,)),
    Op("repeat_interleave", repeat_interleave_samples, ("bool", "int64", "float32", "complex64"),
       ref_repeat_interleave, method=True, data_dependent=True, grad=(0,)),
    Op("repeat_interleave.Tensor", repeat_interleave_counts_samples, ("int64",),
       lambda r: np.repeat(np.arange(len(r)), r), aten="repeat_interleave", data_dependent=True),
    Op("diag", diag_samples, ("bool", "int64", "float32", "float64", "complex64"), np.diag, method=True,
       grad=(0,)),
    Op("outer", outer_samples, ("bool", "int64", "float32", "float64", "complex64"), np.outer, method=True,
       grad=(0, 1)),
    Op("einsum", einsum_samples, ("float32", "float64", "int64"), np.einsum, grad=(1, 2, 3)),
    Op("tensordot", tensordot_samples, ("float32", "float64"), lambda a, b, da, db: np.tensordot(a, b, (da, db)),
       fn=lambda lib, a, b, da, db: lib.tensordot(a, b, dims=(da, db)), grad=(0, 1)),
    Op("kthvalue", order_stat_samples, ("int64", "float32", "float64"), ref_kthvalue, method=True,
       named=("values", "indices"), grad=(0,)),
    Op("_sorted_index_at", sorted_index_at_samples, ("int64", "float32", "float64"), ref_sorted_index_at,
       torch_fn=lambda a, dim, position: torch.sort(a, dim=dim, stable=True).indices.gather(dim, position)),
    Op("median", median_samples, ("int64", "float32", "float64"), ref_median, method=True, grad=(0,)),
    Op("median_dim", lambda d: median_samples(d, reduce_all=False), ("int64", "float32", "float64"), ref_median,
       aten="median", method=True, named=("values", "indices"), grad=(0,)),
    Op("_unique2", unique_samples, ("bool", "int64", "float32"), ref_unique, data_dependent=True),
    Op("nonzero", nonzero_samples, ("bool", "int64", "float32", "complex64"), ref_nonzero, method=True,
       data_dependent=True),
    Op("equal", equal_samples, ("bool", "int64", "float32", "complex64"), ref_equal,
       fn=lambda lib, a, b: lib.tensor(lib.equal(a, b)), data_dependent=True),
    Op("isclose", isclose_samples, ("bool", "int64", "float32", "float64"), ref_isclose, method=True),
    Op("allclose", isclose_samples, ("int64", "float32", "float64"), lambda a, b, **k: np.array(ref_isclose(a, b, **k).all()),
       fn=lambda lib, a, b, **k: lib.tensor(lib.allclose(a, b, **k)), data_dependent=True),
    Op("item", item_samples, ("bool", "int64", "float64", "complex128"), lambda a: a.reshape(()),
       fn=lambda lib, a: lib.tensor(a.item()), data_dependent=True),
    Op("sort", sort_samples, ("bool", "uint8", "int8", "int16", "int32", "int64") + FLOATS, ref_sort, method=True,
       named=("values", "indices"),
       torch_fn=lambda *a, **k: torch_sort(*a, **k)),
    Op("argsort", sort_samples, ("int64", "float32", "float64"), ref_argsort, method=True,
       torch_fn=lambda *a, **k: torch_argsort(*a, **k)),
    # stable=True (keyword-only), as torch spells a stable sort: the dims as keywords too.
    Op("sort.stable", lambda d: [Sample(s.args[:1], {**dict(zip(("dim", "descending"), s.args[1:])), **s.kwargs},
                                        desc=s.desc) for s in sort_samples(d)],
       ("int64", "float32", "float64"), ref_sort, aten="sort", fn=lambda lib, x, **k: lib.sort(x, stable=True, **k),
       named=("values", "indices")),
    Op("argsort.stable", lambda d: [Sample(s.args[:1], {**dict(zip(("dim", "descending"), s.args[1:])), **s.kwargs},
                                           desc=s.desc) for s in sort_samples(d)],
       ("int64", "float32"), ref_argsort, aten="argsort", fn=lambda lib, x, **k: lib.argsort(x, stable=True, **k)),
    Op("topk", topk_samples, ("uint8", "int64") + FLOATS, ref_topk, method=True, named=("values", "indices")),
    # -- searching, counting, differences and fused products --
    Op("nan_to_num", nan_to_num_samples, ("bool", "int64", "float16", "float32", "float64"), ref_nan_to_num,
       method=True, grad=(0,)),
    Op("diff", diff_samples, ("bool", "int64", "float32", "float64"), ref_diff, method=True, grad=(0,)),
    Op("take_along_dim", take_along_dim_samples, ("bool", "int64", "float32", "float64"), ref_take_along_dim,
       method=True, grad=(0,)),
    Op("tril_indices", triangle_indices_samples, ("int64",), ref_triangle_indices(True)),
    Op("triu_indices", triangle_indices_samples, ("int64",), ref_triangle_indices(False)),
    Op("index_copy", index_copy_samples, ("bool", "int64", "float32", "float64"), ref_index_copy, method=True,
       grad=(0, 3)),
    Op("index_fill", index_fill_samples, ("bool", "int64", "float32", "float64"), ref_index_fill, method=True,
       grad=(0,)),
    Op("addmv", addmv_samples, ("int64", "float32", "float64"), ref_addmv, method=True, grad=(0, 1, 2)),
    Op("baddbmm", bmm_family_samples("baddbmm", True), ("int64", "float32", "float64"), ref_baddbmm, method=True,
       grad=(0, 1, 2)),
    Op("addbmm", bmm_family_samples("addbmm", False), ("int64", "float32", "float64"), ref_addbmm, method=True,
       grad=(0, 1, 2)),
    Op("cdist", cdist_samples, ("float32", "float64"), ref_cdist, grad=(0, 1)),
    Op("mode", mode_samples, ("int64", "float32", "float64"), ref_mode, method=True, named=("values", "indices")),
    Op("searchsorted", searchsorted_samples, ("int64", "float32", "float64"), ref_searchsorted),
    Op("bucketize", bucketize_samples, ("int64", "float32", "float64"), ref_bucketize),
    Op("bincount", bincount_samples, ("float32", "float64"), ref_bincount, method=True, data_dependent=True),
    Op("histc", histc_samples, ("float32", "float64"), ref_histc, method=True),
    # -- shapes, diagonals, splits, the smaller reductions and products --
    Op("diagonal", diagonal_samples, ("bool", "int64", "float32", "float64"), ref_diagonal, method=True, grad=(0,)),
    Op("diag_embed", diag_embed_samples, ("bool", "int64", "float32", "float64"), ref_diag_embed, method=True,
       grad=(0,)),
    Op("diagflat", lambda d: [Sample((A(d, (2, 2), 0),), desc="matrix"), Sample((A(d, (3,), 1), -1), desc="below")],
       ("int64", "float32", "float64"), lambda a, offset=0: np.diagflat(a, offset), method=True),
    Op("diagonal_scatter", diagonal_scatter_samples, ("bool", "int64", "float32", "float64"), ref_diagonal_scatter,
       method=True, grad=(0, 1)),
    Op("select_scatter", select_scatter_samples, ("bool", "int64", "float32", "float64"), ref_select_scatter,
       method=True, grad=(0, 1)),
    Op("slice_scatter", slice_scatter_samples, ("bool", "int64", "float32", "float64"), ref_slice_scatter,
       method=True, grad=(0, 1)),
    Op("as_strided_scatter", as_strided_scatter_samples, ("bool", "int64", "float32", "float64"),
       ref_as_strided_scatter, method=True, grad=(0, 1)),
    Op("block_diag", block_diag_samples, ("bool", "int64", "float32", "float64"), ref_block_diag, grad=(0, 1)),
    Op("unflatten", unflatten_samples, ("int64", "float32", "float64"), ref_unflatten, method=True),
    Op("ravel", one_tensor_samples((2, 3, 2), ()), ("bool", "int64", "float32"), np.ravel, method=True),
    Op("adjoint", lambda d: one_tensor_samples((2, 3, 2), (3, 2))(d), ("int64", "float32", "complex64"),
       lambda a: np.swapaxes(a, -1, -2).conj(), method=True),
    Op("tensor_split.sections", tensor_split_samples("tensor_split.sections"), ("int64", "float32"), ref_tensor_split,
       aten="tensor_split", method=True),
    Op("tensor_split.indices", tensor_split_samples("tensor_split.indices"), ("int64", "float32"), ref_tensor_split,
       aten="tensor_split", method=True),
    Op("tensor_split.tensor", tensor_split_samples("tensor_split.tensor"), ("int64", "float32"), ref_tensor_split,
       aten="tensor_split", method=True, data_dependent=True),
    *[Op(f"{name}.{form}", tensor_split_samples(f"{name}.{form}"), ("int64", "float32"), ref_named_split(name), aten=name,
         method=True) for name in ("hsplit", "vsplit", "dsplit") for form in ("int", "array")],
    Op("fliplr", one_tensor_samples((3, 4), (2, 3, 2)), ("bool", "int64", "float32"), np.fliplr, method=True),
    Op("flipud", one_tensor_samples((3, 4), (5,)), ("bool", "int64", "float32"), np.flipud, method=True),
    Op("rot90", rot90_samples, ("bool", "int64", "float32", "float64"), ref_rot90, method=True),
    Op("tile", tile_samples, ("bool", "int64", "float32", "float64"), np.tile, method=True),
    Op("take", take_samples, ("bool", "int64", "float32", "float64"), ref_take, method=True, data_dependent=True),
    Op("put", put_samples, ("bool", "int64", "float32", "float64"), ref_put, method=True, data_dependent=True,
       grad=(0, 2)),
    Op("frexp", frexp_samples, ("float16", "bfloat16", "float32", "float64"), ref_frexp, method=True,
       named=("mantissa", "exponent"), aten="frexp", grad=(0,)),
    Op("argwhere", argwhere_samples, ("bool", "int64", "float32"), ref_argwhere, method=True, data_dependent=True),
    *[Op(f"isin.{kind}", isin_samples(kind), ("int64", "float32", "float64"), ref_isin, aten="isin")
      for kind in ("Tensor_Tensor", "Tensor_Scalar", "Scalar_Tensor")],
    Op("msort", one_tensor_samples((4, 3), (5,)), ("int64", "float32", "float64"), lambda a: np.sort(a, axis=0),
       method=True),
    *[Op(f"{name}{suffix}", clamp_one_samples(kind), ("int64", "float32", "float64"), ref_clamp_one(name == "clamp_min"),
         aten=name + ("_" if suffix.startswith("_") else ""), method=not suffix.startswith("_"),
         fn=inplace(name + "_") if suffix.startswith("_") else None, torch_fn=None)
      for name in ("clamp_min", "clamp_max") for suffix, kind in (("", "scalar"), (".Tensor", "tensor"),
                                                                  ("_", "scalar"), ("_.Tensor", "tensor"))],
    Op("cummax", cumulative_samples, ("int64", "float32", "float64"), ref_running_extreme(True), method=True,
       named=("values", "indices"), grad=(0,)),
    Op("cummin", cumulative_samples, ("int64", "float32", "float64"), ref_running_extreme(False), method=True,
       named=("values", "indices"), grad=(0,)),
    Op("logcumsumexp", logcumsumexp_samples, FLOATS, ref_logcumsumexp, method=True, tol=lowp_loose(4.0), grad=(0,)),
    Op("count_nonzero", count_samples, ("bool", "int64", "float32"), ref_count_nonzero, method=True),
    Op("nansum", nan_reduction_samples, ("int64", "float32", "float64"), ref_nansum, method=True),
    Op("nanmean", nan_reduction_samples, ("float32", "float64"), ref_nanmean, method=True),
    Op("aminmax", aminmax_samples, ("int64", "float32", "float64"), ref_aminmax, method=True, named=("min", "max")),
    *[Op(f"{name}.{overload}", moments_samples(overload), ("float32", "float64"), ref_moments(name == "std_mean"),
         aten=name) for name in ("var_mean", "std_mean") for overload in ("correction", "unbiased", "dim")],
    *[Op(f"{name}.{form}", trapezoid_samples(form), ("int64", "float32", "float64") if form == "dx" else FLOATS[2:],
         ref_trapezoid(name == "cumulative_trapezoid"), aten=name, grad=(0, 1) if form == "x" else (0,))
      for name in ("trapezoid", "cumulative_trapezoid") for form in ("x", "dx")],
    Op("cross", cross_samples, ("int64", "float32", "float64"), ref_cross, method=True),
    Op("kron", two_tensor_samples(((2, 3), (2, 2)), ((3,), (2, 1, 2)), ((), (3,))), ("int64", "float32", "float64"),
       np.kron, method=True),
    Op("inner", two_tensor_samples(((2, 3), (4, 3)), ((3,), (3,)), ((2, 2, 3), (3,)), ((), (2, 3))),
       ("int64", "float32", "float64"), ref_inner, method=True),
    Op("vdot", two_tensor_samples(((4,), (4,)),), ("int64", "float32", "complex64"), np.vdot, method=True),
    Op("complex", two_tensor_samples(((3,), (3,)), ((2, 1), (3,)), ((), (2,))), ("float32", "float64"),
       lambda a, b: a + 1j * b),
    Op("polar", two_tensor_samples(((3,), (3,)), ((2, 1), (3,))), ("float32", "float64"),
       lambda a, b: a * np.exp(1j * b)),
    Op("view_as_real", lambda d: [Sample((A(d, (2, 3), 0),)), Sample((A(d, (4,), 1, view="strided"),))],
       COMPLEX, lambda a: np.stack([a.real, a.imag], -1)),
    Op("view_as_complex", lambda d: [Sample((A(d, (3, 2), 0),)), Sample((A(d, (2, 2, 2), 1),))], ("float32", "float64"),
       lambda a: a[..., 0] + 1j * a[..., 1]),
    Op("real", lambda d: [Sample((A(d, (2, 3), 0),))], ("float32",) + COMPLEX, np.real),
    Op("imag", lambda d: [Sample((A(d, (2, 3), 0),)), Sample((A(d, (3,), 1, view="strided"),))],
       COMPLEX, np.imag),
    *[Op(f"fft.{name}", fft_samples(name), dtypes, ref_fft(name), fn=fft_fn(name), torch_fn=fft_fn(name, torch))
      for name, dtypes in (("fft", FFT_DTYPES), ("ifft", FFT_DTYPES), ("fftn", FFT_DTYPES), ("ifftn", COMPLEX), ("rfft", ("float32", "float64")),
                           ("irfft", COMPLEX), ("hfft", COMPLEX), ("rfftn", ("float32", "float64")), ("irfftn", COMPLEX))],
    linalg_op("cholesky", square_samples(positive_definite), np.linalg.cholesky),
    linalg_op("lu_factor", square_samples(well_conditioned), post=lambda r: r.LU),
    Op("linalg.lu_solve", solve_samples(well_conditioned), LAPACK_DTYPES, np.linalg.solve,
       fn=lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b),
       torch_fn=lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b)),
    # LDL reads the lower triangle only: the matrix factored is its symmetric completion
    Op("linalg.ldl_factor", square_samples(well_conditioned), LAPACK_DTYPES, None,
       fn=lambda lib, a: lib.linalg.ldl_factor(a).LD, torch_fn=lambda a: torch.linalg.ldl_factor(a).LD),
    Op("linalg.ldl_solve", solve_samples(well_conditioned), LAPACK_DTYPES,
       lambda a, b: np.linalg.solve(np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2), b),
       fn=lambda lib, a, b: lib.linalg.ldl_solve(*lib.linalg.ldl_factor(a), b),
       torch_fn=lambda a, b: torch.linalg.ldl_solve(*torch.linalg.ldl_factor(a), b)),
    linalg_op("solve", solve_samples(well_conditioned), np.linalg.solve),
    linalg_op("det", square_samples(well_conditioned), np.linalg.det),
    linalg_op("slogdet", square_samples(well_conditioned), lambda a: tuple(np.linalg.slogdet(a)),
              named=("sign", "logabsdet")),
    linalg_op("eigvalsh", square_samples(positive_definite), np.linalg.eigvalsh),
    linalg_op("eigvals", square_samples(well_conditioned), None,
              post=lambda w: w.real.sort(-1).values),
    linalg_op("svdvals", lambda d: [Sample((A(d, (4, 3), 0),)), Sample((A(d, (2, 3, 5), 1),))],
              lambda a: np.linalg.svd(a, compute_uv=False)),
    linalg_op("qr", lambda d: [Sample((A(d, (4, 3), 0),)), Sample((A(d, (2, 3, 5), 1),))],
              lambda a: tuple(np.linalg.qr(a)), named=("Q", "R")),
    Op("linalg.solve_triangular", solve_samples(well_conditioned), LAPACK_DTYPES, _triu_solve,
       fn=lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True),
       torch_fn=lambda a, b: torch.linalg.solve_triangular(a, b, upper=True)),
    special_op("gammaln", grid(-4.7, 9.3), _scipy("gammaln")),
    special_op("digamma", grid(-4.7, 9.3), _scipy("psi")),
    special_op("i0", grid(-9, 9), _scipy("i0")),
    special_op("i0e", grid(-30, 30), _scipy("i0e")),
    special_op("i1", grid(-9, 9), _scipy("i1")),
    special_op("i1e", grid(-30, 30), _scipy("i1e")),
    special_op("erfcx", grid(-5, 30), _scipy("erfcx")),
    special_op("ndtr", grid(-9, 9), _scipy("ndtr")),
    special_op("ndtri", grid(0.001, 0.999), _scipy("ndtri")),
    special_op("log_ndtr", grid(-30, 9), _scipy("log_ndtr")),
    special_op("entr", grid(0, 5), _scipy("entr")),
    special_op("bessel_j0", grid(-20, 20), _scipy("j0"), torch_too=False),
    special_op("bessel_j1", grid(-20, 20), _scipy("j1"), torch_too=False),
    special_op("bessel_y0", grid(0.1, 20), _scipy("y0"), torch_too=False),
    special_op("bessel_y1", grid(0.1, 20), _scipy("y1"), torch_too=False),
    special_op("modified_bessel_i0", grid(-9, 9), _scipy("i0")),
    special_op("modified_bessel_i1", grid(-9, 9), _scipy("i1")),
    special_op("modified_bessel_k0", grid(0.1, 20), _scipy("k0")),
    special_op("modified_bessel_k1", grid(0.1, 20), _scipy("k1")),
    special_op("scaled_modified_bessel_k0", grid(0.1, 50), _scipy("k0e")),
    special_op("scaled_modified_bessel_k1", grid(0.1, 50), _scipy("k1e")),
    special_op("spherical_bessel_j0", grid(-20, 20), lambda x: np.sinc(x / np.pi)),
    special_op("airy_ai", grid(-8, 8), lambda x: _scipy("airy")(x)[0], torch_too=False),
    Op("igamma", grid2(0.1, 30, 4.5), ("float32", "float64"), lambda x, a: _scipy("gammainc")(a, x),
       fn=lambda lib, x, a: lib.special.gammainc(a, x), torch_fn=lambda x, a: torch.special.gammainc(a, x)),
    Op("igammac", grid2(0.1, 30, 4.5), ("float32", "float64"), lambda x, a: _scipy("gammaincc")(a, x),
       fn=lambda lib, x, a: lib.special.gammaincc(a, x), torch_fn=lambda x, a: torch.special.gammaincc(a, x)),
    Op("special_zeta", grid2(0.5, 9, 3.5), ("float32", "float64"), lambda q, s: _scipy("zeta")(s, q),
       fn=lambda lib, q, s: lib.special.zeta(s, q), torch_fn=lambda q, s: torch.special.zeta(s, q)),
    special_op("xlog1py", grid2(-0.9, 9, 2.5), _scipy("xlog1py")),
    *[Op(f"special.polygamma_{n}", grid(0.3, 9), ("float32", "float64"), _scipy("polygamma", n),
         fn=lambda lib, x, n=n: lib.special.polygamma(n, x), torch_fn=lambda x, n=n: torch.special.polygamma(n, x))
      for n in (1, 2, 3)],
    Op("mvlgamma", grid(2.1, 9), ("float32", "float64"),
       lambda x: np.vectorize(lambda v: _scipy("multigammaln")(v, 3))(x),
       fn=lambda lib, x: lib.special.multigammaln(x, 3), torch_fn=lambda x: torch.special.multigammaln(x, 3)),
    *[Op(f"special.{name}", grid2(-1.2, 1.2, degree), ("float32", "float64"), None,
         fn=lambda lib, x, n, name=name: getattr(lib.special, name)(x, n),
         torch_fn=lambda x, n, name=name: getattr(torch.special, name)(x, n))
      for name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                   "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
                   "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
                   "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")
      for degree in (3,)],
    Op("addr", addr_samples, ("int64", "float32", "float64"), ref_addr, method=True),
    Op("addr_", addr_inplace_samples, ("int64", "float32", "float64"), ref_addr, aten="addr_", fn=inplace("addr_")),
    Op("dist", dist_samples, ("float32", "float64"), ref_dist, method=True),
    Op("cartesian_prod", cartesian_samples, ("int64", "float32", "float64"), ref_cartesian_prod),
    Op("ger", two_tensor_samples(((3,), (4,)),), ("int64", "float32", "float64"), np.outer, method=True),
    # -- windows, spaced values and quantiles --
    *[Op(f"{name}_window", window_samples, ("float32", "float64"), ref_window(name))
      for name in ("hann", "hamming", "blackman", "bartlett")],
    Op("hamming_window.coefficients", lambda d: [Sample((6, False, 0.5, 0.3), {"dtype": DT(d)}, desc="alpha_beta")],
       ("float32", "float64"), ref_window("hamming"), aten="hamming_window"),
    Op("logspace", logspace_samples, ("int64", "float32", "float64"), ref_logspace),
    Op("range", range_samples, ("float32", "float64"), ref_range),
    *[Op(f"{name}.{overload}", quantile_samples(overload, name == "nanquantile"), ("float32", "float64"),
         ref_quantile(name == "nanquantile"), aten=name, method=True, data_dependent=True, grad=(0,))
      for name in ("quantile", "nanquantile") for overload in ("tensor", "scalar")],
    Op("nanmedian", lambda d: [s for s in nanmedian_samples(d) if len(s.args) == 1], ("int64", "float32", "float64"),
       ref_nanmedian, method=True),
    Op("nanmedian.dim", lambda d: [s for s in nanmedian_samples(d) if len(s.args) > 1],
       ("int64", "float32", "float64"), lambda *a: ref_nanmedian(*a), aten="nanmedian",
       fn=lambda lib, *a, **k: lib.nanmedian(*a, **k).values),
    # -- neural-network functions --
    Op("embedding", embedding_samples, ("int64", "float32", "float64"), ref_embedding,
       torch_fn=lambda *a: torch.embedding(*a)),
    Op("dropout", dropout_samples, ("float32", "float64"), ref_dropout, torch_fn=lambda *a: torch.dropout(*a)),
    Op("layer_norm", layer_norm_samples, FLOATS, ref_layer_norm, torch_fn=lambda *a: torch.layer_norm(*a),
       tol=lowp_loose(4.0)),
    Op("batch_norm.eval", batch_norm_eval_samples, FLOATS, ref_batch_norm_eval, aten="batch_norm",
       torch_fn=lambda *a: torch.batch_norm(*a), tol=lowp_loose(4.0), grad=(0, 1, 2)),
    Op("mse_loss", loss_samples, ("float32", "float64"), ref_mse, torch_fn=lambda *a: torch_loss(F.mse_loss)(*a)),
    Op("l1_loss", loss_samples, ("float32", "float64"), ref_l1, torch_fn=lambda *a: torch_loss(F.l1_loss)(*a)),
    # The losses on class indices check the indices' range: not on meta.
    Op("nll_loss", nll_samples, ("float32", "float64"), ref_nll, torch_fn=lambda *a: torch_nll(*a),
       data_dependent=True),
    Op("cross_entropy_loss", cross_entropy_samples, ("float32", "float64"), ref_cross_entropy,
       torch_fn=lambda *a: torch_cross_entropy(*a), data_dependent=True),
    # -- convolution and pooling: float32 only (the oneDNN path); see test_conv_pool_float32_only --
    Op("conv2d", conv2d_samples, FLOATS, ref_conv2d, torch_fn=lambda *a: F.conv2d(*a), tol=lambda d: 5.0),
    Op("max_pool2d", max_pool_samples, FLOATS + ("int64",), ref_max_pool, torch_fn=lambda *a: F.max_pool2d(*a)),
    Op("avg_pool2d", avg_pool_samples, FLOATS, ref_avg_pool, torch_fn=lambda *a: torch_avg_pool(*a),
       tol=lowp_loose(2.0)),
    # nn functions composed in C++ (aten/native/NNCompositeOps.cpp), shared by both frontends.
    Op("conv1d", conv1d_samples, FLOATS, ref_conv1d, torch_fn=lambda *a: F.conv1d(*a), tol=lambda d: 5.0,
       grad=(0, 1, 2)),
    Op("conv_transpose2d", conv_transpose2d_samples, FLOATS, ref_conv_transpose2d, aten="conv_transpose2d",
       torch_fn=lambda *a: F.conv_transpose2d(*a), tol=lambda d: 5.0, grad=(0, 1, 2)),
    Op("group_norm", group_norm_samples, FLOATS, ref_group_norm, torch_fn=lambda *a: F.group_norm(*a),
       tol=lowp_loose(4.0), grad=(0, 2, 3)),
    Op("bilinear", bilinear_samples, ("float32", "float64"), ref_bilinear, torch_fn=lambda *a: F.bilinear(*a),
       grad=(0, 1, 2, 3)),
    Op("adaptive_avg_pool2d", adaptive_avg_pool_samples, FLOATS, ref_adaptive_avg_pool,
       torch_fn=lambda *a: F.adaptive_avg_pool2d(*a), tol=lowp_loose(2.0), grad=(0,)),
]


# ---- out= forms ---------------------------------------------------------------------
# Each: (id, call(lib, out), out dtype); call builds its inputs on `lib`. The
# out tensor starts with the wrong shape (to be resized) or the right one.


def make_tensor(lib, d, shape, seed=0, view=None, kind="normal"):
    return A(d, shape, seed, kind, view).make(lib)


OUT_CASES = [
    ("nansum", lambda lib, out: lib.nansum(make_tensor(lib, "float32", (3, 4)), 1, out=out), "float32"),
    ("nanmean", lambda lib, out: lib.nanmean(make_tensor(lib, "float64", (3, 4)), 0, out=out), "float64"),
    # Tensor-and-number overloads of elementwise ops (the pointwise entries call their out= with tensors).
    ("fmod_scalar", lambda lib, out: lib.fmod(make_tensor(lib, "float32", (3, 4)), 1.5, out=out), "float32"),
    ("copysign_scalar", lambda lib, out: lib.copysign(make_tensor(lib, "float32", (3, 4)), -1.0, out=out),
     "float32"),
    ("xlogy_scalar_other", lambda lib, out: lib.xlogy(make_tensor(lib, "float64", (3, 4)), 2.5, out=out), "float64"),
    ("xlogy_scalar_self", lambda lib, out: lib.xlogy(3.0, make_tensor(lib, "float64", (3, 4)).abs(), out=out),
     "float64"),
    ("float_power_tensor_scalar",
     lambda lib, out: lib.float_power(make_tensor(lib, "float32", (3, 4)).abs(), 0.5, out=out), "float64"),
    ("float_power_scalar_self", lambda lib, out: lib.float_power(2.0, make_tensor(lib, "float32", (3, 4)), out=out),
     "float64"),
    ("sum_dims", lambda lib, out: lib.sum(make_tensor(lib, "float32", (3, 4, 5)), [0, 2], out=out), "float32"),
    ("sum_keepdim", lambda lib, out: lib.sum(make_tensor(lib, "float64", (3, 4)), [1], True, out=out), "float64"),
    ("sum_int_to_long", lambda lib, out: lib.sum(make_tensor(lib, "int32", (3, 4)), [0], out=out), "int64"),
    ("mean_dim", lambda lib, out: lib.mean(make_tensor(lib, "float32", (3, 4), view="T"), [0], out=out), "float32"),
    ("cumsum", lambda lib, out: lib.cumsum(make_tensor(lib, "float32", (3, 4)), 1, out=out), "float32"),
    ("cumsum_int", lambda lib, out: lib.cumsum(make_tensor(lib, "int64", (3, 4)), 0, out=out), "int64"),
    ("mm", lambda lib, out: lib.mm(make_tensor(lib, "float32", (3, 4)), make_tensor(lib, "float32", (4, 5), 1), out=out), "float32"),
    ("mm_transposed", lambda lib, out: lib.mm(make_tensor(lib, "float64", (3, 4), view="T"),
                                              make_tensor(lib, "float64", (4, 5), 1, view="T"), out=out), "float64"),
    ("bmm", lambda lib, out: lib.bmm(make_tensor(lib, "float32", (2, 3, 4)), make_tensor(lib, "float32", (2, 4, 5), 1), out=out),
     "float32"),
    ("addmm", lambda lib, out: lib.addmm(make_tensor(lib, "float32", (5,)), make_tensor(lib, "float32", (3, 4), 1),
                                         make_tensor(lib, "float32", (4, 5), 2), beta=0.5, alpha=2.0, out=out), "float32"),
    ("addmm_int", lambda lib, out: lib.addmm(make_tensor(lib, "int64", (3, 5)), make_tensor(lib, "int64", (3, 4), 1),
                                             make_tensor(lib, "int64", (4, 5), 2), out=out), "int64"),
    ("cat", lambda lib, out: lib.cat([make_tensor(lib, "float32", (2, 3)), make_tensor(lib, "float32", (1, 3), 1)], out=out),
     "float32"),
    ("cat_dim1", lambda lib, out: lib.cat([make_tensor(lib, "int64", (2, 3)), make_tensor(lib, "int64", (2, 1), 1)], 1, out=out),
     "int64"),
    ("nan_to_num", lambda lib, out: lib.nan_to_num(lib.tensor([math.nan, math.inf, 1.0]), posinf=5.0, out=out),
     "float32"),
    ("diff", lambda lib, out: lib.diff(make_tensor(lib, "int64", (3, 4)), dim=0, out=out), "int64"),
    ("take_along_dim", lambda lib, out: lib.take_along_dim(make_tensor(lib, "float32", (3, 4)),
                                                           lib.tensor([[1], [0], [3]]), 1, out=out), "float32"),
    ("index_copy", lambda lib, out: lib.index_copy(make_tensor(lib, "float64", (3, 4)), 1, lib.tensor([2]),
                                                   make_tensor(lib, "float64", (3, 1), 1), out=out), "float64"),
    ("scatter_reduce", lambda lib, out: lib.scatter_reduce(make_tensor(lib, "float64", (3, 4)), 1,
                                                           lib.tensor([[2, 2], [0, 1], [3, 3]]),
                                                           make_tensor(lib, "float64", (3, 2), 1), "amax", out=out),
     "float64"),
    ("index_reduce", lambda lib, out: lib.index_reduce(make_tensor(lib, "float32", (3, 4)), 1, lib.tensor([2, 2]),
                                                       make_tensor(lib, "float32", (3, 2), 1), "mean",
                                                       include_self=False, out=out), "float32"),
    ("addmv", lambda lib, out: lib.addmv(make_tensor(lib, "float32", (3,)), make_tensor(lib, "float32", (3, 4), 1),
                                         make_tensor(lib, "float32", (4,), 2), alpha=2, out=out), "float32"),
    ("baddbmm", lambda lib, out: lib.baddbmm(make_tensor(lib, "float32", (3, 5)), make_tensor(lib, "float32", (2, 3, 4), 1),
                                             make_tensor(lib, "float32", (2, 4, 5), 2), beta=0.5, out=out), "float32"),
    ("addbmm", lambda lib, out: lib.addbmm(make_tensor(lib, "int64", (3, 5)), make_tensor(lib, "int64", (2, 3, 4), 1),
                                           make_tensor(lib, "int64", (2, 4, 5), 2), out=out), "int64"),
    ("histc", lambda lib, out: lib.histc(make_tensor(lib, "float32", (4, 5)), bins=5, out=out), "float32"),
]


# ---- in-place forms -----------------------------------------------------------------


def _inplace_cases():
    rng = np.random.default_rng(0)
    idx = unique_index((3, 2), 1, 5, 3)
    dup = rng.integers(0, 5, (3, 4))
    mask = rng.integers(0, 2, (3, 5)).astype(bool)
    mk = lambda lib, arr: Arr(arr, "int64").make(lib)
    return [
        ("cumsum_", lambda lib, t: t.cumsum_(1), lambda t: np.cumsum(t, 1), "float32"),
        ("cumsum_dim0_int", lambda lib, t: t.cumsum_(0), lambda t: np.cumsum(t, 0), "int32"),
        # (dtype= other than self's raises "Bad in-place call", as in torch: see test_error)
        ("cumsum_dtype", lambda lib, t: t.cumsum_(-1, dtype=lib.float32), lambda t: np.cumsum(t, -1), "float32"),
        ("addmm_", lambda lib, t: t.addmm_(make_tensor(lib, "float32", (3, 4), 1), make_tensor(lib, "float32", (4, 5), 2)),
         lambda t: t + values("float32", (3, 4), 1).astype(float) @ values("float32", (4, 5), 2).astype(float),
         "float32"),
        ("addmm_beta_alpha", lambda lib, t: t.addmm_(make_tensor(lib, "float64", (3, 4), 1), make_tensor(lib, "float64", (4, 5), 2),
                                                     beta=0.5, alpha=-2.0),
         lambda t: 0.5 * t - 2 * values("float64", (3, 4), 1) @ values("float64", (4, 5), 2), "float64"),
        ("scatter_src", lambda lib, t: t.scatter_(1, mk(lib, idx), make_tensor(lib, "float32", (3, 2), 4)),
         lambda t: ref_scatter(t, 1, idx, values("float32", (3, 2), 4).astype(float)), "float32"),
        ("scatter_value", lambda lib, t: t.scatter_(1, mk(lib, idx), -4.0),
         lambda t: ref_scatter(t, 1, idx, -4.0), "float32"),
        ("scatter_add_", lambda lib, t: t.scatter_add_(1, mk(lib, dup), make_tensor(lib, "int64", (3, 4), 5)),
         lambda t: ref_scatter_add(t, 1, dup, values("int64", (3, 4), 5)), "int64"),
        ("scatter_reduce_", lambda lib, t: t.scatter_reduce_(1, mk(lib, dup), make_tensor(lib, "float32", (3, 4), 6), "amax",
                                                            include_self=False),
         lambda t: ref_scatter_reduce(t, 1, dup, values("float32", (3, 4), 6).astype(float), "amax", False), "float32"),
        ("scatter_multiply", lambda lib, t: t.scatter_(1, mk(lib, dup), make_tensor(lib, "float64", (3, 4), 7),
                                                       reduce="multiply"),
         lambda t: ref_scatter_reduce(t, 1, dup, values("float64", (3, 4), 7), "prod"), "float64"),
        ("scatter_value_add", lambda lib, t: t.scatter_(1, mk(lib, dup), 2, reduce="add"),
         lambda t: ref_scatter_reduce(t, 1, dup, np.full((3, 4), 2), "sum"), "int64"),
        ("index_reduce_", lambda lib, t: t.index_reduce_(1, mk(lib, [4, 0, 4]), make_tensor(lib, "float64", (3, 3), 8),
                                                        "mean"),
         lambda t: ref_index_reduce(t, 1, np.array([4, 0, 4]), values("float64", (3, 3), 8), "mean"), "float64"),
        ("masked_fill_scalar", lambda lib, t: t.masked_fill_(Arr(mask, "bool").make(lib), 2.5),
         lambda t: np.where(mask, 2.5, t), "float32"),
        ("masked_fill_broadcast", lambda lib, t: t.masked_fill_(Arr(mask[0], "bool").make(lib), 9),
         lambda t: np.where(mask[0], 9, t), "int64"),
        ("masked_fill_tensor", lambda lib, t: t.masked_fill_(Arr(mask, "bool").make(lib), lib.tensor(-1.5)),
         lambda t: np.where(mask, -1.5, t), "float64"),
        ("index_put_", lambda lib, t: t.index_put_((mk(lib, [2, 0]), mk(lib, [1, 4])), make_tensor(lib, "float32", (2,), 6)),
         lambda t: _np_put(t, ([2, 0], [1, 4]), values("float32", (2,), 6)), "float32"),
        ("index_put_rows", lambda lib, t: t.index_put_((mk(lib, [1]),), make_tensor(lib, "float32", (5,), 7)),
         lambda t: _np_put(t, ([1],), values("float32", (5,), 7)), "float32"),
        ("index_put_accumulate", lambda lib, t: t.index_put_((mk(lib, [0, 0, 2]), mk(lib, [1, 1, 3])),
                                                              make_tensor(lib, "int64", (3,), 8), accumulate=True),
         lambda t: _np_put(t, ([0, 0, 2], [1, 1, 3]), values("int64", (3,), 8), add=True), "int64"),
        ("index_put_mask", lambda lib, t: t.index_put_((Arr(mask, "bool").make(lib),), lib.tensor(0.25)),
         lambda t: np.where(mask, 0.25, t), "float32"),
        ("index_put_function", lambda lib, t: lib.index_put_(t, (mk(lib, [2]),), make_tensor(lib, "float64", (1, 5), 9)),
         lambda t: _np_put(t, ([2],), values("float64", (1, 5), 9)), "float64"),
        ("nan_to_num_", lambda lib, t: t.div_(0.0).nan_to_num_(nan=1.0, posinf=2.0, neginf=-2.0),
         lambda t: np.nan_to_num(np.divide(t, 0.0), nan=1.0, posinf=2.0, neginf=-2.0), "float32"),
        ("nan_to_num_function", lambda lib, t: lib.nan_to_num_(t, nan=1.0), lambda t: t, "float64"),
        ("put_", lambda lib, t: t.put_(mk(lib, [0, -1, 7]), make_tensor(lib, "float32", (3,), 11)),
         lambda t: ref_put(t, [0, -1, 7], values("float32", (3,), 11)), "float32"),
        ("put_accumulate", lambda lib, t: t.put_(mk(lib, [2, 2]), make_tensor(lib, "int64", (2,), 12), accumulate=True),
         lambda t: ref_put(t, [2, 2], values("int64", (2,), 12), accumulate=True), "int64"),
        ("index_copy_", lambda lib, t: t.index_copy_(1, mk(lib, [4, 0]), make_tensor(lib, "float32", (3, 2), 10)),
         lambda t: ref_index_copy(t, 1, [4, 0], values("float32", (3, 2), 10)), "float32"),
        ("index_fill_scalar", lambda lib, t: t.index_fill_(0, mk(lib, [2, 0]), -7),
         lambda t: ref_index_fill(t, 0, [2, 0], -7), "int64"),
        ("index_fill_tensor", lambda lib, t: t.index_fill_(1, mk(lib, [3]), lib.tensor(0.5)),
         lambda t: ref_index_fill(t, 1, [3], 0.5), "float32"),
        ("addbmm_", lambda lib, t: t.addbmm_(make_tensor(lib, "float64", (2, 3, 4), 1), make_tensor(lib, "float64", (2, 4, 5), 2),
                                             alpha=0.5),
         lambda t: t + 0.5 * (values("float64", (2, 3, 4), 1) @ values("float64", (2, 4, 5), 2)).sum(0), "float64"),
    ]


def _np_put(t, idx, v, add=False):
    t = t.copy()
    if add:
        np.add.at(t, tuple(np.asarray(i) for i in idx), v)
    else:
        t[tuple(np.asarray(i) for i in idx)] = v
    return t


INPLACE_CASES = _inplace_cases()


# ---- error inputs ------------------------------------------------------------------------------
# (id, call(lib), Ember's expected exception type, regex the message must match)


def _err_cases():
    def lt(lib, v, dtype=None):
        return lib.tensor(v) if dtype is None else lib.tensor(v, dtype=getattr(lib, dtype))

    def nn(lib, e, t):
        return e if lib is ember else t

    return [
        ("mm_shape_mismatch", lambda lib: lib.mm(lib.ones(2, 3), lib.ones(2, 3)), RuntimeError,
         r"shapes cannot be multiplied \(2x3 and 2x3\)"),
        ("mm_not_matrix", lambda lib: lib.mm(lib.ones(2, 3, 1), lib.ones(1, 3)), RuntimeError, r"matri|2D|2-D"),
        ("mm_out_wrong_dtype",
         lambda lib: lib.mm(lib.ones(2, 3), lib.ones(3, 2), out=lib.empty(2, 2, dtype=lib.float64)), RuntimeError,
         r"dtype"),
        ("mm_dtype_mismatch", lambda lib: lib.mm(lib.ones(2, 3), lib.ones(3, 2, dtype=lib.float64)), RuntimeError,
         r"same dtype"),
        ("bmm_batch_mismatch", lambda lib: lib.bmm(lib.ones(2, 3, 4), lib.ones(3, 4, 5)), RuntimeError,
         r"batch"),
        ("trace_not_a_matrix", lambda lib: lib.trace(lib.ones(2, 3, 4)), RuntimeError,
         r"trace: expected a matrix, but got tensor with dim 3"),
        ("trace_bool", lambda lib: lib.trace(lib.ones(2, 2, dtype=lib.bool)), NotImplementedError,
         r"\"trace\" not implemented for 'Bool'"),
        ("mv_size_mismatch", lambda lib: lib.mv(lib.ones(2, 3), lib.ones(4)), RuntimeError, r"size mismatch"),
        ("dot_size_mismatch", lambda lib: lib.dot(lib.ones(3), lib.ones(4)), RuntimeError, r"inconsistent|size"),
        ("matmul_0d", lambda lib: lib.matmul(lib.tensor(1.0), lib.ones(2)), RuntimeError, r"at least 1D.*0D"),
        ("matmul_0d_right", lambda lib: lib.matmul(lib.ones(2, 2), lib.tensor(1.0)), RuntimeError, r"at least 1D"),
        ("matmul_batch_mismatch", lambda lib: lib.matmul(lib.ones(2, 3, 4), lib.ones(3, 4, 5)), RuntimeError,
         r"size|match|broadcast"),
        ("cat_different_ranks", lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 3, 1)]), RuntimeError,
         r"same number of dimensions"),
        ("cat_size_mismatch", lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 4)]), RuntimeError,
         r"Sizes of tensors must match except in dimension 0"),
        ("cat_0d", lambda lib: lib.cat([lib.tensor(1.0), lib.tensor(2.0)]), RuntimeError, r"zero-dimensional"),
        pytest.param(("cat_empty_list", lambda lib: lib.cat([]), ValueError, r"non-empty"), id="cat_empty_list"),
        ("cat_dim_out_of_range", lambda lib: lib.cat([lib.ones(2, 3)], 2), IndexError, r"[Dd]imension out of range"),
        ("stack_size_mismatch", lambda lib: lib.stack([lib.ones(2, 3), lib.ones(3, 2)]), RuntimeError,
         r"equal size"),
        ("split_with_sizes_bad_sum", lambda lib: lib.split_with_sizes(lib.ones(5), [2, 2]), RuntimeError,
         r"sum exactly to 5"),
        ("index_select_out_of_range", lambda lib: lib.index_select(lib.ones(3, 2), 0, lt(lib, [0, 3])), IndexError,
         r"out of (range|bounds)"),
        pytest.param(("index_select_negative", lambda lib: lib.index_select(lib.ones(3, 2), 0, lt(lib, [-1])),
                      IndexError, r"out of (range|bounds)"), id="index_select_negative"),
        pytest.param(("index_select_0d_self_two_indices",
                      lambda lib: lib.index_select(lib.tensor(5.0), 0, lt(lib, [0, 0])), RuntimeError,
                      r"[Ss]calar|only 1 value"), id="index_select_0d_self_two_indices"),
        ("index_select_float_index", lambda lib: lib.index_select(lib.ones(3), 0, lt(lib, [0.0])), RuntimeError,
         r"int64|[Ll]ong|[Ii]nt"),
        pytest.param(("gather_out_of_range", lambda lib: lib.gather(lib.ones(3), 0, lt(lib, [3])), RuntimeError,
                      r"index 3 is out of bounds for dimension 0 with size 3"), id="gather_out_of_range"),
        pytest.param(("gather_negative", lambda lib: lib.gather(lib.ones(3), 0, lt(lib, [-1])), RuntimeError,
                      r"out of bounds"), id="gather_negative"),
        ("gather_rank_mismatch", lambda lib: lib.gather(lib.ones(3, 2), 0, lt(lib, [0])), RuntimeError,
         r"same number of dimensions"),
        ("getitem_out_of_range", lambda lib: lib.ones(3, 2)[lt(lib, [0, 3])], IndexError,
         r"index 3 is out of bounds for dimension 0 with size 3"),
        ("getitem_list_negative_out_of_range", lambda lib: lib.ones(3, 2)[[-4]], IndexError,
         r"index -4 is out of bounds"),
        ("getitem_second_dim_out_of_range", lambda lib: lib.ones(3, 2)[:, [2]], IndexError,
         r"out of bounds for dimension 1 with size 2"),
        ("getitem_int_out_of_range", lambda lib: lib.ones(3, 2)[3], IndexError, r"out of (range|bounds)"),
        ("getitem_mask_shape", lambda lib: lib.ones(3, 2)[lt(lib, [True, False])], IndexError, r"shape of the mask"),
        ("getitem_too_many", lambda lib: lib.ones(3)[[0], [0]], IndexError, r"too many indices"),
        ("getitem_float_index", lambda lib: lib.ones(3)[lt(lib, [0.5])], IndexError, r"tensors used as indices"),
        ("setitem_value_shape_mismatch", lambda lib: lib.ones(3, 2).__setitem__([0, 1], lib.ones(3, 2)),
         RuntimeError, r"shape|size"),
        ("index_put_value_shape_mismatch", lambda lib: lib.ones(3).index_put_((lt(lib, [0, 1]),), lib.ones(3)),
         RuntimeError, r"shape|size"),
        ("setitem_out_of_range", lambda lib: lib.ones(3, 2).__setitem__(lt(lib, [5]), 1.0), IndexError,
         r"out of bounds"),
        pytest.param(("scatter_index_out_of_range", lambda lib: lib.scatter(lib.zeros(3), 0, lt(lib, [3]), lib.ones(1)),
                      RuntimeError, r"out of bounds"), id="scatter_index_out_of_range"),
        pytest.param(("scatter_index_larger_than_src",
                      lambda lib: lib.scatter(lib.zeros(4, 2), 0, lib.zeros(3, 2, dtype=lib.int64), lib.ones(2, 2)),
                      RuntimeError, r"src"), id="scatter_index_larger_than_src"),
        pytest.param(("scatter_dtype_mismatch",
                      lambda lib: lib.scatter(lib.zeros(3), 0, lt(lib, [0]), lib.ones(1, dtype=lib.float64)),
                      RuntimeError, r"dtype"), id="scatter_dtype_mismatch"),
        ("masked_fill_non_bool_mask", lambda lib: lib.masked_fill(lib.ones(3), lt(lib, [1, 0, 1]), 0.0),
         RuntimeError, r"boolean"),
        ("masked_fill_value_not_0d", lambda lib: lib.masked_fill(lib.ones(3), lt(lib, [True, False, True]),
                                                                 lib.ones(2)), RuntimeError, r"0-dim"),
        ("masked_fill_inplace_bad_broadcast",
         lambda lib: lib.ones(3).masked_fill_(lib.tensor([[True, False, True]] * 2), 0.0), RuntimeError,
         r"broadcast|shape"),
        ("sort_complex", lambda lib: lib.sort(lib.ones(3, dtype=lib.complex64)), RuntimeError, r"[Cc]omplex"),
        pytest.param(("topk_k_too_large", lambda lib: lib.topk(lib.ones(3), 4), RuntimeError, r"k out of range"),
                     id="topk_k_too_large"),
        ("mean_int", lambda lib: lib.mean(lt(lib, [1, 2])), RuntimeError,
         r"mean\(\): could not infer output dtype.*Long"),
        ("mean_int_dim", lambda lib: lib.mean(lt(lib, [[1, 2]]), [0]), RuntimeError, r"could not infer output dtype"),
        ("var_int", lambda lib: lib.var(lt(lib, [1, 2])), RuntimeError, r"floating point"),
        ("norm_int", lambda lib: lib.norm(lt(lib, [1, 2])), RuntimeError, r"floating point.*Long"),
        ("sum_repeated_dim", lambda lib: lib.sum(lib.ones(2, 3), [0, -2]), RuntimeError, r"multiple times"),
        ("sum_dim_out_of_range", lambda lib: lib.sum(lib.ones(2, 3), [2]), IndexError, r"[Dd]imension out of range"),
        ("max_empty_no_dim", lambda lib: lib.max(lib.ones(0)), RuntimeError, r"numel\(\) == 0"),
        ("amax_empty_dim", lambda lib: lib.amax(lib.ones(0, 3), [0]), IndexError, r"non-zero size"),
        ("argmax_empty", lambda lib: lib.argmax(lib.ones(0, 3)), IndexError, r"reduction dim"),
        pytest.param(("max_complex", lambda lib: lib.max(lib.ones(2, dtype=lib.complex64)), NotImplementedError,
                      r"[Cc]omplex"), id="max_complex"),
        pytest.param(("cumsum__dtype_mismatch", lambda lib: lib.ones(3).cumsum_(0, dtype=lib.float64), RuntimeError,
                      r"dtype"), id="cumsum__dtype_mismatch"),
        pytest.param(("softmax_int_no_dtype", lambda lib: lib.softmax(lt(lib, [1, 2, 3]), 0), NotImplementedError,
                      r"not implemented for 'Long'"), id="softmax_int_no_dtype"),
        pytest.param(("log_softmax_int_no_dtype", lambda lib: lib.log_softmax(lt(lib, [1, 2, 3]), 0),
                      NotImplementedError, r"not implemented for 'Long'"), id="log_softmax_int_no_dtype"),
        ("nll_loss_target_out_of_range",
         lambda lib: nn(lib, ember.nll_loss, getattr(F, "nll_loss", None) if torch else None)(
             lib.zeros(2, 3), lt(lib, [0, 3])), IndexError, r"[Tt]arget.*out of bounds"),
        ("nll_loss_target_negative",
         lambda lib: nn(lib, ember.nll_loss, getattr(F, "nll_loss", None) if torch else None)(
             lib.zeros(2, 3), lt(lib, [-1, 0])), IndexError, r"[Tt]arget.*out of bounds"),
        pytest.param(("nll_loss_batch_mismatch",
                      lambda lib: nn(lib, ember.nll_loss, getattr(F, "nll_loss", None) if torch else None)(
                          lib.zeros(2, 3), lt(lib, [0, 1, 2])), ValueError, r"batch_size"),
                     id="nll_loss_batch_mismatch"),
        ("cross_entropy_target_out_of_range",
         lambda lib: nn(lib, ember.cross_entropy_loss, getattr(F, "cross_entropy", None) if torch else None)(
             lib.zeros(2, 3), lt(lib, [0, 5])), IndexError, r"[Tt]arget.*out of bounds"),
        pytest.param(("embedding_out_of_range", lambda lib: lib.embedding(lib.ones(3, 2), lt(lib, [3])), IndexError,
                      r"out of (range|bounds)"), id="embedding_out_of_range"),
        pytest.param(("embedding_negative", lambda lib: lib.embedding(lib.ones(3, 2), lt(lib, [-1])), IndexError,
                      r"out of (range|bounds)"), id="embedding_negative"),
        ("layer_norm_shape", lambda lib: lib.layer_norm(lib.ones(2, 3), [4]), RuntimeError, r"normalized_shape"),
        ("conv2d_channel_mismatch", lambda lib: lib.conv2d(lib.ones(1, 3, 5, 5), lib.ones(2, 2, 3, 3)), RuntimeError,
         r"channels"),
        ("conv2d_kernel_too_large", lambda lib: lib.conv2d(lib.ones(1, 1, 2, 2), lib.ones(1, 1, 3, 3)), RuntimeError,
         r"[Kk]ernel size"),
        ("conv2d_dtype_mismatch", lambda lib: lib.conv2d(lib.ones(1, 1, 3, 3, dtype=lib.float64), lib.ones(1, 1, 2, 2)),
         RuntimeError, r"[Tt]ype|Double|Float"),
        ("avg_pool2d_divisor_zero",
         lambda lib: nn(lib, ember.avg_pool2d, getattr(F, "avg_pool2d", None) if torch else None)(
             lib.ones(1, 1, 4, 4), 2, divisor_override=0),
         RuntimeError, r"divisor must be not zero"),
        ("max_pool2d_padding_too_large", lambda lib: lib.max_pool2d(lib.ones(1, 1, 5, 5), 2, 2, 2), RuntimeError,
         r"pad should be at most half"),
        ("put_out_of_range", lambda lib: lib.zeros(4).put_(lib.tensor([4]), lib.ones(1)), IndexError,
         r"out of range: tried to access index 4 on a tensor of 4 elements"),
        ("put_negative_out_of_range", lambda lib: lib.zeros(4).put(lib.tensor([-5]), lib.ones(1)), IndexError,
         r"tried to access index -5 on a tensor of 4 elements"),
        ("put_int32_index", lambda lib: lib.zeros(4).put_(lib.tensor([1], dtype=lib.int32), lib.ones(1)),
         RuntimeError, r"put_\(\): Expected a long tensor for index, but got Int"),
        ("put_numel_mismatch", lambda lib: lib.zeros(4).put_(lib.tensor([1, 2]), lib.ones(1)), IndexError,
         r"put_\(\): Expected source and index to have the same number of elements"),
        ("put_dtype_mismatch", lambda lib: lib.zeros(4).put_(lib.tensor([1]), lib.ones(1, dtype=lib.float64)),
         RuntimeError, r"put_\(\): self and source expected to have the same dtype"),
        ("put_into_empty", lambda lib: lib.zeros(0).put_(lib.tensor([0]), lib.ones(1)), IndexError,
         r"put_\(\): Tried to put elements into an empty tensor"),
        ("put_expanded", lambda lib: lib.zeros(1).expand(3).put_(lib.tensor([0]), lib.ones(1)), RuntimeError,
         r"more than one element of the written-to tensor refers to a single memory location"),
        ("frexp_int", lambda lib: lib.frexp(lib.tensor([1])), RuntimeError, r"frexp\(\) only supports floating-point"),
        ("frexp_out_exponent_dtype", lambda lib: lib.frexp(lib.ones(1), out=(lib.empty(1), lib.empty(1))), RuntimeError,
         r"frexp\(\) expects exponent to have int dtype"),
        ("frexp_out_mantissa_dtype",
         lambda lib: lib.frexp(lib.ones(1), out=(lib.empty(1, dtype=lib.float64), lib.empty(1, dtype=lib.int32))),
         RuntimeError, r"frexp\(\) expects mantissa to have dtype"),
        ("index_copy_out_of_range", lambda lib: lib.zeros(3).index_copy(0, lib.tensor([3]), lib.ones(1)),
         IndexError, r"index_copy_\(\): index 3 is out of bounds for dimension 0 with size 3"),
        ("index_copy_source_shape", lambda lib: lib.zeros(3, 2).index_copy(0, lib.tensor([1]), lib.ones(1, 3)),
         RuntimeError, r"index_copy_\(\).*dimension 1"),
        ("index_fill_2d_value", lambda lib: lib.zeros(3).index_fill(0, lib.tensor([1]), lib.ones(2)), RuntimeError,
         r"index_fill_\(\): .*0-dimensional value tensor"),
        ("take_along_dim_ranks", lambda lib: lib.take_along_dim(lib.ones(2, 3), lib.tensor([0]), 1), RuntimeError,
         r"take_along_dim\(\): input and indices should have the same number of dimensions"),
        ("take_along_dim_float_index", lambda lib: lib.take_along_dim(lib.ones(2), lib.ones(1), 0), RuntimeError,
         r"take_along_dim\(\): dtype of indices should be Long"),
        ("diff_0d", lambda lib: lib.diff(lib.tensor(1.0)), RuntimeError, r"diff expects input to be at least one-dim"),
        ("diff_negative_order", lambda lib: lib.diff(lib.ones(3), n=-1), RuntimeError, r"order must be non-negative"),
        ("addmv_size_mismatch", lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 3), lib.ones(4)), RuntimeError,
         r"size mismatch"),
        ("baddbmm_batches", lambda lib: lib.baddbmm(lib.ones(2, 2), lib.ones(2, 2, 3), lib.ones(3, 3, 2)),
         RuntimeError, r"batch1 and batch2 must have same number of batches"),
        ("baddbmm_not_3d", lambda lib: lib.baddbmm(lib.ones(2, 2), lib.ones(2, 3), lib.ones(3, 2)), RuntimeError,
         r"batch1 must be a 3D tensor"),
        ("cdist_columns", lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 4)), RuntimeError,
         r"X1 and X2 must have the same number of columns. X1: 3 X2: 4"),
        ("cdist_integers", lambda lib: lib.cdist(lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 3, dtype=lib.int64)),
         RuntimeError, r"cdist only supports floating-point dtypes"),
        ("cdist_negative_p", lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3), p=-1.0), RuntimeError,
         r"cdist only supports non-negative p values"),
        ("searchsorted_shapes", lambda lib: lib.searchsorted(lib.ones(2, 3), lib.ones(3, 1)), RuntimeError,
         r"searchsorted\(\): boundaries tensor should be 1 dimension or the first N-1 dimensions"),
        ("searchsorted_opposite_sides", lambda lib: lib.searchsorted(lib.ones(3), lib.ones(1), right=True,
                                                                   side="left"), RuntimeError,
         r"side and right can't be set to opposites"),
        ("searchsorted_bad_side", lambda lib: lib.searchsorted(lib.ones(3), lib.ones(1), side="middle"), RuntimeError,
         r"side can only be 'left' or 'right'"),
        ("searchsorted_sorter_range", lambda lib: lib.searchsorted(lib.ones(3), lib.ones(1), sorter=lib.tensor([0, 1, 5])),
         RuntimeError, r"sorter index out of range"),
        ("bucketize_2d_boundaries", lambda lib: lib.bucketize(lib.ones(3), lib.ones(2, 2)), RuntimeError,
         r"bucketize.*boundaries tensor must be 1 dimension"),
        ("bincount_negative", lambda lib: lib.bincount(lib.tensor([1, -1])), RuntimeError,
         r"bincount only supports 1-d non-negative integral inputs"),
        ("bincount_2d", lambda lib: lib.bincount(lib.tensor([[1]])), RuntimeError,
         r"bincount only supports 1-d non-negative integral inputs"),
        ("bincount_weights_length", lambda lib: lib.bincount(lib.tensor([1, 2]), lib.ones(3)), RuntimeError,
         r"weights should be 1-d and have the same length as input"),
        ("histc_integers", lambda lib: lib.histc(lib.tensor([1, 2])), NotImplementedError, r"histc.*'Long'"),
        ("histc_no_bins", lambda lib: lib.histc(lib.ones(3), bins=0), RuntimeError, r"bins must be > 0"),
        ("histc_min_above_max", lambda lib: lib.histc(lib.ones(3), min=2, max=1), RuntimeError,
         r"max must be larger than min"),
        ("mode_empty_dim", lambda lib: lib.mode(lib.ones(2, 0), 1), IndexError,
         r"mode\(\): Expected reduction dim 1 to have non-zero size"),
        ("tril_indices_negative_row", lambda lib: lib.tril_indices(-1, 3), RuntimeError,
         r"tril_indices: row must be non-negative"),
    ]


ERROR_INPUTS = _err_cases()
