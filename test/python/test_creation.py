"""Tensor factories: shapes, dtypes, values, options, randomness."""

import contextlib
import math

import numpy as np
import pytest

import ember
from ember_testing import (
    ALL_DTYPES,
    COMPLEX_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    NUMPY_DTYPES,
    assert_equal,
    assert_like_torch,
    name,
    to_numpy,
    torch,
    torch_dtype,
)


@contextlib.contextmanager
def default_dtype(dtype):
    saved = ember.get_default_dtype()
    ember.set_default_dtype(dtype)
    try:
        yield
    finally:
        ember.set_default_dtype(saved)


def np_dtype(dtype):
    """NumPy dtype holding the values of an ember dtype (float32 for bfloat16)."""
    return NUMPY_DTYPES[name(dtype)] or np.dtype(np.float32)


# ---------------------------------------------------------------------------
# Size arguments
# ---------------------------------------------------------------------------

SIZE_FACTORIES = [ember.empty, ember.zeros, ember.ones, ember.rand, ember.randn]


@pytest.mark.parametrize("factory", SIZE_FACTORIES, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "args, shape",
    [
        ((2, 3), (2, 3)),
        (((2, 3),), (2, 3)),
        (([2, 3],), (2, 3)),
        ((ember.Size([4, 1, 2]),), (4, 1, 2)),
        ((5,), (5,)),
        ((), ()),
        (((),), ()),
        ((0,), (0,)),
        ((3, 0, 2), (3, 0, 2)),
        ((np.int64(2), np.int32(3)), (2, 3)),
    ],
)
def test_size_spellings(factory, args, shape):
    t = factory(*args)
    assert t.shape == shape
    assert isinstance(t.shape, ember.Size)
    assert t.dim() == len(shape) == t.ndim
    assert t.numel() == math.prod(shape)
    assert t.dtype == ember.float32
    assert t.is_contiguous()
    # torch insists on a size argument (ember.zeros() is a 0-d tensor).
    if torch is not None and args:
        tt = getattr(torch, factory.__name__)(*args)
        assert tuple(tt.shape) == tuple(t.shape)
        assert t.stride() == tt.stride()


def test_size_accepts_0d_integer_tensor():
    assert ember.zeros(ember.tensor(3)).shape == (3,)
    assert ember.zeros(2, ember.tensor(3)).shape == (2, 3)


@pytest.mark.parametrize("bad", [(2.0,), ((2, 3.5),), ("ab",), ((True, 2),), ([[2]],)])
def test_size_rejects_non_integers(bad):
    with pytest.raises(TypeError):
        ember.zeros(*bad)
    if torch is not None:
        with pytest.raises(TypeError):
            torch.zeros(*bad)


# ---------------------------------------------------------------------------
# empty / zeros / ones / full over all dtypes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_zeros_ones_all_dtypes(dtype):
    z = ember.zeros(2, 3, dtype=dtype)
    o = ember.ones((2, 3), dtype=dtype)
    e = ember.empty([2, 3], dtype=dtype)
    for t in (z, o, e):
        assert t.dtype is dtype
        assert t.shape == (2, 3)
        assert t.stride() == (3, 1)
        assert t.element_size() == t.itemsize == dtype.itemsize
        assert t.nbytes == 6 * dtype.itemsize
    assert_equal(z, np.zeros((2, 3), np_dtype(dtype)))
    assert_equal(o, np.ones((2, 3), np_dtype(dtype)))
    assert z.tolist() == [[0, 0, 0], [0, 0, 0]]
    assert o.tolist() == [[1, 1, 1], [1, 1, 1]]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_full_all_dtypes(dtype):
    value = {"bool": True, "uint8": 200}.get(name(dtype), -7 if "int" in name(dtype) else 2.5)
    if dtype.is_complex:
        value = 1.5 - 2j
    t = ember.full((3, 2), value, dtype=dtype)
    assert t.dtype is dtype
    assert_equal(t, np.full((3, 2), value, np_dtype(dtype)))
    if torch is not None:
        assert_like_torch(t, torch.full((3, 2), value, dtype=torch_dtype(dtype)))


