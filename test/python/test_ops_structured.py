"""Structured operators (reductions, linear algebra, joining/indexing/sorting,
neural-network functions, convolution and pooling), tested over the table in
opdb/structured.py: Ember is compared with NumPy (values, shape) and with
torch when installed (values, result dtype, shape). Nothing is checked about
aliasing of view-returning ops.

Further tests below the table cover out= and in-place variants, advanced
indexing through ``t[...]``, sort stability, dropout statistics, batch_norm's
running statistics and error cases (exception type as in torch, message
naming the problem).
"""

import re
import warnings

import numpy as np
import pytest

import ember
from ember_testing import to_numpy, torch, unique_index

if torch is not None:
    import torch.nn.functional as F

from opdb.structured import *  # noqa: F401,F403  (the table and its sample helpers)


def op_cases():
    for op in OPS:
        for d in op.dtypes:
            for s in op.samples(d):
                marks = list(s.marks) + list(op.dtype_xfails.get(d, []))
                yield pytest.param(op, d, s, id=f"{op.name}-{d}-{s.desc}", marks=marks)


ALL_CASES = list(op_cases())


def run(op, lib, sample):
    args, kwargs = sample.materialize(lib)
    return op.call(lib, args, kwargs)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("op, d, sample", ALL_CASES)
def test_op(op, d, sample):
    """Values and shapes against NumPy; values, dtypes and shapes against torch."""
    result = run(op, ember, sample)
    for name in op.named:
        assert hasattr(result, name), f"result has no .{name}"
    scale = op.tol(d)
    if op.ref is not None and sample.ref:
        args = [build_ref(a) for a in sample.args]
        kwargs = {k: build_ref(v) for k, v in sample.kwargs.items()}
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = op.ref(*args, **kwargs)
        compare_ref(result, expected, scale)
    if torch is not None and sample.torch:
        compare_torch(result, run(op, torch, sample), scale)


def method_cases():
    for op in OPS:
        if not op.method:
            continue
        for s in representative_samples(op):
            if isinstance(s.args[0], Arr):
                yield pytest.param(op, s, id=f"{op.name}-{s.desc}")


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("op, sample", list(method_cases()))
def test_method(op, sample):
    """Tensor.<op>(...) is the function."""
    args, kwargs = sample.materialize(ember)
    expected = op.call(ember, args, kwargs)
    got = getattr(args[0], op.aten or op.name)(*args[1:], **kwargs)
    for a, b in zip(flatten(got), flatten(expected), strict=True):
        assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))


def test_table_covers_requested_operators():
    names = {op.aten or op.name for op in OPS}
    for required in ("sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "var", "std", "norm",
                     "logsumexp", "all", "any", "softmax", "log_softmax", "cumsum", "cumprod", "mm", "bmm", "addmm",
                     "mv", "dot", "matmul", "linear", "cat", "stack", "split", "chunk", "unbind", "index_select",
                     "gather", "scatter", "scatter_add", "masked_fill", "nonzero", "sort", "argsort", "topk",
                     "embedding", "dropout", "layer_norm", "batch_norm", "mse_loss", "l1_loss", "nll_loss",
                     "cross_entropy_loss", "conv2d", "max_pool2d", "avg_pool2d"):
        assert required in names, required


# ---- out= variants ---------------------------------------------------------------------
# Each: (id, call(lib, out), out dtype); call builds its inputs on `lib`. The
# out tensor starts with the wrong shape (to be resized) or the right one.


def _t(lib, d, shape, seed=0, view=None, kind="normal"):
    return A(d, shape, seed, kind, view).make(lib)


