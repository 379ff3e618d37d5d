"""View operations and basic indexing: geometry (sizes, strides, offsets)
against torch, values against NumPy, aliasing and version counters."""

import numpy as np
import pytest

import ember
from ember_testing import ALL_DTYPES, make, name, to_numpy, torch

# torch deprecates x.T for ndim != 2; Ember reverses all dims, as torch does.
pytestmark = pytest.mark.filterwarnings("ignore:The use of `x.T`:UserWarning")


def base(shape=(2, 3, 4), dtype=ember.int64):
    """ember and NumPy (and torch, when installed) arange tensors of `shape`."""
    n = int(np.prod(shape))
    e = ember.arange(n, dtype=dtype).view(shape)
    a = np.arange(n).reshape(shape)
    t = torch.arange(n).view(shape) if torch is not None else None
    return e, a, t


def check_view(e_result, e_base, np_result=None, t_result=None, is_view=True):
    if is_view:
        assert e_result._is_view_of(e_base)
    if np_result is not None:
        assert tuple(e_result.shape) == np.shape(np_result)
        np.testing.assert_array_equal(to_numpy(e_result), np_result)
    if t_result is not None:
        assert tuple(e_result.shape) == tuple(t_result.shape)
        assert e_result.stride() == t_result.stride(), (e_result.stride(), t_result.stride())
        assert e_result.storage_offset() == t_result.storage_offset()
        assert e_result.is_contiguous() == t_result.is_contiguous()