@pytest.mark.parametrize(
    "value, expected",
    [(True, ember.bool), (3, ember.int64), (2.5, ember.float32), (1 + 1j, ember.complex64)],
)
def test_full_infers_dtype_from_value(value, expected):
    t = ember.full([2], value)
    assert t.dtype is expected
    assert t.tolist() == [value, value]
    if torch is not None:
        assert name(torch.full([2], value).dtype) == name(expected)
    with default_dtype(ember.float64):
        wide = {ember.float32: ember.float64, ember.complex64: ember.complex128}.get(expected, expected)
        assert ember.full([2], value).dtype is wide


def test_full_with_numpy_scalar_value():
    assert ember.full([2], np.float32(1.5)).tolist() == [1.5, 1.5]
    assert ember.full([2], np.int16(4), dtype=ember.int16).tolist() == [4, 4]
    # A 0-d tensor is a number too (through item(), not __index__).
    assert ember.full([2], ember.tensor(2.5)).tolist() == [2.5, 2.5]
    assert ember.full([2], ember.tensor(3)).dtype is ember.int64
    assert ember.zeros(3).fill_(ember.tensor(1.5, dtype=ember.float64)).tolist() == [1.5] * 3


@pytest.mark.parametrize("value", [0, 1, -1.5, True, 2 + 3j])
def test_scalar_tensor(value):
    t = ember.scalar_tensor(value)
    assert t.dim() == 0 and t.shape == ()
    assert t.item() == value or (isinstance(value, complex) and t.item() == value.real)
    assert ember.scalar_tensor(value, dtype=ember.float64).dtype is ember.float64
    if torch is not None and not isinstance(value, complex):
        tt = torch.scalar_tensor(value)
        assert name(t.dtype) == name(tt.dtype)
        assert t.item() == tt.item()


def test_empty_values_are_writable_and_sized():
    t = ember.empty(1000, dtype=ember.int64)
    t.fill_(7)
    assert t.tolist() == [7] * 1000
    assert t.untyped_storage_nbytes() == 8000


def test_empty_strided():
    t = ember.empty_strided((2, 3), (1, 2))
    assert t.shape == (2, 3)
    assert t.stride() == (1, 2)
    assert not t.is_contiguous()
    t.copy_(ember.arange(6).view(2, 3))
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    if torch is not None:
        assert torch.empty_strided((2, 3), (1, 2)).stride() == t.stride()


# ---------------------------------------------------------------------------
# arange / linspace / eye
# ---------------------------------------------------------------------------

ARANGE_CASES = [
    (5,),
    (0,),
    (2, 9),
    (2, 9, 3),
    (9, 2, -2),
    (-5, 5, 4),
    (0, 1, 0.1),
    (1, 2.5, 0.5),
    (2.5,),
    (-1.0, 1.0, 0.25),
    (10, 0, -0.75),
    (3, 3),
]


@pytest.mark.parametrize("args", ARANGE_CASES, ids=str)
def test_arange_against_numpy_and_torch(args):
    t = ember.arange(*args)
    all_int = all(isinstance(a, int) for a in args)
    assert t.dtype is (ember.int64 if all_int else ember.float32)
    expected = np.arange(*args, dtype=np.int64 if all_int else np.float64)
    assert t.shape == expected.shape
    np.testing.assert_allclose(to_numpy(t), expected, rtol=1e-6, atol=1e-6)
    if torch is not None:
        assert_like_torch(t, torch.arange(*args), exact=all_int)


@pytest.mark.parametrize("dtype", [ember.int16, ember.uint8, ember.float64, ember.float16, ember.bfloat16], ids=name)
def test_arange_dtype(dtype):
    t = ember.arange(0, 12, 2, dtype=dtype)
    assert t.dtype is dtype
    assert t.tolist() == [0, 2, 4, 6, 8, 10]
    if torch is not None:
        assert_like_torch(t, torch.arange(0, 12, 2, dtype=torch_dtype(dtype)))


