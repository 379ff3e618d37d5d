"""copy_, dtype and device conversions, clone, the conjugate bit, and the
Python number protocol (item, tolist, int(), float(), ...)."""

import math
import operator

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
    make,
    name,
    to_numpy,
    torch,
    torch_dtype,
)

# torch warns when a copy drops imaginary parts; Ember does it silently.
pytestmark = pytest.mark.filterwarnings("ignore:Casting complex values to real:UserWarning")

# Values every dtype holds exactly (bfloat16 and float16 included): the
# results of a conversion are then exact too. Conversions that are undefined
# in C++ (negative or out-of-range floats to unsigned, say) are left out,
# as they are implementation-defined in NumPy and torch as well.
NONNEG = [0.0, 1.0, 2.0, 3.0, 7.0, 100.0, 127.0, 5.0, 0.0, 64.0, 1.0, 126.0]
FRACTIONS = [0.5, 1.5, 2.75, 0.25, 7.5, 100.5, 12.75, 0.5, 3.0, 64.5, 1.125, 0.0]
NEGATIVE = [0.0, -1.0, 2.0, -3.5, 7.25, -100.0, 127.0, -128.0, -0.5, 64.0, -1.75, 0.0]


def source_values(src, dst):
    """Values for a src -> dst conversion that all three libraries agree on."""
    signed_ok = name(dst) not in ("uint8", "bool") and name(src) not in ("uint8", "bool")
    values = np.array(NEGATIVE if signed_ok else NONNEG, dtype=np.float64)
    if src.is_floating_point or src.is_complex:
        fractions = np.array(FRACTIONS)
        values = np.where(np.arange(12) % 3 == 0, fractions, values)
    if not (src.is_floating_point or src.is_complex):
        values = np.trunc(values)
    if src is ember.bool:
        values = (values != 0).astype(np.float64)
    if src.is_complex:
        # Imaginary parts: complex -> real must drop them, -> bool must see them.
        imag = np.array([0.0, 1.0, 0.0, -2.5, 0.0, 0.0, 3.0, 0.0, 1.0, 0.0, 0.0, 0.5])
        values = values + 1j * imag
    return values


def numpy_of(values, dtype):
    """`values` as ember's `dtype` holds them, in NumPy (float32 for bfloat16)."""
    np_dtype = NUMPY_DTYPES[name(dtype)] or np.dtype(np.float32)
    if np.iscomplexobj(values) and not dtype.is_complex and dtype is not ember.bool:
        values = values.real  # what Tensor.to() does
    return values.astype(np_dtype)


def ember_of(values, dtype):
    return ember.tensor(values.tolist(), dtype=dtype)


@pytest.mark.parametrize("src", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=name)
def test_copy_between_all_dtypes(src, dst):
    values = source_values(src, dst)
    source = ember_of(values, src)
    expected = numpy_of(values, dst)
    # copy_ into contiguous, strided and transposed destinations.
    out = ember.empty(12, dtype=dst)
    assert out.copy_(source) is out
    assert_equal(out, expected, dtype=dst)
    strided = ember.zeros(24, dtype=dst)[::2]
    strided.copy_(source)
    assert_equal(strided, expected)
    matrix = ember.zeros(4, 3, dtype=dst).t()
    matrix.copy_(source.view(3, 4))
    assert_equal(matrix, expected.reshape(3, 4))
    # to(dtype) and the same through a non-contiguous source.
    assert_equal(source.to(dst), expected, dtype=dst)
    assert_equal(source.view(4, 3).t().to(dst), expected.reshape(4, 3).T, dtype=dst)
    if torch is not None:
        tt = torch.tensor(values.tolist()).to(torch_dtype(src)).to(torch_dtype(dst))
        got = to_numpy(out)
        want = tt.float().numpy() if tt.dtype == torch.bfloat16 else tt.numpy()
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [ember.complex64], ids=name)
@pytest.mark.parametrize("int_dtype", INT_DTYPES, ids=name)
def test_float_to_int_truncates_toward_zero(dtype, int_dtype):
    values = [0.9, 1.5, 2.99, 100.7, 0.1]
    if int_dtype is not ember.uint8:
        values += [-0.9, -1.5, -2.99, -100.7]
    source = ember.tensor(values, dtype=dtype)
    rounded = [v.real if isinstance(v, complex) else v for v in source.tolist()]  # as the dtype holds them
    assert source.to(int_dtype).tolist() == [int(v) for v in rounded]
    np.testing.assert_array_equal(to_numpy(source.to(int_dtype)), np.array(rounded).astype(NUMPY_DTYPES[name(int_dtype)]))