# Each case: (ember op, numpy op or None for "same as torch's values"). The
# ember op also runs on torch tensors, so both use the torch spelling.
VIEW_OPS = {
    "view_flat": (lambda x: x.view(24), lambda a: a.reshape(24)),
    "view_infer": (lambda x: x.view(-1, 4), lambda a: a.reshape(-1, 4)),
    "view_infer_mid": (lambda x: x.view(2, -1, 2), lambda a: a.reshape(2, -1, 2)),
    "view_tuple": (lambda x: x.view((6, 4)), lambda a: a.reshape(6, 4)),
    "view_ones": (lambda x: x.view(1, 2, 1, 12, 1), lambda a: a.reshape(1, 2, 1, 12, 1)),
    "reshape": (lambda x: x.reshape(4, 6), lambda a: a.reshape(4, 6)),
    "reshape_list": (lambda x: x.reshape([3, -1]), lambda a: a.reshape(3, -1)),
    "transpose": (lambda x: x.transpose(0, 2), lambda a: a.transpose(2, 1, 0)),
    "transpose_neg": (lambda x: x.transpose(-1, -2), lambda a: a.swapaxes(-1, -2)),
    "swapaxes": (lambda x: x.swapaxes(0, 1), lambda a: a.swapaxes(0, 1)),
    "permute": (lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
    "permute_tuple": (lambda x: x.permute((1, 2, 0)), lambda a: a.transpose(1, 2, 0)),
    "permute_neg": (lambda x: x.permute(-1, 0, -2), lambda a: a.transpose(2, 0, 1)),
    "T": (lambda x: x.T, lambda a: a.T),
    "mT": (lambda x: x.mT, lambda a: np.swapaxes(a, -1, -2)),
    "squeeze_none": (lambda x: x.unsqueeze(0).unsqueeze(2).squeeze(), lambda a: a),
    "unsqueeze0": (lambda x: x.unsqueeze(0), lambda a: a[None]),
    "unsqueeze_mid": (lambda x: x.unsqueeze(2), lambda a: a[:, :, None]),
    "unsqueeze_end": (lambda x: x.unsqueeze(-1), lambda a: a[..., None]),
    "unsqueeze_neg": (lambda x: x.unsqueeze(-3), lambda a: a[:, None]),
    "flatten": (lambda x: x.flatten(), lambda a: a.reshape(-1)),
    "flatten_1": (lambda x: x.flatten(1), lambda a: a.reshape(2, 12)),
    "flatten_0_1": (lambda x: x.flatten(0, 1), lambda a: a.reshape(6, 4)),
    "flatten_same": (lambda x: x.flatten(1, 1), lambda a: a),
    "select": (lambda x: x.select(1, 2), lambda a: a[:, 2]),
    "select_neg": (lambda x: x.select(-1, -1), lambda a: a[..., -1]),
    "narrow": (lambda x: x.narrow(2, 1, 2), lambda a: a[:, :, 1:3]),
    "narrow_neg_start": (lambda x: x.narrow(1, -2, 2), lambda a: a[:, 1:3]),
    "narrow_empty": (lambda x: x.narrow(0, 2, 0), lambda a: a[2:2]),
    "unfold": (lambda x: x.unfold(2, 2, 1), None),
    "unfold_step": (lambda x: x.unfold(2, 2, 2), None),
    "unfold_dim1": (lambda x: x.unfold(1, 3, 1), None),
    "as_strided": (lambda x: x.as_strided((3, 3), (1, 2)), None),
    "as_strided_offset": (lambda x: x.as_strided((2, 2), (4, 1), 5), None),
    "as_strided_zero": (lambda x: x.as_strided((3, 2), (0, 1)), None),
    "expand_leading": (lambda x: x[0, 0].expand(3, 4), lambda a: np.broadcast_to(a[0, 0], (3, 4))),
    "expand_inner": (lambda x: x[:, :1].expand(2, 5, 4), lambda a: np.broadcast_to(a[:, :1], (2, 5, 4))),
    "expand_minus1": (lambda x: x[:, :1].expand(-1, 3, -1), lambda a: np.broadcast_to(a[:, :1], (2, 3, 4))),
    "expand_new_dims": (lambda x: x.expand(2, 2, 3, 4), lambda a: np.broadcast_to(a, (2, 2, 3, 4))),
    "expand_tuple": (lambda x: x.expand((1, 2, 3, 4)), lambda a: a[None]),
    "broadcast_to": (lambda x: x[:, :1].broadcast_to((2, 5, 4)), lambda a: np.broadcast_to(a[:, :1], (2, 5, 4))),
    "expand_as": (lambda x: x[:1].expand_as(x), lambda a: np.broadcast_to(a[:1], a.shape)),
    "view_as": (lambda x: x.view_as(x.transpose(0, 1).contiguous()), lambda a: a.reshape(3, 2, 4)),
    "detach": (lambda x: x.detach(), lambda a: a),
    "t_of_slice": (lambda x: x[0].t(), lambda a: a[0].T),
    "transposed_then_sliced": (lambda x: x.transpose(0, 2)[1:, ::2], lambda a: a.transpose(2, 1, 0)[1:, ::2]),
    "squeeze_dim": (lambda x: x[:, :1].squeeze(1), lambda a: a[:, 0]),
    "squeeze_dim_noop": (lambda x: x.squeeze(1), lambda a: a),
    "squeeze_neg": (lambda x: x[..., :1].squeeze(-1), lambda a: a[..., 0]),
    "view_of_transposed": (lambda x: x.transpose(1, 2).view(2, 4, 3, 1), lambda a: a.transpose(0, 2, 1)[..., None]),
    "split_dim_of_slice": (lambda x: x[:, 1:].view(2, 2, 1, 4), lambda a: a[:, 1:].reshape(2, 2, 1, 4)),
    "merge_after_permute": (lambda x: x.permute(1, 2, 0).view(12, 2), lambda a: a.transpose(1, 2, 0).reshape(12, 2)),
}


@pytest.mark.parametrize("op", list(VIEW_OPS), ids=str)
def test_view_ops_match_torch(op):
    e_op, np_op = VIEW_OPS[op]
    e, a, t = base()
    result = e_op(e)
    t_result = e_op(t) if t is not None else None
    if np_op is None:
        np_result = t_result.numpy() if t_result is not None else None
    else:
        np_result = np_op(a)
    check_view(result, e, np_result, t_result)


def test_unfold_and_as_strided_values():
    # The NumPy equivalents, for when torch is not installed.
    e = ember.arange(7)
    np.testing.assert_array_equal(
        to_numpy(e.unfold(0, 3, 2)), np.lib.stride_tricks.sliding_window_view(np.arange(7), 3)[::2]
    )
    np.testing.assert_array_equal(
        to_numpy(e.as_strided((3, 3), (2, 1))),
        np.lib.stride_tricks.as_strided(np.arange(7), (3, 3), (16, 8)),
    )
    assert ember.as_strided(e, (2,), (3,)).tolist() == [0, 3]
    assert e.unfold(0, 7, 1).shape == (1, 7)
    assert ember.tensor(5).unfold(0, 1, 1).tolist() == [5]


def test_views_of_0d_tensors():
    s = ember.tensor(3.5)
    for v in (s.view(1), s.view(-1), s.view(1, 1), s.reshape(()), s.unsqueeze(0), s.t(), s.T, s.squeeze(), s.squeeze(0),
              s.transpose(0, -1), s.flatten(), s[...], s[None], s.expand(2, 3)):
        assert v._is_view_of(s)
    assert s.view(1, 1).shape == (1, 1)
    assert s.flatten().shape == (1,)
    assert s.expand(2, 3).stride() == (0, 0)
    assert s.view(()).shape == ()
    if torch is not None:
        ts = torch.tensor(3.5)
        assert ts.expand(2, 3).stride() == (0, 0)
        assert ts.flatten().shape == (1,)
        assert ts.unsqueeze(0).stride() == s.unsqueeze(0).stride()


@pytest.mark.parametrize(
    "shape, dims",
    [((0, 3), (-1,)), ((0, 3), (3, 0)), ((2, 0, 4), (0, 8)), ((0,), (0, 5, 0)), ((4, 0), (4, 0))],
)
def test_views_of_empty_tensors(shape, dims):
    e = ember.empty(shape)
    v = e.view(dims)
    assert v.numel() == 0
    if torch is not None:
        tv = torch.empty(shape).view(dims)
        assert tuple(v.shape) == tuple(tv.shape)
        assert v.stride() == tv.stride()


# ---------------------------------------------------------------------------
# reshape: a view when possible, a copy otherwise
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make_input, shape, expect_view",
    [
        (lambda x: x, (6, 4), True),
        (lambda x: x[:, 1:], (-1,), False),
        (lambda x: x[:, 1:], (2, 8), True),
        (lambda x: x[:, 1:], (4, 4), False),
        (lambda x: x[:, 1:], (2, 2, 4), True),
        (lambda x: x.transpose(0, 1), (3, 8), False),
        (lambda x: x.transpose(0, 1), (3, 2, 2, 2), True),
        (lambda x: x.permute(2, 0, 1), (24,), False),
        (lambda x: x[:, :, ::2], (12,), True),
        (lambda x: x[:, :, ::2], (6, 2), True),
        (lambda x: x[:, :, 1:3], (12,), False),
        (lambda x: x[:, :, 1:3], (2, 6), False),
        (lambda x: x[:, :, 1:3], (6, 2), True),
        (lambda x: x[:1].expand(3, 3, 4), (9, 4), False),
        (lambda x: x[:1].expand(3, 3, 4), (3, 12), True),
    ],
)
def test_reshape_views_when_possible(make_input, shape, expect_view):
    e, a, t = base()
    x = make_input(e)
    r = x.reshape(shape)
    assert r._is_view_of(e) == expect_view
    expected = np.reshape(to_numpy(x), shape)
    np.testing.assert_array_equal(to_numpy(r), expected)
    if not expect_view:
        assert r.is_contiguous()
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            x.view(shape)
    if t is not None:
        tr = make_input(t).reshape(shape)
        assert r.stride() == tr.stride()
        assert tr._is_view() == expect_view