def test_arange_default_dtype_follows_set_default_dtype():
    with default_dtype(ember.float64):
        assert ember.arange(0.5, 3).dtype is ember.float64
        assert ember.arange(3).dtype is ember.int64
        np.testing.assert_array_equal(ember.arange(0, 1, 0.1).numpy(), np.arange(0, 1, 0.1))


@pytest.mark.parametrize(
    "start, end, steps",
    [(0, 1, 5), (-3, 7, 11), (1, 0, 4), (2, 2, 3), (0, 10, 1), (0, 10, 0), (0.5, 100.25, 33), (-1e3, 1e3, 7)],
)
def test_linspace(start, end, steps):
    t = ember.linspace(start, end, steps)
    assert t.dtype is ember.float32
    assert t.shape == (steps,)
    np.testing.assert_allclose(to_numpy(t), np.linspace(start, end, steps), rtol=1e-6, atol=1e-5)
    if steps > 0:
        assert t[0].item() == np.float32(start)
        assert t[-1].item() == np.float32(end if steps > 1 else start)
    if torch is not None:
        # torch computes float32 linspace in float32, Ember in double: the
        # results may differ by a float32 rounding of the largest endpoint.
        scale = max(abs(start), abs(end), 1)
        assert_like_torch(t, torch.linspace(start, end, steps), exact=False, atol=1e-6 * scale)


@pytest.mark.parametrize("dtype", [ember.int64, ember.int32, ember.uint8, ember.float64, ember.complex64], ids=name)
def test_linspace_dtype(dtype):
    t = ember.linspace(0, 10, 4, dtype=dtype)
    assert t.dtype is dtype
    if torch is not None:
        assert_like_torch(t, torch.linspace(0, 10, 4, dtype=torch_dtype(dtype)), exact=not dtype.is_complex)


def test_linspace_complex_endpoints():
    t = ember.linspace(0, 1j, 3)
    assert t.dtype is ember.complex64
    assert t.tolist() == [0j, 0.5j, 1j]
    if torch is not None:
        assert name(torch.linspace(0, 1j, 3).dtype) == "complex64"


@pytest.mark.parametrize("n, m", [(3, None), (2, 4), (4, 2), (0, None), (1, 0)])
@pytest.mark.parametrize("dtype", [ember.float32, ember.int64, ember.bool, ember.complex128], ids=name)
def test_eye(n, m, dtype):
    t = ember.eye(n, m, dtype=dtype) if m is not None else ember.eye(n, dtype=dtype)
    assert t.dtype is dtype
    assert_equal(t, np.eye(n, m, dtype=np_dtype(dtype)))


# ---------------------------------------------------------------------------
# *_like
# ---------------------------------------------------------------------------

LIKE = [
    (ember.empty_like, None),
    (ember.zeros_like, 0),
    (ember.ones_like, 1),
    (lambda t, **kw: ember.full_like(t, 3, **kw), 3),
]


@pytest.mark.parametrize("factory, value", LIKE)
@pytest.mark.parametrize("dtype", [ember.float64, ember.int8, ember.complex64, ember.bool], ids=name)
def test_like_factories_keep_shape_dtype_device(factory, value, dtype):
    src = ember.zeros(2, 3, dtype=dtype)
    t = factory(src)
    assert t.shape == (2, 3) and t.dtype is dtype and t.device == src.device
    assert not t._is_view_of(src)
    if value is not None:
        assert_equal(t, np.full((2, 3), value, np_dtype(dtype)))
    other = factory(src, dtype=ember.float32)
    assert other.dtype is ember.float32
    meta = factory(src, device="meta")
    assert meta.is_meta and meta.shape == (2, 3) and meta.dtype is dtype