OUT_CASES = [
    ("sum_dims", lambda lib, out: lib.sum(_t(lib, "float32", (3, 4, 5)), [0, 2], out=out), "float32"),
    ("sum_keepdim", lambda lib, out: lib.sum(_t(lib, "float64", (3, 4)), [1], True, out=out), "float64"),
    ("sum_int_to_long", lambda lib, out: lib.sum(_t(lib, "int32", (3, 4)), [0], out=out), "int64"),
    ("mean_dim", lambda lib, out: lib.mean(_t(lib, "float32", (3, 4), view="T"), [0], out=out), "float32"),
    ("cumsum", lambda lib, out: lib.cumsum(_t(lib, "float32", (3, 4)), 1, out=out), "float32"),
    ("cumsum_int", lambda lib, out: lib.cumsum(_t(lib, "int64", (3, 4)), 0, out=out), "int64"),
    ("mm", lambda lib, out: lib.mm(_t(lib, "float32", (3, 4)), _t(lib, "float32", (4, 5), 1), out=out), "float32"),
    ("mm_transposed", lambda lib, out: lib.mm(_t(lib, "float64", (3, 4), view="T"),
                                              _t(lib, "float64", (4, 5), 1, view="T"), out=out), "float64"),
    ("bmm", lambda lib, out: lib.bmm(_t(lib, "float32", (2, 3, 4)), _t(lib, "float32", (2, 4, 5), 1), out=out),
     "float32"),
    ("addmm", lambda lib, out: lib.addmm(_t(lib, "float32", (5,)), _t(lib, "float32", (3, 4), 1),
                                         _t(lib, "float32", (4, 5), 2), beta=0.5, alpha=2.0, out=out), "float32"),
    ("addmm_int", lambda lib, out: lib.addmm(_t(lib, "int64", (3, 5)), _t(lib, "int64", (3, 4), 1),
                                             _t(lib, "int64", (4, 5), 2), out=out), "int64"),
    ("cat", lambda lib, out: lib.cat([_t(lib, "float32", (2, 3)), _t(lib, "float32", (1, 3), 1)], out=out),
     "float32"),
    ("cat_dim1", lambda lib, out: lib.cat([_t(lib, "int64", (2, 3)), _t(lib, "int64", (2, 1), 1)], 1, out=out),
     "int64"),
]


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("start", ["wrong_shape", "right_shape"])
@pytest.mark.parametrize("case", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_out(case, start):
    """out= returns the same `out` object, resized, holding the functional result."""
    _, call, d = case
    # The reference result: the same call into a fresh empty out.
    fresh = call(ember, ember.empty(0, dtype=getattr(ember, d)))
    shape = tuple(fresh.shape) if start == "right_shape" else (2, 7)
    out = ember.full(shape, 77, dtype=getattr(ember, d))
    got = call(ember, out)
    assert got is out
    assert tuple(out.shape) == tuple(fresh.shape)
    assert out.dtype == getattr(ember, d)
    if torch is not None:
        t_out = torch.full(shape, 77, dtype=getattr(torch, d))
        t_got = call(torch, t_out)
        assert t_got is t_out
        compare_torch(out, t_out)
    np.testing.assert_allclose(to_numpy(out), to_numpy(fresh), rtol=1e-6)


def test_out_noncontiguous_and_aliasing_self():
    """A transposed out of the right shape is written through; addmm's out may be self."""
    for lib in (ember, torch) if torch is not None else (ember,):
        a, b = _t(lib, "float32", (3, 4), 1), _t(lib, "float32", (4, 5), 2)
        base = lib.zeros(5, 3)
        out = base.t()
        assert lib.mm(a, b, out=out) is out
        np.testing.assert_allclose(np.asarray(base.numpy()).T, a.numpy().astype(float) @ b.numpy(), rtol=1e-5,
                                   atol=1e-5)
        s = _t(lib, "float32", (3, 5), 3)
        s0 = s.numpy().copy()
        assert lib.addmm(s, a, b, beta=0.5, out=s) is s
        np.testing.assert_allclose(s.numpy(), 0.5 * s0 + a.numpy().astype(float) @ b.numpy(), rtol=1e-5, atol=1e-5)


# ---- in-place variants -----------------------------------------------------------------


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
        ("addmm_", lambda lib, t: t.addmm_(_t(lib, "float32", (3, 4), 1), _t(lib, "float32", (4, 5), 2)),
         lambda t: t + values("float32", (3, 4), 1).astype(float) @ values("float32", (4, 5), 2).astype(float),
         "float32"),
        ("addmm_beta_alpha", lambda lib, t: t.addmm_(_t(lib, "float64", (3, 4), 1), _t(lib, "float64", (4, 5), 2),
                                                     beta=0.5, alpha=-2.0),
         lambda t: 0.5 * t - 2 * values("float64", (3, 4), 1) @ values("float64", (4, 5), 2), "float64"),
        ("scatter_src", lambda lib, t: t.scatter_(1, mk(lib, idx), _t(lib, "float32", (3, 2), 4)),
         lambda t: ref_scatter(t, 1, idx, values("float32", (3, 2), 4).astype(float)), "float32"),
        ("scatter_value", lambda lib, t: t.scatter_(1, mk(lib, idx), -4.0),
         lambda t: ref_scatter(t, 1, idx, -4.0), "float32"),
        ("scatter_add_", lambda lib, t: t.scatter_add_(1, mk(lib, dup), _t(lib, "int64", (3, 4), 5)),
         lambda t: ref_scatter_add(t, 1, dup, values("int64", (3, 4), 5)), "int64"),
        ("masked_fill_scalar", lambda lib, t: t.masked_fill_(Arr(mask, "bool").make(lib), 2.5),
         lambda t: np.where(mask, 2.5, t), "float32"),
        ("masked_fill_broadcast", lambda lib, t: t.masked_fill_(Arr(mask[0], "bool").make(lib), 9),
         lambda t: np.where(mask[0], 9, t), "int64"),
        ("masked_fill_tensor", lambda lib, t: t.masked_fill_(Arr(mask, "bool").make(lib), lib.tensor(-1.5)),
         lambda t: np.where(mask, -1.5, t), "float64"),
        ("index_put_", lambda lib, t: t.index_put_((mk(lib, [2, 0]), mk(lib, [1, 4])), _t(lib, "float32", (2,), 6)),
         lambda t: _np_put(t, ([2, 0], [1, 4]), values("float32", (2,), 6)), "float32"),
        ("index_put_rows", lambda lib, t: t.index_put_((mk(lib, [1]),), _t(lib, "float32", (5,), 7)),
         lambda t: _np_put(t, ([1],), values("float32", (5,), 7)), "float32"),
        ("index_put_accumulate", lambda lib, t: t.index_put_((mk(lib, [0, 0, 2]), mk(lib, [1, 1, 3])),
                                                              _t(lib, "int64", (3,), 8), accumulate=True),
         lambda t: _np_put(t, ([0, 0, 2], [1, 1, 3]), values("int64", (3,), 8), add=True), "int64"),
        ("index_put_mask", lambda lib, t: t.index_put_((Arr(mask, "bool").make(lib),), lib.tensor(0.25)),
         lambda t: np.where(mask, 0.25, t), "float32"),
        ("index_put_function", lambda lib, t: lib.index_put_(t, (mk(lib, [2]),), _t(lib, "float64", (1, 5), 9)),
         lambda t: _np_put(t, ([2],), values("float64", (1, 5), 9)), "float64"),
    ]