def test_to_bool_tests_for_nonzero():
    assert ember.tensor([0.0, -0.0, 0.5, -2.0, float("nan"), float("inf")]).bool().tolist() == [
        False, False, True, True, True, True]
    assert ember.tensor([0j, 1j, 1 + 0j, -0.0 + 0j]).bool().tolist() == [False, True, True, False]
    assert ember.tensor([0, 1, -1, 255], dtype=ember.int16).bool().tolist() == [False, True, True, True]
    assert ember.tensor([0.0, 1e-3], dtype=ember.bfloat16).bool().tolist() == [False, True]


def test_special_float_values_survive_conversions():
    specials = [float("inf"), float("-inf"), -0.0, 65504.0, 1e-7]
    for dtype in FLOAT_DTYPES + COMPLEX_DTYPES:
        t = ember.tensor(specials, dtype=ember.float64).to(dtype)
        expected = np.array(specials, dtype=np.float64)
        if dtype is ember.float16:
            expected = expected.astype(np.float16)
        elif dtype is ember.bfloat16 and torch is not None:
            expected = torch.tensor(specials, dtype=torch.float64).bfloat16().double().numpy()
        elif dtype in (ember.float32, ember.complex64, ember.bfloat16):
            expected = expected.astype(np.float32)
        got = to_numpy(t).real.astype(np.float64)
        if dtype is not ember.bfloat16 or torch is not None:
            np.testing.assert_array_equal(got, expected.astype(np.float64))
        assert math.copysign(1, got[2]) == -1  # -0.0 keeps its sign
    nan = ember.tensor([float("nan")]).to(ember.float16).to(ember.bfloat16).to(ember.float64)
    assert math.isnan(nan.item())


def test_half_rounding_matches_numpy():
    values = np.array([1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 65519.0, 65520.0, 2.0**-25, 1.5 * 2.0**-24, 3.14159])
    with np.errstate(over="ignore"):  # 65520 rounds to inf
        assert_equal(ember.from_numpy(values).to(ember.float16), values.astype(np.float16))
    if torch is not None:
        bf = torch.from_numpy(values).bfloat16().float().numpy()
        assert_equal(ember.from_numpy(values).to(ember.bfloat16), bf)


# ---------------------------------------------------------------------------
# copy_ geometry
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("src_shape", [(4,), (1, 4), (3, 1), (), (1,), (3, 4)], ids=str)
def test_copy_broadcasts_source(src_shape):
    src_np = np.asarray(np.arange(int(np.prod(src_shape)), dtype=np.float32).reshape(src_shape) + 1)
    dst = ember.zeros(3, 4)
    dst.copy_(ember.from_numpy(src_np.copy()))
    np.testing.assert_array_equal(to_numpy(dst), np.broadcast_to(src_np, (3, 4)))
    if torch is not None:
        t = torch.zeros(3, 4)
        t.copy_(torch.from_numpy(src_np))
        np.testing.assert_array_equal(t.numpy(), to_numpy(dst))


def test_copy_rejects_a_larger_broadcast_shape():
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.zeros(3).copy_(ember.zeros(2, 3))
    with pytest.raises(RuntimeError, match="must match the size"):
        ember.zeros(3).copy_(ember.zeros(4))