@pytest.mark.parametrize("factory, value", LIKE)
def test_like_factories_preserve_dense_layouts(factory, value):
    src = ember.zeros(3, 4).t()
    t = factory(src)
    assert t.stride() == src.stride() == (1, 4)
    if torch is not None:
        assert t.stride() == torch.empty_like(torch.zeros(3, 4).t()).stride()
    # Overlapping (expanded) inputs get a fresh contiguous layout.
    assert factory(ember.zeros(3, 1).expand(3, 4)).stride() == (4, 1)


def test_rand_like_randn_like():
    src = ember.zeros(50, 40, dtype=ember.float64)
    r = ember.rand_like(src)
    n = ember.randn_like(src)
    assert r.dtype is n.dtype is ember.float64
    assert r.shape == n.shape == (50, 40)
    values = to_numpy(r)
    assert values.min() >= 0 and values.max() < 1
    assert abs(to_numpy(n).mean()) < 0.2
    assert ember.rand_like(src, dtype=ember.float16).dtype is ember.float16
    with pytest.raises(RuntimeError):
        ember.rand_like(ember.zeros(2, dtype=ember.int64))


# ---------------------------------------------------------------------------
# out= and requires_grad=
# ---------------------------------------------------------------------------


def test_out_returns_the_out_tensor():
    out = ember.empty(0)
    out.marker = "kept"
    result = ember.zeros(2, 3, out=out)
    assert result is out
    assert out.marker == "kept"
    assert out.shape == (2, 3)
    assert out.tolist() == [[0.0] * 3] * 2
    same_size = ember.empty(4, dtype=ember.float64)
    assert ember.arange(4, out=same_size) is same_size
    assert same_size.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert ember.full([2], 5, out=out) is out
    assert out.tolist() == [5.0, 5.0]
    assert ember.eye(2, out=out).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert ember.linspace(0, 1, 3, out=out).tolist() == [0.0, 0.5, 1.0]


def test_out_into_a_view_writes_through():
    base = ember.zeros(3, 4)
    ember.ones(4, out=base[1])
    assert base.tolist() == [[0.0] * 4, [1.0] * 4, [0.0] * 4]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + COMPLEX_DTYPES, ids=name)
def test_requires_grad_kwarg(dtype):
    for t in (
        ember.zeros(2, dtype=dtype, requires_grad=True),
        ember.ones(2, dtype=dtype, requires_grad=True),
        ember.randn(2, dtype=dtype, requires_grad=True),
        ember.full([2], 1.0, dtype=dtype, requires_grad=True),
        ember.tensor([1.0, 2.0], dtype=dtype, requires_grad=True),
        ember.zeros_like(ember.zeros(2, dtype=dtype), requires_grad=True),
    ):
        assert t.requires_grad and t.is_leaf and t.grad is None and t.grad_fn is None
    assert not ember.zeros(2, dtype=dtype).requires_grad


@pytest.mark.parametrize("dtype", INT_DTYPES + [ember.bool], ids=name)
def test_requires_grad_rejects_integer_dtypes(dtype):
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        ember.zeros(2, dtype=dtype, requires_grad=True)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        ember.zeros(2, dtype=dtype).requires_grad_()
    if torch is not None:
        with pytest.raises(RuntimeError):
            torch.zeros(2, dtype=torch_dtype(dtype), requires_grad=True)


def test_requires_grad_toggle():
    t = ember.zeros(3)
    assert t.requires_grad_() is t and t.requires_grad
    t.requires_grad = False
    assert not t.requires_grad
    assert t.requires_grad_(False) is t
    # A view through detach() does not require grad.
    t.requires_grad_()
    assert not t.detach().requires_grad