def _np_put(t, idx, v, add=False):
    t = t.copy()
    if add:
        np.add.at(t, tuple(np.asarray(i) for i in idx), v)
    else:
        t[tuple(np.asarray(i) for i in idx)] = v
    return t


INPLACE_CASES = _inplace_cases()


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("case", INPLACE_CASES, ids=[c[0] for c in INPLACE_CASES])
def test_inplace(case, layout):
    """In-place variants return self, keep its dtype and shape, write into its
    storage (also through a transposed view) and match NumPy and torch."""
    _, call, ref, d = case
    v = values(d, (3, 5), 11)

    def target(lib):
        if layout == "contiguous":
            base = Arr(v, d).make(lib)
            return base, base
        base = Arr(v.T.copy(), d).make(lib)  # (5, 3) storage; self is its (3, 5) transpose
        return base, base.t()

    base, t = target(ember)
    assert call(ember, t) is t
    assert t.dtype == getattr(ember, d) and tuple(t.shape) == (3, 5)
    with np.errstate(all="ignore"):
        expected = np.asarray(ref(Arr(v, d).ref())).astype(ref_dtype(d))
    written = to_numpy(base) if layout == "contiguous" else to_numpy(base).T
    assert_values(written, expected, d)
    if torch is not None:
        t_base, tt = target(torch)
        assert call(torch, tt) is tt
        compare_torch(t, tt)


