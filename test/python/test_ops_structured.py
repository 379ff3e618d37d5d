"""Structured operators (reductions, linear algebra, joining/indexing/sorting,
neural-network functions, convolution and pooling), tested over the table in
opdb/structured.py: Ember is compared with NumPy (values, shape) and with
torch when installed (values, result dtype, shape). Nothing is checked about
aliasing of view-returning ops.

The database's out= forms, in-place forms and error inputs are checked too
(errors: the exception type is torch's, the message names the problem);
tests below them cover advanced indexing through ``t[...]``, sort stability,
dropout statistics and batch_norm's running statistics.
"""

import re
import warnings

import numpy as np
import pytest

import ember
from ember_testing import to_numpy, torch

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
        a, b = make_tensor(lib, "float32", (3, 4), 1), make_tensor(lib, "float32", (4, 5), 2)
        base = lib.zeros(5, 3)
        out = base.t()
        assert lib.mm(a, b, out=out) is out
        np.testing.assert_allclose(np.asarray(base.numpy()).T, a.numpy().astype(float) @ b.numpy(), rtol=1e-5,
                                   atol=1e-5)
        s = make_tensor(lib, "float32", (3, 5), 3)
        s0 = s.numpy().copy()
        assert lib.addmm(s, a, b, beta=0.5, out=s) is s
        np.testing.assert_allclose(s.numpy(), 0.5 * s0 + a.numpy().astype(float) @ b.numpy(), rtol=1e-5, atol=1e-5)


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


ERR_CASES = [c if hasattr(c, "marks") else pytest.param(c, id=c[0]) for c in ERROR_INPUTS]


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