# ---------------------------------------------------------------------------
# Meta tensors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_meta_factories_are_shape_only(dtype):
    factories = [
        ember.empty(2, 3, dtype=dtype, device="meta"),
        ember.zeros(2, 3, dtype=dtype, device="meta"),
        ember.ones(2, 3, dtype=dtype, device=ember.device("meta")),
        ember.full((2, 3), 1, dtype=dtype, device="meta"),
    ]
    if dtype.is_floating_point or dtype.is_complex:
        factories += [ember.rand(2, 3, dtype=dtype, device="meta"), ember.randn(2, 3, dtype=dtype, device="meta")]
    for t in factories:
        assert t.is_meta and not t.is_cpu
        assert t.device.type == "meta" and str(t.device) == "meta"
        assert t.shape == (2, 3) and t.stride() == (3, 1) and t.dtype is dtype
        assert t.numel() == 6 and t.nbytes == 6 * dtype.itemsize


def test_meta_views_and_copies():
    m = ember.empty(4, 6, device="meta")
    assert m.t().shape == (6, 4) and m.t().stride() == (1, 6)
    assert m.view(2, 12).shape == (2, 12)
    assert m[1:, ::2].shape == (3, 3) and m[1:, ::2].stride() == (6, 2)
    assert m.clone().is_meta
    assert m.to(ember.float64).dtype is ember.float64
    assert ember.arange(5, device="meta").shape == (5,)
    assert ember.eye(3, device="meta").shape == (3, 3)
    assert ember.linspace(0, 1, 7, device="meta").shape == (7,)
    cpu = ember.ones(4, 6)
    assert m.copy_(cpu) is m
    assert cpu.to("meta").is_meta
    with pytest.raises(RuntimeError, match="meta"):
        cpu.copy_(m)
    with pytest.raises(RuntimeError, match="meta"):
        m.tolist()
    with pytest.raises(RuntimeError, match="meta"):
        ember.empty((), device="meta").item()
    if torch is not None:
        tm = torch.empty(4, 6, device="meta")
        assert tm[1:, ::2].stride() == m[1:, ::2].stride()


def test_unavailable_device():
    with pytest.raises(RuntimeError, match="cuda"):
        ember.zeros(2, device="cuda")


# ---------------------------------------------------------------------------
# ember.tensor()
# ---------------------------------------------------------------------------

INFERENCE_CASES = [
    ([True, False], ember.bool),
    ([1, 2, 3], ember.int64),
    ([True, 2], ember.int64),
    ([1, 2.5], ember.float32),
    ([[1, 2], [3.0, 4]], ember.float32),
    ([1, 2j], ember.complex64),
    ([[True], [1j]], ember.complex64),
    (3, ember.int64),
    (3.5, ember.float32),
    (False, ember.bool),
    (2 - 1j, ember.complex64),
    ([], ember.float32),
    ([[], []], ember.float32),
    ([[[1], [2]], [[3], [4]]], ember.int64),
    ((1, 2), ember.int64),
    ([(1, 2), [3, 4]], ember.int64),
    ([ember.tensor(1), 2.5], ember.float32),
    ([ember.tensor(True), ember.tensor(False)], ember.bool),
    ([np.float32(1.5), 2], ember.float32),
    ([np.int64(1), 2], ember.int64),
]


@pytest.mark.parametrize("data, dtype", INFERENCE_CASES, ids=repr)
def test_tensor_dtype_inference(data, dtype):
    t = ember.tensor(data)
    assert t.dtype is dtype
    plain = [x.item() if hasattr(x, "item") else x for x in data] if isinstance(data, list) and data and not isinstance(data[0], (list, tuple)) else data
    expected = np.array(plain, dtype=np_dtype(dtype))
    assert t.shape == expected.shape
    np.testing.assert_array_equal(to_numpy(t), expected)
    if torch is not None:
        tt = torch.tensor(plain)
        assert name(tt.dtype) == name(dtype)
        assert tuple(tt.shape) == tuple(t.shape)