# ---- advanced indexing through t[...] ------------------------------------------------------


class I:
    """An index tensor (int64) in an index expression."""

    def __init__(self, v, dtype="int64"):
        self.v = np.asarray(v)
        self.dtype = dtype


class M:
    """A bool mask tensor in an index expression."""

    def __init__(self, v):
        self.v = np.asarray(v, dtype=bool)


class N:
    """A NumPy array used as an index, on every module."""

    def __init__(self, v):
        self.v = np.asarray(v)


def index_for(expr, lib):
    def one(x):
        if isinstance(x, N):
            return x.v.copy()
        if isinstance(x, I):
            return Arr(x.v, x.dtype).make(lib) if lib is not np else x.v
        if isinstance(x, M):
            return Arr(x.v, "bool").make(lib) if lib is not np else x.v
        return x

    if isinstance(expr, tuple):
        return tuple(one(x) for x in expr)
    return one(expr)


_mask34 = np.random.default_rng(3).integers(0, 2, (3, 4)).astype(bool)
_mask4 = np.array([True, False, True, True])

ZERO_D_BOOL = "a 0-d bool tensor index is ignored (x[tensor(True)] keeps x's shape); torch adds a dim of size 1"
NUMPY_INDEX = ("a NumPy array index is taken for an integer (it has __index__): x[np.array([2, 0])] raises "
               "TypeError 'only integer scalar arrays can be converted to a scalar index'; torch indexes with it")
EMPTY_REST = ("advanced indexing a tensor whose non-indexed dims hold a 0 raises \"shape '[-1, 0, 5]' is invalid "
              "for input of size 0\" (index() reshapes to [-1, *rest]); torch returns an empty result")

INDEX_CASES = [
    ("int_tensor", I([2, 0, 1])),
    ("list", [0, 2]),
    ("list_negative", [-1, -3, 0]),
    ("2d_index_tensor", I([[0, 1], [2, 2]])),
    ("int32_index", I([1, 2], "int32")),
    ("bool_mask_full", M(_mask34)),
    ("bool_mask_first_dim", M([True, False, True])),
    ("bool_list", [True, False, True]),
    ("slice_then_mask", (slice(None), M(_mask4))),
    ("two_tensors_adjacent", (I([0, 2]), I([1, 3]))),
    ("two_lists", ([0, 2, 1], [3, 3, 0])),
    ("broadcast_index_tensors", (I([[0], [2]]), I([1, 3, 0]))),
    ("slice_then_tensor", (slice(None), I([3, 0]))),
    ("slice_tensor_slice", (slice(0, 2), I([[1, 0]]), slice(None))),
    ("adjacent_after_slice", (slice(None), I([0, 2]), I([1, 4]))),
    ("non_adjacent", (I([0, 2]), slice(None), I([1, 4]))),
    ("non_adjacent_broadcast", (I([[0], [1]]), slice(1, 3), I([0, 4, 2]))),
    ("int_and_tensor_adjacent", (1, I([0, 3]))),
    ("int_separates_tensors", (I([0, 2]), 1, I([1, 4]))),
    ("tensor_then_int", (I([0, 2]), slice(None), 3)),
    ("ellipsis_tensor", (Ellipsis, I([4, 0]))),
    ("tensor_ellipsis", (I([2, 1]), Ellipsis)),
    ("none_and_tensor", (None, I([0, 1]))),
    ("tensor_none_tensor", (I([0, 1]), None, I([2, 3]))),
    ("mask_and_tensor", (M([True, False, True]), I([1, 3]))),
    ("mask_then_slice_step", (M(_mask34), slice(None, None, 2))),
    ("empty_index", I(np.zeros(0, np.int64))),
    ("empty_mask", M(np.zeros(3, bool))),
    ("negative_everywhere", (I([-1]), I([-4, -1]), I([[-5], [0]]))),
    ("zero_d_int_tensor", I(1)),
    ("zero_d_int_tensor_pair", (I(1), I(2))),
]
# numpy has no meaning for a 0-d bool tensor index other than torch's; both add a dim.
INDEX_CASES_EXTRA = [
    pytest.param(("0d_bool_tensor", M(True)), id="0d_bool_tensor"),
    pytest.param(("0d_bool_tensor_false", M(False)), id="0d_bool_tensor_false"),
    pytest.param(("python_true", True), id="python_true"),
    pytest.param(("python_false_slice", (False, slice(None), 1)), id="python_false_slice"),
    pytest.param(("numpy_int_array", N([2, 0])), id="numpy_int_array"),
    pytest.param(("numpy_bool_array", (slice(None), N(_mask4))), id="numpy_bool_array"),
]


