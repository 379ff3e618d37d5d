"""Tests for python/ember/_tensor_str.py, using PyTorch's repr as the oracle.

The formatter module is loaded straight from its file, so these tests do not
need the compiled Ember extension (nor a working ``ember/__init__.py``).
Torch tensors are wrapped in a strict duck-typed proxy that exposes only the
interface the formatter is allowed to use.
"""

import importlib.util
import math
import os
import random
import time

import pytest

torch = pytest.importorskip("torch")

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_MODULE_PATH = os.path.join(_REPO, "python", "ember", "_tensor_str.py")


def _load_module():
    spec = importlib.util.spec_from_file_location("_ember_tensor_str_under_test", _MODULE_PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ts = _load_module()


# ---------------------------------------------------------------------------
# Strict duck-typed proxy around a torch tensor
# ---------------------------------------------------------------------------


class _Dtype:
    def __init__(self, dt, namespace="torch"):
        self._dt = dt
        self._namespace = namespace

    @property
    def is_floating_point(self):
        return self._dt.is_floating_point

    @property
    def is_complex(self):
        return self._dt.is_complex

    def __str__(self):
        return self._namespace + "." + str(self._dt).split(".")[-1]

    __repr__ = __str__


class _Device:
    def __init__(self, type_, index=None):
        self.type = type_
        self.index = index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


class _GradFn:
    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


class Proxy:
    """Exposes only the interface _tensor_str may use; anything else raises."""

    __slots__ = ("_t", "_ns", "_device")

    def __init__(self, t, namespace="torch", device=None):
        self._t = t
        self._ns = namespace
        self._device = device

    def dim(self):
        return self._t.dim()

    @property
    def shape(self):
        return tuple(self._t.shape)

    def numel(self):
        return self._t.numel()

    @property
    def dtype(self):
        return _Dtype(self._t.dtype, self._ns)

    def tolist(self):
        return self._t.tolist()

    def item(self):
        return self._t.item()

    def __getitem__(self, idx):
        assert isinstance(idx, (int, slice)), idx
        return Proxy(self._t[idx], self._ns, self._device)

    @property
    def device(self):
        if self._device is not None:
            return self._device
        d = self._t.device
        return _Device(d.type, d.index)

    @property
    def requires_grad(self):
        return self._t.requires_grad

    @property
    def grad_fn(self):
        g = self._t.grad_fn
        return None if g is None else _GradFn(g.name())


def _default_name():
    return str(torch.get_default_dtype()).split(".")[-1]


def ours(t, **kw):
    return ts.tensor_repr(Proxy(t), default_float_dtype_name=_default_name(), **kw)


def check(t):
    expected = repr(t)
    got = ours(t)
    assert got == expected, f"\n--- expected ---\n{expected}\n--- got ---\n{got}"
    assert str(t) == got


@pytest.fixture(autouse=True)
def _reset_state():
    old_default = torch.get_default_dtype()
    torch.set_printoptions(profile="default")
    ts.set_printoptions(profile="default")
    yield
    torch.set_default_dtype(old_default)
    torch.set_printoptions(profile="default")
    ts.set_printoptions(profile="default")


def both_set(**kw):
    torch.set_printoptions(**kw)
    ts.set_printoptions(**kw)


# ---------------------------------------------------------------------------
# Case generation
# ---------------------------------------------------------------------------

FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
COMPLEX_DTYPES = [torch.complex64, torch.complex128]
INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
ALL_DTYPES = [torch.bool] + INT_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES

SHAPES = [
    (), (1,), (5,), (17,), (40,), (3, 4), (1, 1), (2, 7), (6, 1), (2, 3, 4),
    (1, 2, 1), (3, 1, 5), (2, 2, 2, 2), (1, 3, 1, 2), (2, 1, 3, 4),
]
EMPTY_SHAPES = [(0,), (0, 3), (2, 0), (0, 0), (3, 0, 2), (1, 0, 1, 1)]
BIG_SHAPES = [(1001,), (2000,), (40, 30), (3, 400), (11, 10, 10), (5, 6, 7, 8), (1, 1200)]

FLOAT_KINDS = ["normal", "integral", "tiny", "huge", "mixed_scale", "special",
               "zeros", "negzero", "wide_int", "unit"]


def _float_values(rng, n, kind):
    if kind == "normal":
        vals = [rng.gauss(0, 1) for _ in range(n)]
    elif kind == "integral":
        vals = [float(rng.randint(-500, 500)) for _ in range(n)]
    elif kind == "tiny":
        vals = [rng.uniform(-1, 1) * 10 ** rng.uniform(-9, -5) for _ in range(n)]
    elif kind == "huge":
        vals = [rng.uniform(-1, 1) * 10 ** rng.uniform(5, 12) for _ in range(n)]
    elif kind == "mixed_scale":
        vals = [rng.uniform(-1, 1) * 10 ** rng.uniform(-3, 4) for _ in range(n)]
    elif kind == "special":
        pool = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1.0, -2.5, 1e-5, 3e4]
        vals = [rng.choice(pool) for _ in range(n)]
    elif kind == "zeros":
        vals = [0.0] * n
    elif kind == "negzero":
        vals = [rng.choice([-0.0, 0.0, 1.0, -3.0]) for _ in range(n)]
    elif kind == "wide_int":
        vals = [float(rng.choice([1, -7, 3000, 123456, 10 ** 9])) for _ in range(n)]
    else:  # unit
        vals = [round(rng.uniform(-1, 1), 2) for _ in range(n)]
    if n and kind not in ("special", "zeros") and rng.random() < 0.25:
        # sprinkle a few special values
        for _ in range(max(1, n // 10)):
            vals[rng.randrange(n)] = rng.choice([math.nan, math.inf, -math.inf, -0.0])
    return vals


def make_tensor(rng, shape, dtype, kind=None):
    n = 1
    for s in shape:
        n *= s
    if dtype == torch.bool:
        vals = [rng.random() < 0.5 for _ in range(n)]
    elif dtype in INT_DTYPES:
        info = torch.iinfo(dtype)
        scale = rng.choice([10, 1000, info.max])
        lo = max(info.min, -scale)
        hi = min(info.max, scale)
        vals = [rng.randint(lo, hi) for _ in range(n)]
    elif dtype in FLOAT_DTYPES:
        kind = kind or rng.choice(FLOAT_KINDS)
        vals = _float_values(rng, n, kind)
    else:
        kind = kind or rng.choice(FLOAT_KINDS)
        kind2 = rng.choice(FLOAT_KINDS)
        re = _float_values(rng, n, kind)
        im = _float_values(rng, n, kind2)
        vals = [complex(a, b) for a, b in zip(re, im)]
    t = torch.tensor(vals, dtype=dtype)
    return t.reshape(shape)


def _case_ids(prefix, count):
    return [f"{prefix}{i}" for i in range(count)]


# ---------------------------------------------------------------------------
# Randomized comparisons against torch
# ---------------------------------------------------------------------------

N_RANDOM = 240


@pytest.mark.parametrize("seed", range(N_RANDOM))
def test_random_small(seed):
    rng = random.Random(seed)
    dtype = ALL_DTYPES[seed % len(ALL_DTYPES)]
    shape = rng.choice(SHAPES)
    check(make_tensor(rng, shape, dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("kind", FLOAT_KINDS)
def test_every_value_kind(dtype, kind):
    rng = random.Random(f"{dtype}-{kind}")
    for shape in [(), (7,), (3, 5)]:
        check(make_tensor(rng, shape, dtype, kind))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", EMPTY_SHAPES, ids=str)
def test_empty(dtype, shape):
    check(torch.empty(shape, dtype=dtype))


@pytest.mark.parametrize("seed", range(30))
def test_summarized(seed):
    rng = random.Random(1000 + seed)
    dtype = ALL_DTYPES[seed % len(ALL_DTYPES)]
    shape = BIG_SHAPES[seed % len(BIG_SHAPES)]
    check(make_tensor(rng, shape, dtype))


OPTION_SETS = [
    dict(precision=2),
    dict(precision=0),
    dict(precision=8),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(linewidth=40),
    dict(linewidth=120),
    dict(threshold=5),
    dict(threshold=5, edgeitems=1),
    dict(threshold=5, edgeitems=0),
    dict(threshold=0),
    dict(profile="full"),
    dict(profile="short"),
    dict(profile="short", precision=6, sci_mode=True),
    dict(linewidth=30, precision=3, sci_mode=False),
]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_printoptions_variants(opts):
    both_set(**opts)
    assert ts.get_printoptions() == torch._tensor_str.get_printoptions()
    rng = random.Random(str(opts))
    for i in range(14):
        dtype = ALL_DTYPES[i % len(ALL_DTYPES)]
        shape = rng.choice(SHAPES + [(12,), (2, 9), (30,)])
        check(make_tensor(rng, shape, dtype))
    # a couple that summarize under the default threshold too
    check(make_tensor(rng, (1500,), torch.float32, "normal"))
    check(make_tensor(rng, (4, 300), torch.int32))


def test_full_profile_large():
    both_set(profile="full")
    rng = random.Random(5)
    check(make_tensor(rng, (1200,), torch.float32, "normal"))
    check(make_tensor(rng, (30, 50), torch.int64))


@pytest.mark.parametrize("seed", range(20))
def test_default_dtype_float64(seed):
    torch.set_default_dtype(torch.float64)
    rng = random.Random(2000 + seed)
    dtype = ALL_DTYPES[seed % len(ALL_DTYPES)]
    shape = rng.choice(SHAPES)
    check(make_tensor(rng, shape, dtype))
    check(torch.empty((0,), dtype=dtype))


def test_default_dtype_float64_basic():
    torch.set_default_dtype(torch.float64)
    check(torch.tensor([1.0, 2.0]))
    check(torch.tensor([1.0, 2.0], dtype=torch.float32))
    check(torch.tensor([1 + 1j], dtype=torch.complex128))
    check(torch.tensor([1 + 1j], dtype=torch.complex64))
    check(torch.empty(2, 3, device="meta"))
    check(torch.empty(2, 3, device="meta", dtype=torch.float32))


# ---------------------------------------------------------------------------
# Autograd suffixes
# ---------------------------------------------------------------------------


def test_requires_grad_and_grad_fn():
    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    check(x)
    check(x * 2)
    check(x + 1)
    check(x.sum())
    check(x[0])
    check(x.double().exp())
    check(torch.randn(2, 3, 4, requires_grad=True).mean(dim=0))
    check(torch.zeros(0, 2, requires_grad=True))
    check(torch.tensor(1.5, requires_grad=True))
    check(torch.randn(2000, requires_grad=True))
    c = torch.randn(3, dtype=torch.complex64, requires_grad=True)
    check(c)
    check(c * 2)


def test_suffix_wrapping_long_line():
    # The suffix goes onto a new line when the last line would be too long.
    torch.manual_seed(1)
    check(torch.randn(7, dtype=torch.float64, requires_grad=True))
    check(torch.randn(8, dtype=torch.float64, requires_grad=True) * 3)
    check(torch.arange(20, dtype=torch.int32))
    check(torch.arange(22, dtype=torch.int16))
    both_set(linewidth=50)
    check(torch.randn(5, 2, dtype=torch.float16, requires_grad=True) + 1)


# ---------------------------------------------------------------------------
# Hand-picked cases
# ---------------------------------------------------------------------------

HAND_PICKED = [
    lambda: torch.tensor([1.0, 2.0]),
    lambda: torch.tensor(3.5),
    lambda: torch.tensor(-0.0),
    lambda: torch.tensor(math.nan),
    lambda: torch.tensor(-math.inf),
    lambda: torch.tensor(True),
    lambda: torch.tensor(7, dtype=torch.uint8),
    lambda: torch.tensor(1 - 0.0j),
    lambda: torch.tensor(complex(math.nan, math.inf)),
    lambda: torch.tensor([1 + 2j, 3 - 4j]),
    lambda: torch.tensor([1e-8 + 1j, 2 + 3j]),
    lambda: torch.tensor([complex(0, -0.0), complex(-0.0, 0)]),
    lambda: torch.tensor([1, 2], dtype=torch.int32),
    lambda: torch.tensor([True, False]),
    lambda: torch.tensor([0.0, math.nan]),
    lambda: torch.tensor([math.nan, 1.0]),
    lambda: torch.tensor([math.inf, -math.inf]),
    lambda: torch.tensor([-0.0, 1.0]),
    lambda: torch.tensor([1e-6, 1.0, math.nan]),
    lambda: torch.tensor([1.0, 1000.0]),
    lambda: torch.tensor([1.0, 1001.0]),
    lambda: torch.tensor([1e8]),
    lambda: torch.tensor([1.0000001e8]),
    lambda: torch.tensor([1e-4, 1.5]),
    lambda: torch.tensor([0.99e-4, 1.5]),
    lambda: torch.tensor([65504.0, -65504.0], dtype=torch.float16),
    lambda: torch.tensor([1e38, -3e38], dtype=torch.bfloat16),
    lambda: torch.tensor([0.1, 0.2, 0.3], dtype=torch.bfloat16),
    lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float16),
    lambda: torch.arange(10000),
    lambda: torch.arange(10000.0).reshape(100, 100),
    lambda: torch.arange(24).reshape(2, 3, 4),
    lambda: torch.arange(2 * 3 * 4 * 5.0).reshape(2, 3, 4, 5) / 7,
    lambda: torch.arange(8 * 8 * 8 * 8).reshape(8, 8, 8, 8),
    lambda: torch.linspace(-1, 1, 50),
    lambda: torch.iinfo(torch.int64).min + torch.zeros(3, dtype=torch.int64),
    lambda: torch.tensor([-128, 127], dtype=torch.int8),
    lambda: torch.zeros(2, 3, device="meta"),
    lambda: torch.zeros((), device="meta"),
    lambda: torch.zeros(0, device="meta", dtype=torch.int64),
    lambda: torch.zeros(4, device="meta", dtype=torch.complex64),
]


@pytest.mark.parametrize("i", range(len(HAND_PICKED)))
def test_hand_picked(i):
    check(HAND_PICKED[i]())


def test_documented_examples():
    T = torch.tensor
    assert ours(T([1.0, 2.0])) == "tensor([1., 2.])"
    assert ours(T([1, 2], dtype=torch.int32)) == "tensor([1, 2], dtype=torch.int32)"
    assert ours(T(3.5)) == "tensor(3.5000)"
    assert ours(torch.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert ours(T([1.0, 2.0], requires_grad=True)) == "tensor([1., 2.], requires_grad=True)"
    assert ours(T([1.0], requires_grad=True) + 1) == "tensor([2.], grad_fn=<AddBackward0>)"
    assert ours(torch.zeros(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"
    assert ours(T([1 + 2j, 3 - 4j])) == "tensor([1.+2.j, 3.-4.j])"


# ---------------------------------------------------------------------------
# Interface-level behaviour that torch on CPU cannot show directly
# ---------------------------------------------------------------------------


def test_dtype_printed_verbatim():
    t = torch.tensor([1, 2], dtype=torch.int32)
    got = ts.tensor_repr(Proxy(t, namespace="ember"))
    assert got == "tensor([1, 2], dtype=ember.int32)"
    t = torch.tensor([1.0, 2.0])
    assert ts.tensor_repr(Proxy(t, namespace="ember")) == "tensor([1., 2.])"
    assert (
        ts.tensor_repr(Proxy(t, namespace="ember"), default_float_dtype_name="float64")
        == "tensor([1., 2.], dtype=ember.float32)"
    )


def test_device_suffix():
    t = torch.tensor([1.0, 2.0])
    got = ts.tensor_repr(Proxy(t, device=_Device("cuda", 0)))
    assert got == "tensor([1., 2.], device='cuda:0')"
    t = torch.tensor([1, 2], dtype=torch.int32, requires_grad=False)
    got = ts.tensor_repr(Proxy(t, device=_Device("cuda", 1)))
    assert got == "tensor([1, 2], device='cuda:1', dtype=torch.int32)"
    x = torch.tensor([1.0], requires_grad=True)
    got = ts.tensor_repr(Proxy(x, device=_Device("cuda", 0)))
    assert got == "tensor([1.], device='cuda:0', requires_grad=True)"
    assert ts.tensor_repr(Proxy(torch.zeros(0), device=_Device("cuda", 0))) == (
        "tensor([], device='cuda:0')"
    )


def test_custom_prefix():
    t = torch.arange(6.0).reshape(2, 3)
    assert ts.tensor_repr(Proxy(t), prefix="Parameter(") == (
        "Parameter([[0., 1., 2.],\n           [3., 4., 5.]])"
    )


def test_printoptions_api():
    assert ts.get_printoptions() == {
        "precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None,
    }
    for kw in [dict(profile="short"), dict(profile="full"), dict(profile="full", edgeitems=5),
               dict(precision=3, sci_mode=True), dict(profile="bogus"), dict(linewidth=20),
               dict(profile="default")]:
        both_set(**kw)
        assert ts.get_printoptions() == torch._tensor_str.get_printoptions()

    both_set(profile="default")
    with ts.printoptions(precision=2, sci_mode=True):
        assert ts.get_printoptions()["precision"] == 2
        assert ts.get_printoptions()["sci_mode"] is True
        with torch._tensor_str.printoptions(precision=2, sci_mode=True):
            check(torch.tensor([1.2345, 2.0]))
    assert ts.get_printoptions() == torch._tensor_str.get_printoptions()
    # the context manager restores options even on error
    with pytest.raises(ZeroDivisionError):
        with ts.printoptions(linewidth=10):
            1 / 0
    assert ts.get_printoptions()["linewidth"] == 80
    # get_printoptions returns a copy
    ts.get_printoptions()["precision"] = 99
    assert ts.get_printoptions()["precision"] == 4


class _NoTolistOnBig(Proxy):
    """Fails if tolist() is called on anything but a small piece."""

    __slots__ = ()

    def tolist(self):
        assert self._t.numel() <= 64, f"tolist() on {self._t.numel()} elements"
        return self._t.tolist()

    def __getitem__(self, idx):
        return _NoTolistOnBig(self._t[idx])


def test_large_tensor_is_fast_and_sliced():
    big = torch.arange(10 ** 7, dtype=torch.float32)
    start = time.perf_counter()
    got = ts.tensor_repr(_NoTolistOnBig(big))
    assert time.perf_counter() - start < 1.0
    assert got == repr(big)
    big4 = torch.zeros(100, 10, 100, 10, dtype=torch.int32)
    assert ts.tensor_repr(_NoTolistOnBig(big4)) == repr(big4)