def test_tensor_dtype_inference_follows_default_dtype():
    with default_dtype(ember.float64):
        assert ember.get_default_dtype() is ember.float64
        assert ember.tensor([1.5]).dtype is ember.float64
        assert ember.tensor([1j]).dtype is ember.complex128
        assert ember.tensor([1]).dtype is ember.int64
        assert ember.zeros(1).dtype is ember.float64
        assert ember.rand(1).dtype is ember.float64
        assert ember.full([1], 0.5).dtype is ember.float64
    assert ember.get_default_dtype() is ember.float32
    with default_dtype(ember.float16):
        assert ember.tensor([1.5]).dtype is ember.float16
        assert ember.tensor([1j]).dtype is ember.complex64
    with default_dtype(ember.bfloat16):
        assert ember.ones(2).dtype is ember.bfloat16
    assert ember.tensor([1.5]).dtype is ember.float32


@pytest.mark.parametrize("dtype", [ember.int64, ember.complex64, ember.bool])
def test_set_default_dtype_rejects_non_floating(dtype):
    with pytest.raises(TypeError, match="only floating-point types"):
        ember.set_default_dtype(dtype)
    assert ember.get_default_dtype() is ember.float32


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_tensor_explicit_dtype(dtype):
    data = [[0, 1, 2], [3, 4, 5]]
    t = ember.tensor(data, dtype=dtype)
    assert t.dtype is dtype
    assert_equal(t, np.array(data).astype(np_dtype(dtype)))
    floats = ember.tensor([0.0, 1.75, -0.0, 3.25], dtype=dtype)
    if dtype.is_floating_point or dtype.is_complex:
        assert floats.tolist() == [0.0, 1.75, -0.0, 3.25]
    elif dtype is ember.bool:
        assert floats.tolist() == [False, True, False, True]
    elif dtype is not ember.uint8:
        assert floats.tolist() == [0, 1, 0, 3]  # truncation toward zero


def test_tensor_accepts_python_types_as_dtype():
    assert ember.tensor([1], dtype=float).dtype is ember.float64
    assert ember.tensor([1], dtype=int).dtype is ember.int64
    assert ember.tensor([1], dtype=bool).dtype is ember.bool
    assert ember.tensor([1], dtype=complex).dtype is ember.complex128


def test_tensor_from_tensor_and_numpy_copies():
    src = ember.arange(6).view(2, 3)
    t = ember.tensor(src)
    assert t.tolist() == src.tolist() and not t._is_view_of(src)
    arr = np.arange(6.0).reshape(2, 3)
    u = ember.tensor(arr)
    assert u.dtype is ember.float64 and u.tolist() == arr.tolist()
    arr[0, 0] = 100
    assert u[0, 0].item() == 0.0
    assert ember.tensor(arr, dtype=ember.int32).tolist() == arr.astype(np.int32).tolist()
    assert ember.tensor([np.arange(2), np.arange(2)]).tolist() == [[0, 1], [0, 1]]


def test_tensor_requires_grad_and_device():
    t = ember.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad
    m = ember.tensor([1, 2], device="meta")
    assert m.is_meta and m.shape == (2,)


# ---------------------------------------------------------------------------
# Random numbers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + COMPLEX_DTYPES, ids=name)
def test_rand_in_unit_interval(dtype):
    ember.manual_seed(1234)
    t = ember.rand(100_000, dtype=dtype)
    assert t.dtype is dtype
    values = to_numpy(t)
    parts = [values.real, values.imag] if dtype.is_complex else [values]
    for v in parts:
        assert v.min() >= 0.0
        assert v.max() < 1.0
        assert abs(v.mean() - 0.5) < 0.01
        assert abs(v.std() - math.sqrt(1 / 12)) < 0.01
        # All of [0, 1) is covered: each tenth gets close to its share.
        counts = np.histogram(v, bins=10, range=(0, 1))[0]
        assert counts.min() > 0.09 * len(v)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + COMPLEX_DTYPES, ids=name)