def _index_params():
    params = [pytest.param(c, id=c[0]) for c in INDEX_CASES] + INDEX_CASES_EXTRA
    params.append(pytest.param(("empty_rest_dim", I([0, 2])), id="empty_rest_dim"))
    return params


def _base(lib, name, layout="contiguous"):
    v = np.arange(60, dtype=np.float32).reshape(3, 4, 5) - 30
    if name == "empty_rest_dim":
        v = np.zeros((3, 0, 5), np.float32)
    arr = Arr(v, "float32", view="T" if layout == "transposed" else None)
    return arr.make(lib) if lib is not np else v.copy()


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("case", _index_params())
def test_getitem(case, layout):
    name, expr = case
    x = _base(ember, name, layout)
    got = x[index_for(expr, ember)]
    expected = _base(np, name)[index_for(expr, np)]
    assert_values(to_numpy(got), expected, "float32")
    if torch is not None:
        compare_torch(got, _base(torch, name, layout)[index_for(expr, torch)])


def _setitem_params():
    for p in _index_params():
        case = p.values[0]
        for kind in ("tensor", "scalar", "broadcast"):
            yield pytest.param(case, kind, id=f"{kind}-{case[0]}")


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("case, value_kind", list(_setitem_params()))
def test_setitem(case, value_kind, layout):
    name, expr = case
    target_shape = _base(np, name)[index_for(expr, np)].shape
    if value_kind == "tensor":
        v = np.arange(int(np.prod(target_shape)), dtype=np.float32).reshape(target_shape) + 100
    elif value_kind == "broadcast":
        v = np.arange(target_shape[-1] if target_shape else 1, dtype=np.float32) + 200
    else:
        v = 7.5

    def value(lib):
        return v if not isinstance(v, np.ndarray) else Arr(v, "float32").make(lib)

    x = _base(ember, name, layout)
    x[index_for(expr, ember)] = value(ember)
    expected = _base(np, name)
    expected[index_for(expr, np)] = v
    assert_values(to_numpy(x), expected, "float32")
    if torch is not None:
        t = _base(torch, name, layout)
        t[index_for(expr, torch)] = value(torch)
        compare_torch(x, t)


SETITEM_LEADING_ONES = ("t[adv] = v rejects a value with extra leading size-1 dims (expand error); torch (and basic "
                        "indexing in Ember) drop them")


@pytest.mark.parametrize("index", [
    pytest.param(lambda lib: [0, 2], id="advanced"),
    pytest.param(lambda lib: slice(0, 2), id="basic"),
])
def test_setitem_value_with_leading_ones(index):
    x = ember.zeros(3, 4)
    x[index(ember)] = ember.ones(1, 2, 4)
    assert to_numpy(x).sum() == 8