def test_reshape_writes_through_only_when_a_view():
    e = ember.zeros(2, 3)
    e.reshape(3, 2)[0, 0] = 5
    assert e[0, 0].item() == 5
    copy = e.t().reshape(6)
    copy[0] = 7
    assert e[0, 0].item() == 5


# ---------------------------------------------------------------------------
# Aliasing: writes through views, version counters
# ---------------------------------------------------------------------------


def test_views_share_storage_and_data_ptr():
    e = ember.arange(12, dtype=ember.float32).view(3, 4)
    row = e[1]
    assert row.data_ptr() == e.data_ptr() + 4 * 4
    assert row.storage_offset() == 4
    col = e[:, 2]
    assert col.data_ptr() == e.data_ptr() + 2 * 4
    assert col.stride() == (4,)
    assert e.t().data_ptr() == e.data_ptr()
    assert e.untyped_storage_nbytes() == col.untyped_storage_nbytes() == 48
    assert not e.clone()._is_view_of(e)
    assert e.contiguous()._is_view_of(e) and e.contiguous() is e


def test_writes_through_views():
    e = ember.zeros(3, 4)
    e.t()[1].fill_(1)  # column 1
    e[2].copy_(ember.arange(4.0))
    e.view(12)[0] = -1
    e[:, 3:].squeeze(1).unsqueeze(0)[0, 0] = 9
    e.unfold(1, 2, 2)[1, 0, 0] = 8
    e.expand(2, 3, 4)[0, 0, 2] = 7
    assert e.tolist() == [[-1, 1, 7, 9], [8, 1, 0, 0], [0, 1, 2, 3]]
    e.as_strided((3,), (5,)).fill_(4)  # the diagonal
    assert [e[i, i].item() for i in range(3)] == [4, 4, 4]