def test_copy_into_overlapping_destination_is_an_error():
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.zeros(1).expand(3).copy_(ember.ones(3))
    with pytest.raises(RuntimeError, match="more than one element"):
        ember.zeros(1).expand(3).fill_(1)


@pytest.mark.parametrize(
    "dst, src",
    [
        (lambda a: a[1:], lambda a: a[:-1]),
        (lambda a: a[:-1], lambda a: a[1:]),
        (lambda a: a[2:], lambda a: a[:-2]),
        (lambda a: a[::2], lambda a: a[:5]),
        (lambda a: a[:5], lambda a: a[::2]),
        (lambda a: a[3:8], lambda a: a[1:6]),
        (lambda a: a, lambda a: a[:]),
    ],
)
def test_overlapping_self_copy(dst, src):
    e = ember.arange(10)
    a = np.arange(10)
    dst(e).copy_(src(e))
    dst(a)[...] = src(a).copy()
    assert e.tolist() == a.tolist()


def test_overlapping_self_copy_2d():
    e = ember.arange(9.0).view(3, 3)
    e.copy_(e.t())
    assert e.tolist() == np.arange(9.0).reshape(3, 3).T.tolist()
    e = ember.arange(12).view(3, 4)
    e[1:, 1:].copy_(e[:-1, :-1])
    a = np.arange(12).reshape(3, 4)
    a[1:, 1:] = a[:-1, :-1].copy()
    assert e.tolist() == a.tolist()
    if torch is not None:
        t = torch.arange(9.0).view(3, 3)
        t.copy_(t.t().clone())
        assert t.tolist() == ember.arange(9.0).view(3, 3).t().tolist()


def test_copy_from_itself_is_a_no_op():
    e = ember.arange(5)
    assert e.copy_(e) is e
    assert e.copy_(e[:]) is e
    assert e.tolist() == [0, 1, 2, 3, 4]


# ---------------------------------------------------------------------------
# to(), conversion methods, clone
# ---------------------------------------------------------------------------

CONVERSION_METHODS = {
    "bool": ember.bool,
    "byte": ember.uint8,
    "char": ember.int8,
    "short": ember.int16,
    "int": ember.int32,
    "long": ember.int64,
    "half": ember.float16,
    "bfloat16": ember.bfloat16,
    "float": ember.float32,
    "double": ember.float64,
    "cfloat": ember.complex64,
    "cdouble": ember.complex128,
}


@pytest.mark.parametrize("method", list(CONVERSION_METHODS))
def test_conversion_methods(method):
    dtype = CONVERSION_METHODS[method]
    t = ember.tensor([[0, 1, 2], [3, 4, 5]], dtype=ember.int16)
    c = getattr(t, method)()
    assert c.dtype is dtype
    assert c.shape == (2, 3)
    expected = [[0, 1, 1], [1, 1, 1]] if dtype is ember.bool else [[0, 1, 2], [3, 4, 5]]
    assert c.tolist() == expected
    if dtype is ember.int16:
        assert c is t  # no conversion needed: the same tensor, as in torch
    else:
        assert not c._is_view_of(t)
    assert getattr(ember, name(dtype)) is dtype
    if torch is not None:
        assert name(getattr(torch.zeros(1, dtype=torch.int16), method)().dtype) == name(dtype)


def test_dtype_aliases():
    assert ember.half is ember.float16 and ember.float is ember.float32 and ember.double is ember.float64
    assert ember.short is ember.int16 and ember.int is ember.int32 and ember.long is ember.int64
    assert ember.cfloat is ember.complex64 and ember.cdouble is ember.complex128