def test_randn_moments(dtype):
    ember.manual_seed(4321)
    values = to_numpy(ember.randn(100_000, dtype=dtype)).astype(np.complex128 if dtype.is_complex else np.float64)
    tol = 0.02 if dtype not in (ember.float16, ember.bfloat16) else 0.03
    assert abs(values.mean()) < tol
    if dtype.is_complex:
        # Complex normal: E|z|^2 = 1, each part with variance 1/2.
        assert abs(np.mean(np.abs(values) ** 2) - 1) < tol
        assert abs(values.real.std() - math.sqrt(0.5)) < tol
    else:
        assert abs(values.std() - 1) < tol
        assert abs(np.mean(np.abs(values) < 1) - 0.6827) < 0.01  # the 68% rule
    assert np.isfinite(values).all()


@pytest.mark.parametrize("low, high", [(0, 2), (-3, 4), (5, 6), (-(2**40), 2**40)])
def test_randint_range(low, high):
    ember.manual_seed(7)
    t = ember.randint(low, high, (20_000,))
    assert t.dtype is ember.int64
    values = to_numpy(t)
    assert values.min() >= low and values.max() < high
    if high - low <= 10:
        assert set(values.tolist()) == set(range(low, high))


def test_randint_spellings():
    assert ember.randint(10, (3, 4)).shape == (3, 4)
    assert ember.randint(10, [5]).shape == (5,)
    assert ember.randint(3, 10, (2,)).shape == (2,)
    assert ember.randint(10, size=(3,)).shape == (3,)
    assert ember.randint(3, 10, size=(2, 2)).shape == (2, 2)
    assert ember.randint(low=3, high=10, size=(2, 2)).shape == (2, 2)
    t = ember.randint(0, 5, (100,), dtype=ember.int8)
    assert t.dtype is ember.int8 and 0 <= to_numpy(t).min() and to_numpy(t).max() < 5
    f = ember.randint(0, 5, (100,), dtype=ember.float32)
    assert f.dtype is ember.float32 and (to_numpy(f) == np.round(to_numpy(f))).all()
    b = ember.randint(0, 2, (100,), dtype=ember.bool)
    assert b.dtype is ember.bool and set(b.tolist()) == {True, False}
    if torch is not None:
        assert torch.randint(10, size=(3,)).shape == (3,)


def test_manual_seed_reproducibility():
    ember.manual_seed(42)
    a = ember.rand(10)
    b = ember.randn(3, 3)
    c = ember.randint(0, 100, (5,))
    ember.manual_seed(42)
    assert ember.equal(ember.rand(10), a)
    assert ember.equal(ember.randn(3, 3), b)
    assert ember.equal(ember.randint(0, 100, (5,)), c)
    assert not ember.equal(ember.rand(10), a)
    assert ember.initial_seed() == 42
    assert ember.manual_seed(42) is ember.default_generator


def test_generator_objects():
    g1 = ember.Generator()
    assert g1.manual_seed(5) is g1
    assert g1.initial_seed() == 5
    assert g1.device == ember.device("cpu")
    g2 = ember.Generator().manual_seed(5)
    a = ember.rand(20, generator=g1)
    b = ember.rand(20, generator=g2)
    assert ember.equal(a, b)
    # Private generators do not disturb the default one, and vice versa.
    ember.manual_seed(0)
    expected = ember.rand(5)
    ember.manual_seed(0)
    ember.randn(100, generator=g1)
    assert ember.equal(ember.rand(5), expected)
    assert not ember.equal(ember.rand(20, generator=ember.Generator().manual_seed(6)), a)
    assert ember.equal(
        ember.randint(0, 1000, (10,), generator=ember.Generator().manual_seed(9)),
        ember.randint(0, 1000, (10,), generator=ember.Generator().manual_seed(9)),
    )
    assert ember.equal(
        ember.randn(10, generator=ember.Generator().manual_seed(9)),
        ember.randn(10, generator=ember.Generator().manual_seed(9)),
    )