def test_version_counter_shared_by_views():
    e = ember.zeros(3, 4)
    v = e[1:]
    w = e.t()
    assert e._version == v._version == w._version == 0
    steps = [
        lambda: e.fill_(1),
        lambda: v.zero_(),
        lambda: w.copy_(ember.ones(4, 3)),
        lambda: v.__setitem__(0, 5),
        lambda: w.__setitem__((slice(None), 0), ember.arange(4.0)),
        lambda: e.__setitem__(..., ember.tensor(2.0)),
        lambda: v.uniform_(),
        lambda: w.normal_(),
    ]
    for i, step in enumerate(steps, start=1):
        step()
        assert e._version == v._version == w._version == i, i
    # Reads and new views do not bump it; copies get their own counter.
    e.t().contiguous().view(12).tolist()
    c = e.clone()
    # (A fresh clone may start above 0: Ember's copy_ bumps the version of
    # the new tensor, where torch bumps only in its autograd layer.)
    c_version = c._version
    c.fill_(0)
    assert e._version == len(steps) and c._version == c_version + 1
    if torch is not None:
        te = torch.zeros(3, 4)
        tv, tw = te[1:], te.t()
        te.fill_(1), tv.zero_(), tw.copy_(torch.ones(4, 3)), tv.__setitem__(0, 5)
        tw[:, 0] = torch.arange(4.0)
        te[...] = torch.tensor(2.0)
        tv.uniform_(), tw.normal_()
        assert te._version == e._version


# ---------------------------------------------------------------------------
# contiguous
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_contiguous_all_dtypes(dtype):
    x, values = make(name(dtype), (3, 4))
    for view, expected in [
        (x.t(), values.T),
        (x[:, ::2], values[:, ::2]),
        (x[1:, 1:3], values[1:, 1:3]),
        (x[:1].expand(3, 4), np.broadcast_to(values[:1], (3, 4))),
    ]:
        assert not view.is_contiguous()
        c = view.contiguous()
        assert c.is_contiguous() and not c._is_view_of(x)
        assert c.dtype is dtype
        assert c.stride() == (expected.shape[1], 1)
        np.testing.assert_array_equal(to_numpy(c), expected)
    assert x.contiguous() is x