def test_to_spellings():
    t = ember.arange(6).view(2, 3)
    assert t.to(ember.int64) is t
    assert t.to("cpu") is t and t.cpu() is t
    assert t.to(ember.device("cpu"), ember.int64) is t
    copy = t.to(ember.int64, copy=True)
    assert copy is not t and not copy._is_view_of(t) and copy.tolist() == t.tolist()
    assert t.to(ember.float64).dtype is ember.float64
    assert t.to(dtype=ember.float16).dtype is ember.float16
    assert t.to(float).dtype is ember.float64
    assert t.to(bool).dtype is ember.bool
    assert t.to(complex).dtype is ember.complex128
    assert t.to("cpu", ember.int8).dtype is ember.int8
    assert t.to(device="cpu", dtype=ember.int8).dtype is ember.int8
    other = ember.zeros(1, dtype=ember.float16)
    assert t.to(other).dtype is ember.float16
    assert t.type_as(other).dtype is ember.float16
    assert t.to(ember.float32, non_blocking=True).dtype is ember.float32
    m = t.to("meta")
    assert m.is_meta and m.shape == (2, 3) and m.dtype is ember.int64
    assert t.to(device="meta", dtype=ember.float32).dtype is ember.float32
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        t.to(ember.float32, colour="red")
    with pytest.raises(RuntimeError, match="cuda"):
        t.to("cuda")
    with pytest.raises(RuntimeError, match="cuda"):
        t.to(0)


def test_to_keeps_dense_layouts():
    t = ember.arange(12).view(3, 4).t()
    f = t.to(ember.float32)
    assert f.stride() == t.stride() == (1, 4)
    assert f.tolist() == t.tolist()
    if torch is not None:
        assert torch.arange(12).view(3, 4).t().float().stride() == f.stride()


CLONE_LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.transpose(0, 2),
    "permuted": lambda x: x.permute(1, 2, 0),
    "sliced": lambda x: x[:, ::2],
    "transposed_sliced": lambda x: x.transpose(1, 2)[:, ::2],
    "permuted_narrowed": lambda x: x.permute(2, 0, 1)[1:3],
    "expanded": lambda x: x[:, :1].expand(2, 3, 4),
    "expanded_transposed": lambda x: x[:1].expand(5, 3, 4).transpose(0, 2),
    "size_one": lambda x: x[:1, :, :1],
    "empty": lambda x: x[:, :0].transpose(0, 1),
}


@pytest.mark.parametrize("layout", list(CLONE_LAYOUTS))
def test_clone_preserves_layout_like_torch(layout):
    op = CLONE_LAYOUTS[layout]
    e = op(ember.arange(24.0).view(2, 3, 4))
    c = e.clone()
    assert not c._is_view_of(e) or e.numel() == 0
    assert c.shape == e.shape
    assert c.tolist() == e.tolist()
    c.fill_(-1)
    assert e.numel() == 0 or (to_numpy(e) != -1).all()
    assert ember.empty_like(e).stride() == c.stride()
    if torch is not None:
        t = op(torch.arange(24.0).view(2, 3, 4))
        assert c.stride() == t.clone().stride()
        assert ember.empty_like(e).stride() == torch.empty_like(t).stride()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_clone_all_dtypes(dtype):
    t, values = make(name(dtype), (3, 4), seed=3)
    c = t.t().clone()
    assert c.dtype is dtype and c.stride() == (1, 4)
    np.testing.assert_array_equal(to_numpy(c), values.T)
    assert ember.equal(c, t.t())