def test_setitem_noncontiguous_and_dtype_conversion():
    v = values("float64", (3, 4), 1)
    x = Arr(v, "float64", view="T").make(ember)  # a (3, 4) view of transposed storage
    x[[2, 0], 1:3] = ember.tensor([[1, 2], [3, 4]], dtype=ember.int64)
    x[ember.tensor([True, False, True]), 0] = 5
    e = v.copy()
    e[[2, 0], 1:3] = [[1, 2], [3, 4]]
    e[np.array([True, False, True]), 0] = 5
    assert x.dtype == ember.float64
    assert_values(to_numpy(x), e, "float64")


# ---- sort stability, argsort, topk details ---------------------------------------------------


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("d", ["int64", "float32", "bfloat16"])
def test_sort_is_stable_on_long_tied_rows(d, descending):
    v = values(d, (3, 300), 0, "ties")
    r = ember.sort(Arr(v, d).make(ember), descending=descending)
    vals, idx = ref_sort(v.astype(np.float64), -1, descending)
    np.testing.assert_array_equal(to_numpy(r.indices), idx)
    np.testing.assert_array_equal(to_numpy(r.values).astype(np.float64), vals)
    # numpy's stable argsort agrees for ascending order.
    if not descending:
        np.testing.assert_array_equal(to_numpy(r.indices), np.argsort(v, axis=-1, kind="stable"))


def test_sort_signed_zero_ties_keep_order():
    v = np.array([0.0, -0.0, 1.0, -0.0, 0.0], np.float32)
    r = ember.sort(ember.from_numpy(v))
    np.testing.assert_array_equal(to_numpy(r.indices), [0, 1, 3, 4, 2])


def test_topk_unsorted_flag_returns_the_k_largest():
    v = distinct("float32", (4, 9), 3)
    r = ember.topk(v.make(ember), 3, sorted=False)
    got = np.sort(to_numpy(r.values), axis=-1)
    np.testing.assert_array_equal(got, np.sort(v.values, axis=-1)[:, -3:])
    np.testing.assert_array_equal(np.take_along_axis(v.values, to_numpy(r.indices), -1), to_numpy(r.values))


# ---- dropout --------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_dropout_train_statistics(p):
    ember.manual_seed(1234)
    x = ember.ones(500, 200)
    y = ember.dropout(x, p, True)
    got = to_numpy(y)
    assert y.dtype == ember.float32 and tuple(y.shape) == (500, 200)
    zeros = np.mean(got == 0)
    assert abs(zeros - p) < 0.01, zeros  # 100k draws: sigma < 0.0016
    kept = got[got != 0]
    np.testing.assert_allclose(kept, 1 / (1 - p), rtol=1e-6)


def test_dropout_train_scales_values_and_is_seeded():
    v = values("float64", (100, 50), 0)
    x = ember.from_numpy(v.copy())
    ember.manual_seed(7)
    a = to_numpy(ember.dropout(x, 0.3, True))
    ember.manual_seed(7)
    b = to_numpy(ember.dropout(x, 0.3, True))
    np.testing.assert_array_equal(a, b)
    kept = a != 0
    np.testing.assert_allclose(a[kept], v[kept] / 0.7, rtol=1e-12)


def test_dropout_p1_train_is_zero_and_eval_identity():
    x = ember.from_numpy(values("float32", (3, 4), 0))
    np.testing.assert_array_equal(to_numpy(ember.dropout(x, 1.0, True)), 0)
    np.testing.assert_array_equal(to_numpy(ember.dropout(x, 1.0, False)), to_numpy(x))