def test_is_contiguous_ignores_size_one_dims():
    e = ember.zeros(1, 4)
    assert e.t().is_contiguous()  # strides (1, 4) over sizes (4, 1)
    assert e.as_strided((1, 4), (100, 1)).is_contiguous()
    assert ember.zeros(0, 3).t().is_contiguous()
    if torch is not None:
        assert torch.zeros(1, 4).t().is_contiguous()


# ---------------------------------------------------------------------------
# Basic indexing: __getitem__
# ---------------------------------------------------------------------------

INDICES = [
    0,
    -1,
    (1, 2),
    (1, -1, 3),
    (-2, 0),
    slice(None),
    slice(1, None),
    slice(None, -1),
    slice(None, None, 2),
    slice(-2, None, 3),
    slice(1, 100),
    slice(-100, 1),
    slice(3, 1),
    slice(5, 10),
    (slice(None), 1),
    (slice(None), slice(1, 3), slice(None, None, 3)),
    (Ellipsis, 0),
    (0, Ellipsis),
    (Ellipsis, slice(None, None, 2), 1),
    (1, Ellipsis, 2),
    Ellipsis,
    None,
    (None, 0),
    (0, None, slice(1, 2), None),
    (Ellipsis, None),
    (None, Ellipsis, None),
    (slice(None), None, slice(None)),
    (None, None, 1, None, 2, None, 3),
    True,
    False,
    (0, True),
    (Ellipsis, False),
    (),
    (np.int64(1), np.int32(2)),
]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_getitem_basic(index):
    e, a, t = base()
    result = e[index]
    expected = a[index]
    assert isinstance(result, ember.Tensor)
    assert result._is_view_of(e)
    assert tuple(result.shape) == expected.shape
    np.testing.assert_array_equal(to_numpy(result), expected)
    if t is not None:
        tr = t[index]
        assert tuple(result.shape) == tuple(tr.shape)
        assert result.stride() == tr.stride()
        assert result.storage_offset() == tr.storage_offset()


def test_getitem_with_0d_integer_tensor():
    e, a, t = base()
    assert e[ember.tensor(1)].tolist() == a[1].tolist()
    assert e[0, ember.tensor(-1)].tolist() == a[0, -1].tolist()
    assert e[ember.tensor(1, dtype=ember.int8), 2, ember.tensor(3, dtype=ember.uint8)].item() == a[1, 2, 3]


def test_getitem_0d_and_returns_new_objects():
    s = ember.tensor(5)
    assert s[...].tolist() == 5 and s[...] is not s
    assert s[()].tolist() == 5
    assert s[None].shape == (1,)
    assert s[None, ..., None].shape == (1, 1)
    assert s[True].shape == (1,) and s[False].shape == (0,)
    e = ember.zeros(2)
    assert e[:] is not e and e[:]._is_view_of(e)


def test_iteration_and_len():
    e, a, _ = base((3, 2))
    rows = list(e)
    assert len(rows) == len(e) == 3
    assert [r.tolist() for r in rows] == a.tolist()
    assert all(r._is_view_of(e) for r in rows)
    assert len(ember.zeros(0, 5)) == 0 and list(ember.zeros(0)) == []


# ---------------------------------------------------------------------------
# __setitem__
# ---------------------------------------------------------------------------

SET_INDICES = [
    0,
    -1,
    (1, 2),
    (0, slice(None), 1),
    slice(None, None, 2),
    (slice(None), slice(1, None, 2)),
    (Ellipsis, -1),
    (Ellipsis, slice(1, 3)),
    (None, 1),
    (Ellipsis,),
    (1, None, slice(None), None),
    (slice(None), True),
    (0, 1, 2),
    (slice(1), slice(None), slice(None, None, 3)),
]


def np_target_shape(a, index):
    return np.shape(a[index])