# ---------------------------------------------------------------------------
# The conjugate bit
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES, ids=name)
def test_conj_is_lazy(dtype):
    values = np.array([1 + 2j, -3 - 4j, 5j, 6], dtype=NUMPY_DTYPES[name(dtype)])
    z = ember.from_numpy(values.copy())
    c = z.conj()
    assert c.is_conj() and not z.is_conj()
    assert c._is_view_of(z) and c.data_ptr() == z.data_ptr()
    assert c.tolist() == np.conj(values).tolist()
    assert [c[i].item() for i in range(4)] == np.conj(values).tolist()
    assert c.conj().is_conj() is False and c.conj().tolist() == values.tolist()
    r = c.resolve_conj()
    assert not r.is_conj() and not r._is_view_of(z)
    assert r.numpy().tolist() == np.conj(values).tolist()
    assert z.resolve_conj() is z
    # The conj bit survives views and is dropped by copies.
    assert c[1:].is_conj() and c.t().is_conj() and c.view(2, 2).is_conj()
    assert c.view(2, 2).tolist() == np.conj(values).reshape(2, 2).tolist()
    assert c.contiguous() is c  # already contiguous: the conj bit stays
    for copy in (c.clone(), c.resolve_conj(), c.to(ember.complex128, copy=True), ember.tensor(c)):
        assert not copy.is_conj()
        assert copy.tolist() == np.conj(values).tolist()
    assert c.to(ember.float64).tolist() == values.real.tolist()
    assert ember.equal(c, ember.from_numpy(np.conj(values)))
    if torch is not None:
        tc = torch.from_numpy(values.copy()).conj()
        assert tc.is_conj() and not tc.clone().is_conj()
        assert tc.tolist() == c.tolist()


def test_conj_of_real_tensor_is_itself():
    t = ember.arange(3.0)
    assert t.conj() is t and not t.is_conj()
    if torch is not None:
        x = torch.arange(3.0)
        assert x.conj() is x


def test_writes_through_conj_views():
    z = ember.tensor([1 + 1j, 2 + 2j, 3 + 3j])
    c = z.conj()
    c[0] = 5 + 6j
    assert z[0].item() == 5 - 6j
    c[1:].copy_(ember.tensor([7j, 8.0 + 0j]))
    assert z.tolist() == [5 - 6j, -7j, 8 + 0j]
    c.fill_(1 - 1j)
    assert z.tolist() == [1 + 1j] * 3
    z.copy_(c)  # z = conj(z), through the aliasing conj view
    assert z.tolist() == [1 - 1j] * 3
    z.copy_(ember.tensor([1 + 2j, 3 + 4j, 5 + 6j]).conj())
    assert z.tolist() == [1 - 2j, 3 - 4j, 5 - 6j]


def test_conj_in_numpy_and_dlpack_needs_resolving():
    c = ember.tensor([1 + 1j]).conj()
    with pytest.raises(RuntimeError, match="conjugate bit"):
        c.numpy()
    assert c.numpy(force=True).tolist() == [1 - 1j]
    assert c.resolve_conj().numpy().tolist() == [1 - 1j]
    with pytest.raises(RuntimeError, match="conjugate bit"):
        np.from_dlpack(c)


# ---------------------------------------------------------------------------
# item / tolist / Python numbers
# ---------------------------------------------------------------------------

PYTHON_TYPE = {"bool": bool, "complex64": complex, "complex128": complex}


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_item_and_tolist_all_dtypes(dtype):
    t, values = make(name(dtype), (2, 3), seed=5)
    py_type = PYTHON_TYPE.get(name(dtype), float if (dtype.is_floating_point) else int)
    listed = t.tolist()
    assert listed == values.tolist()
    assert all(type(v) is py_type for row in listed for v in row)
    item = t[1, 2].item()
    assert type(item) is py_type and item == values[1, 2].item()
    assert type(t[0, 0].tolist()) is py_type
    assert t.t().tolist() == values.T.tolist()
    assert t[:, ::2].tolist() == values[:, ::2].tolist()
    assert t[:0].tolist() == [] and t[:, :0].tolist() == [[], []]
    assert ember.tensor(values[0, 0].item(), dtype=dtype).item() == values[0, 0].item()
    if torch is not None:
        tt = torch.tensor(values.tolist(), dtype=torch_dtype(dtype))
        assert tt.tolist() == listed
        assert type(tt[1, 2].item()) is py_type