def test_generator_state_round_trip():
    g = ember.Generator().manual_seed(123)
    ember.rand(7, generator=g)
    state = g.get_state()
    assert state.dtype is ember.uint8 and state.dim() == 1
    first = ember.randn(50, generator=g)
    g.set_state(state)
    assert ember.equal(ember.randn(50, generator=g), first)
    # A state moves between generators, seed included.
    other = ember.Generator()
    other.set_state(state)
    assert other.initial_seed() == 123
    assert ember.equal(ember.randn(50, generator=other), first)
    # The default generator too.
    saved = ember.default_generator.get_state()
    x = ember.rand(5)
    ember.default_generator.set_state(saved)
    assert ember.equal(ember.rand(5), x)


def test_generator_set_state_rejects_garbage():
    g = ember.Generator()
    with pytest.raises(TypeError):
        g.set_state(ember.zeros(3))
    with pytest.raises(RuntimeError, match="CPUGeneratorImplState of size 5056"):
        g.set_state(ember.tensor([1, 2, 3], dtype=ember.uint8))


def test_seed_is_random_and_recorded():
    seeds = set()
    for _ in range(20):  # seeds above 2^63 come up about half the time
        g = ember.Generator()
        s = g.seed()
        seeds.add(s)
        assert 0 <= s < 2**64 and g.initial_seed() == s
        assert ember.equal(ember.rand(4, generator=g), ember.rand(4, generator=ember.Generator().manual_seed(s)))
    assert len(seeds) == 20


def test_seed_range():
    # Any integer in [-2^63, 2^64): negative seeds wrap around, as in torch.
    for seed, expected in [(0, 0), (2**64 - 1, 2**64 - 1), (-1, 2**64 - 1), (-(2**63), 2**63), (np.int64(5), 5)]:
        assert ember.Generator().manual_seed(seed).initial_seed() == expected
        if torch is not None and not isinstance(seed, np.integer):
            assert torch.Generator().manual_seed(seed).initial_seed() == expected
    with pytest.raises(OverflowError):
        ember.manual_seed(2**64)
    with pytest.raises(TypeError):
        ember.manual_seed(1.5)
    assert ember.equal(
        ember.rand(3, generator=ember.Generator().manual_seed(-1)),
        ember.rand(3, generator=ember.Generator().manual_seed(2**64 - 1)),
    )
    ember.manual_seed(0)


def test_random_fills_follow_memory_order():
    # As torch's TensorIterator: a fill visits the elements in memory order,
    # so a transposed tensor holds in memory what a contiguous one would.
    a = ember.empty(4, 3).t()
    a.uniform_(generator=ember.Generator().manual_seed(3))
    b = ember.rand(4, 3, generator=ember.Generator().manual_seed(3))
    assert ember.equal(a, b.t())


def test_in_place_random_fills():
    g = ember.Generator().manual_seed(1)
    t = ember.empty(10_000, dtype=ember.float64)
    assert t.uniform_(-2, 3, generator=g) is t
    v = to_numpy(t)
    assert v.min() >= -2 and v.max() < 3 and abs(v.mean() - 0.5) < 0.1
    assert t.normal_(10, 2, generator=g) is t
    v = to_numpy(t)
    assert abs(v.mean() - 10) < 0.1 and abs(v.std() - 2) < 0.1
    i = ember.empty(1000, dtype=ember.int32)
    assert i.random_(5, generator=g) is i
    assert set(i.tolist()) == set(range(5))
    i.random_(-3, 3)
    assert set(i.tolist()) == set(range(-3, 3))


def test_large_blocks_are_reused_with_correct_contents():
    # Freed large buffers are cached and handed out again: results must not see old data.
    for i in range(5):
        z = ember.zeros(1 << 20)
        assert float(z.abs().sum()) == 0.0
        f = ember.full((1 << 20,), float(i))
        assert float(f.sum()) == float(i) * (1 << 20)
        del z, f