@pytest.mark.parametrize("index", SET_INDICES, ids=repr)
@pytest.mark.parametrize("kind", ["int", "float", "bool", "tensor", "tensor_bcast", "list", "numpy", "0d_tensor"])
def test_setitem_basic(index, kind):
    e, a, t = base()
    a = a.copy()
    target_shape = np_target_shape(a, index)
    inner = target_shape[-1] if target_shape else 1
    if kind == "int":
        value, np_value = -7, -7
    elif kind == "float":
        value, np_value = 2.9, 2  # float -> int64 truncates, as in NumPy's astype
    elif kind == "bool":
        value, np_value = True, 1
    elif kind == "tensor":
        np_value = (np.arange(int(np.prod(target_shape))) + 100).reshape(target_shape)
        value = ember.from_numpy(np_value.copy())
    elif kind == "tensor_bcast":
        np_value = np.arange(inner) * 10 + 50
        value = ember.from_numpy(np_value.copy())
    elif kind == "list":
        np_value = (np.arange(inner) - 20).tolist()
        value = np_value
    elif kind == "numpy":
        np_value = np.arange(inner, dtype=np.int32) + 1000
        value = np_value
    else:
        value, np_value = ember.tensor(33), 33
    version = e._version
    e[index] = value
    # NumPy will not put a one-element sequence into a 0-d position.
    a[index] = np.reshape(np_value, ()) if target_shape == () else np_value
    np.testing.assert_array_equal(to_numpy(e), a)
    assert e._version == version + 1
    # torch refuses lists as values ("can't assign a list to a
    # torch.LongTensor"); Ember accepts them, as NumPy does.
    if t is not None and kind != "list":
        tv = value
        if isinstance(value, ember.Tensor):
            tv = torch.from_numpy(to_numpy(value))
        elif isinstance(value, np.ndarray):
            tv = torch.from_numpy(value).to(t.dtype)
        t[index] = tv
        np.testing.assert_array_equal(t.numpy(), a)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_setitem_converts_values(dtype):
    e = ember.zeros(2, 3, dtype=dtype)
    e[0] = 1
    e[1, 1:] = ember.tensor([True, True])
    e[1, 0] = ember.tensor(1.0, dtype=ember.float64)
    assert e.tolist() == [[1, 1, 1], [1, 1, 1]]
    if dtype.is_complex:
        e[0, 0] = 2 - 3j
        assert e[0, 0].item() == 2 - 3j


def test_setitem_strips_leading_unit_dims_of_the_value():
    # torch (and NumPy) accept a value with extra leading size-1 dims.
    e = ember.zeros(3, 4)
    e[0] = ember.ones(1, 4)
    e[1] = [[[2, 2, 2, 2]]]
    e[2, 1:3] = ember.full((1, 1, 2), 3.0)
    assert e.tolist() == [[1] * 4, [2] * 4, [0, 3, 3, 0]]
    if torch is not None:
        t = torch.zeros(3, 4)
        t[0] = torch.ones(1, 4)
        t[1] = torch.tensor([[[2.0, 2, 2, 2]]])
        t[2, 1:3] = torch.full((1, 1, 2), 3.0)
        assert t.tolist() == e.tolist()


def test_setitem_with_overlapping_value():
    e = ember.arange(6)
    e[1:] = e[:-1]
    assert e.tolist() == [0, 0, 1, 2, 3, 4]
    m = ember.arange(9).view(3, 3)
    m[...] = m.t()
    assert m.tolist() == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    if torch is not None:
        t = torch.arange(6)
        t[1:] = t[:-1].clone()
        assert t.tolist() == e.tolist()


def test_setitem_shape_mismatch():
    e = ember.zeros(3, 4)
    with pytest.raises(RuntimeError):
        e[0] = ember.ones(5)
    with pytest.raises(RuntimeError):
        e[:, 0] = ember.ones(2, 3)
    with pytest.raises(RuntimeError):
        e[0] = [1, 2]
    assert e.tolist() == [[0.0] * 4] * 3