def test_item_precision():
    assert ember.tensor(2**62 + 1).item() == 2**62 + 1
    assert ember.tensor(-(2**63)).item() == -(2**63)
    assert ember.tensor(0.1, dtype=ember.float64).item() == 0.1
    assert ember.tensor(0.1).item() == float(np.float32(0.1))
    assert ember.tensor(1 / 3, dtype=ember.float16).item() == float(np.float16(1 / 3))
    assert ember.tensor(255, dtype=ember.uint8).item() == 255
    assert ember.tensor(-128, dtype=ember.int8).item() == -128
    assert ember.tensor([[7]]).item() == 7


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_python_number_protocol(dtype):
    t = ember.tensor([3], dtype=dtype)  # one element, any number of dims
    three = 1 if dtype is ember.bool else 3
    assert int(t) == three and type(int(t)) is int
    assert float(t) == three and type(float(t)) is float
    assert complex(t) == three + 0j
    assert bool(t) is True and bool(ember.zeros(1, 1, dtype=dtype)) is False
    if dtype.is_floating_point or dtype.is_complex:
        with pytest.raises(TypeError, match="only integer tensors"):
            operator.index(t)
    else:
        assert operator.index(t) == three
        assert [10, 11, 12, 13][t] == 10 + three
        assert range(10)[ember.tensor(1, dtype=dtype):].start == 1
    if torch is not None:
        tt = torch.tensor([3], dtype=torch_dtype(dtype))
        assert int(tt) == int(t) and float(tt) == float(t) and bool(tt) == bool(t)


def test_int_and_float_follow_python_rules():
    assert int(ember.tensor(-2.7)) == -2
    assert int(ember.tensor(2.7, dtype=ember.float16)) == 2
    assert float(ember.tensor(2**53 + 1)) == float(2**53 + 1)
    assert int(ember.tensor(1 + 0j)) == 1 and float(ember.tensor(2.5 + 0j)) == 2.5
    assert math.isnan(float(ember.tensor(float("nan"))))
    assert f"{ember.tensor(2.5):.3f}" == "2.500"
    assert f"{ember.tensor(7):>3}" == "  7"
    cases = [
        (lambda m: int(m.tensor(float("nan"))), ValueError),
        (lambda m: int(m.tensor(float("inf"))), OverflowError),
        (lambda m: int(m.tensor(1 + 1j)), RuntimeError),
        (lambda m: float(m.tensor(1 + 1j)), RuntimeError),
        (lambda m: int(m.tensor([1, 2])), ValueError),
        (lambda m: float(m.tensor([])), ValueError),
        (lambda m: complex(m.tensor([1j, 2j])), ValueError),
        (lambda m: bool(m.tensor([1, 2])), RuntimeError),
        (lambda m: bool(m.tensor([])), RuntimeError),
        (lambda m: m.tensor([1, 2]).item(), RuntimeError),
    ]
    for f, error in cases:
        with pytest.raises(error):
            f(ember)
        if torch is not None:
            with pytest.raises(error):
                f(torch)


def test_equal():
    a = ember.arange(6).view(2, 3)
    assert ember.equal(a, a.clone())
    assert ember.equal(a, a.double())  # dtypes may differ
    assert ember.equal(a.t(), a.t().contiguous())
    assert not ember.equal(a, a.view(3, 2))
    assert not ember.equal(a, ember.zeros_like(a))
    assert ember.equal(ember.tensor([0.0]), ember.tensor([-0.0]))
    assert not ember.equal(ember.tensor([float("nan")]), ember.tensor([float("nan")]))


# ---- transposed and broadcast copies (the copy kernels) ----------------------


@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(37, 53), (2, 300), (300, 2), (64, 64)])
def test_transposed_and_broadcast_copies(dtype, shape):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shape) * 10
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dtype)
    x = ember.tensor(a)
    np.testing.assert_array_equal(_np(x.t().contiguous()), a.T)
    np.testing.assert_array_equal(_np(x[:, :1].expand(*shape).contiguous()), np.broadcast_to(a[:, :1], shape))
    if dtype.startswith("complex"):
        np.testing.assert_array_equal(_np(x.conj().t().contiguous().resolve_conj()), a.conj().T)


def _np(t):
    return t.resolve_conj().numpy()