# ---- batch_norm running statistics ------------------------------------------------------------


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 4)], ids=["2d", "3d", "4d"])
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("d", ["float32", "float64"])
def test_batch_norm_training_updates_running_stats(shape, affine, d):
    x = A(d, shape, 0)
    w, b = (A(d, (3,), 1), A(d, (3,), 2)) if affine else (None, None)
    rm0 = values(d, (3,), 3)
    rv0 = values(d, (3,), 4, "pos")
    momentum, eps = 0.3, 1e-5

    def run_lib(lib):
        rm, rv = Arr(rm0, d).make(lib), Arr(rv0, d).make(lib)
        out = lib.batch_norm(x.make(lib), build(w, lib), build(b, lib), rm, rv, True, momentum, eps, False)
        # Eval mode afterwards uses the updated statistics.
        ev = lib.batch_norm(x.make(lib), build(w, lib), build(b, lib), rm, rv, False, momentum, eps, False)
        return out, rm, rv, ev

    out, rm, rv, ev = run_lib(ember)
    xr = x.ref()
    axes = tuple(i for i in range(len(shape)) if i != 1)
    n = xr.size // 3
    mu, var = xr.mean(axis=axes), xr.var(axis=axes)
    cs = [1, -1] + [1] * (len(shape) - 2)
    exp_out = (xr - mu.reshape(cs)) / np.sqrt(var.reshape(cs) + eps)
    if affine:
        exp_out = exp_out * w.ref().reshape(cs) + b.ref().reshape(cs)
    exp_rm = (1 - momentum) * rm0 + momentum * mu
    exp_rv = (1 - momentum) * rv0 + momentum * var * n / (n - 1)
    assert_values(to_numpy(out), exp_out, d, 2.0)
    assert_values(to_numpy(rm), exp_rm, d)
    assert_values(to_numpy(rv), exp_rv, d)
    assert_values(to_numpy(ev), ref_batch_norm_eval(xr, build_ref(w), build_ref(b), exp_rm, exp_rv, False, 0, eps,
                                                    False), d, 2.0)
    if torch is not None:
        t_out, t_rm, t_rv, t_ev = run_lib(torch)
        compare_torch(out, t_out, 2.0)
        compare_torch(rm, t_rm)
        compare_torch(rv, t_rv)
        compare_torch(ev, t_ev, 2.0)


def test_batch_norm_training_without_running_stats():
    x = A("float32", (5, 2, 3), 0)
    out = ember.batch_norm(x.make(ember), None, None, None, None, True, 0.1, 1e-5, False)
    xr = x.ref()
    exp = (xr - xr.mean(axis=(0, 2), keepdims=True)) / np.sqrt(xr.var(axis=(0, 2), keepdims=True) + 1e-5)
    assert_values(to_numpy(out), exp, "float32")
    if torch is not None:
        compare_torch(out, torch.batch_norm(x.make(torch), None, None, None, None, True, 0.1, 1e-5, False))


# ---- convolution / pooling dtypes -----------------------------------------------------------


@pytest.mark.parametrize("d", ["int64", "int32"])
def test_conv_avg_pool_integer_dtypes_not_implemented(d):
    # Deliberate difference: Ember's conv2d and avg_pool2d take floating
    # dtypes only (torch 2.13's CPU kernels also run integers); they raise
    # NotImplementedError naming the dtype. max_pool2d runs integers.
    x = ember.ones(1, 1, 4, 4, dtype=getattr(ember, d))
    with pytest.raises(NotImplementedError, match="not implemented for"):
        ember.conv2d(x, ember.ones(1, 1, 2, 2, dtype=getattr(ember, d)))
    with pytest.raises(NotImplementedError, match="not implemented for"):
        ember.avg_pool2d(x, 2)


# ---- error cases ------------------------------------------------------------------------------
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
    ]


ERR_CASES = [c if hasattr(c, "marks") else pytest.param(c, id=c[0]) for c in _err_cases()]


def category(etype):
    """The builtin exception an error is (NotImplementedError before RuntimeError)."""
    return next((t for t in (NotImplementedError, IndexError, ValueError, TypeError, RuntimeError)
                 if issubclass(etype, t)), etype)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", ERR_CASES)
def test_error(case):
    """The exception type is torch's for the same call; the message names the problem."""
    _, call, etype, pattern = case
    if torch is not None:
        with pytest.raises(Exception) as t_info:
            call(torch)
        etype = category(type(t_info.value))
    with pytest.raises(Exception) as info:
        call(ember)
    assert category(type(info.value)) is etype, (type(info.value), etype, str(info.value))
    assert re.search(pattern, str(info.value)), str(info.value)