# ---- broadcast_tensors / broadcast_shapes --------------------------------------

@pytest.mark.parametrize("shapes", [[(2, 1), (3,)], [(1,), (4, 1, 5), (1, 5)], [(0, 1), (3,)], [()], [(2, 3)]])
def test_broadcast_tensors_matches_torch(shapes):
    es = [ember.arange(int(np.prod(s)), dtype=ember.float32).view(s) for s in shapes]
    outs = ember.broadcast_tensors(*es)
    assert ember.broadcast_shapes(*shapes) == outs[0].shape
    expected = np.broadcast_arrays(*[to_numpy(e) for e in es])
    for e, o, a in zip(es, outs, expected):
        check_view(o, e, a)
    if torch is not None:
        ts = torch.broadcast_tensors(*[torch.zeros(s) for s in shapes])
        assert [tuple(o.shape) for o in outs] == [tuple(t.shape) for t in ts]
        assert [o.stride() for o in outs] == [t.stride() for t in ts]
        assert tuple(ember.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))


def test_broadcast_tensors_takes_a_list_and_flows_gradients():
    a = ember.ones(2, 1, requires_grad=True)
    x, y = ember.broadcast_tensors([a, ember.ones(3)])
    (x * 2).sum().backward()
    np.testing.assert_array_equal(to_numpy(a.grad), [[6.0], [6.0]])


def test_broadcast_errors_name_the_op():
    with pytest.raises(RuntimeError, match="^broadcast_tensors: The size of tensor a \\(2\\) must match"):
        ember.broadcast_tensors(ember.ones(2), ember.ones(3))
    with pytest.raises(RuntimeError, match="^broadcast_tensors: The size of tensor a"):
        ember.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError, match="^add: The size of tensor a"):
        ember.ones(2) + ember.ones(3)
    assert ember.broadcast_shapes() == ember.Size([])


def test_view_dtype_shares_the_bytes_and_the_version_counter():
    x = ember.zeros(2, 3)
    bits = x.view(ember.int32)
    assert bits._is_view_of(x)
    before = x._version
    bits[0, 1] = 1065353216  # the bits of 1.0f
    assert x._version > before
    np.testing.assert_array_equal(to_numpy(x), [[0, 1, 0], [0, 0, 0]])


def test_view_dtype_geometry_is_torch_s():
    for src, dst in (("float32", "uint8"), ("uint8", "float32"), ("float64", "int16"), ("int16", "float64")):
        e = ember.zeros(3, 8, dtype=getattr(ember, src))[1:, 4:]
        t = torch.zeros(3, 8, dtype=getattr(torch, src))[1:, 4:]
        ev, tv = e.view(getattr(ember, dst)), t.view(getattr(torch, dst))
        assert (tuple(ev.shape), ev.stride(), ev.storage_offset()) == (tuple(tv.shape), tv.stride(), tv.storage_offset())


@pytest.mark.parametrize("make_input, dtype, message", [
    (lambda: ember.tensor(1.0), ember.int8, r"self.dim\(\) cannot be 0 to view Float as Char"),
    (lambda: ember.zeros(2, 3), ember.float64, r"self.size\(-1\) must be divisible by 2 to view Float as Double"),
    (lambda: ember.zeros(2, 3).t(), ember.int8, r"self.stride\(-1\) must be 1 to view Float as Char"),
    (lambda: ember.zeros(2, 8, dtype=ember.uint8)[:, 1:5], ember.float32,
     r"self.storage_offset\(\) must be divisible by 4"),
    (lambda: ember.zeros(2, dtype=ember.complex64).conj(), ember.float64, "conjugate view"),
])
def test_view_dtype_errors(make_input, dtype, message):
    with pytest.raises(RuntimeError, match=message):
        make_input().view(dtype)


def test_view_dtype_is_not_differentiable():
    x = ember.ones(2, requires_grad=True)
    assert not x.view(ember.int32).requires_grad
    assert not x.view(ember.float32).requires_grad
