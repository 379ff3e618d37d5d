"""repr/str of tensors (pinned with expecttest, and compared with torch's for
many random tensors), ember.Size, dtype and device objects, and pickling."""

import copy
import pickle

import numpy as np
import pytest
from expecttest import TestCase

import ember
from ember_testing import ALL_DTYPES, DTYPE_NAMES, name, to_torch, torch


class TestTensorRepr(TestCase):
    def test_dtype_suffixes(self):
        self.assertExpectedInline(repr(ember.tensor([1, 2])), """tensor([1, 2])""")
        self.assertExpectedInline(repr(ember.tensor([1, 2], dtype=ember.int32)), """tensor([1, 2], dtype=ember.int32)""")
        self.assertExpectedInline(repr(ember.tensor([1, 2], dtype=ember.uint8)), """tensor([1, 2], dtype=ember.uint8)""")
        self.assertExpectedInline(repr(ember.tensor([True, False])), """tensor([ True, False])""")
        self.assertExpectedInline(repr(ember.tensor([1.5, 2])), """tensor([1.5000, 2.0000])""")
        self.assertExpectedInline(
            repr(ember.tensor([1.5, 2], dtype=ember.float64)), """tensor([1.5000, 2.0000], dtype=ember.float64)"""
        )
        self.assertExpectedInline(
            repr(ember.tensor([1.5, 2], dtype=ember.float16)), """tensor([1.5000, 2.0000], dtype=ember.float16)"""
        )
        self.assertExpectedInline(
            repr(ember.tensor([1.5, 2], dtype=ember.bfloat16)), """tensor([1.5000, 2.0000], dtype=ember.bfloat16)"""
        )
        self.assertExpectedInline(repr(ember.tensor([1 + 2j, -1j])), """tensor([1.+2.j, -0.-1.j])""")
        self.assertExpectedInline(
            repr(ember.tensor([1 + 2j], dtype=ember.complex128)), """tensor([1.+2.j], dtype=ember.complex128)"""
        )

    def test_default_dtype_changes_suffixes(self):
        saved = ember.get_default_dtype()
        ember.set_default_dtype(ember.float64)
        try:
            self.assertExpectedInline(repr(ember.tensor([0.5])), """tensor([0.5000])""")
            self.assertExpectedInline(
                repr(ember.tensor([0.5], dtype=ember.float32)), """tensor([0.5000], dtype=ember.float32)"""
            )
            self.assertExpectedInline(repr(ember.tensor([1j])), """tensor([0.+1.j])""")
        finally:
            ember.set_default_dtype(saved)

    def test_0d_empty_and_meta(self):
        self.assertExpectedInline(repr(ember.tensor(3)), """tensor(3)""")
        self.assertExpectedInline(repr(ember.tensor(-0.25)), """tensor(-0.2500)""")
        self.assertExpectedInline(repr(ember.tensor(True)), """tensor(True)""")
        self.assertExpectedInline(repr(ember.zeros(0)), """tensor([])""")
        self.assertExpectedInline(repr(ember.zeros(2, 0)), """tensor([], size=(2, 0))""")
        self.assertExpectedInline(repr(ember.zeros(0, dtype=ember.int64)), """tensor([], dtype=ember.int64)""")
        self.assertExpectedInline(repr(ember.empty(2, 3, device="meta")), """tensor(..., device='meta', size=(2, 3))""")
        self.assertExpectedInline(
            repr(ember.empty((), device="meta", dtype=ember.int8)),
            """tensor(..., device='meta', size=(), dtype=ember.int8)""",
        )

    def test_requires_grad(self):
        self.assertExpectedInline(repr(ember.tensor(2.5, requires_grad=True)), """tensor(2.5000, requires_grad=True)""")
        self.assertExpectedInline(
            repr(ember.ones(2, 2, dtype=ember.float64, requires_grad=True)),
            """\
tensor([[1., 1.],
        [1., 1.]], dtype=ember.float64, requires_grad=True)""",
        )

    def test_matrices_and_views(self):
        t = ember.arange(12).view(3, 4)
        self.assertExpectedInline(
            repr(t.t()),
            """\
tensor([[ 0,  4,  8],
        [ 1,  5,  9],
        [ 2,  6, 10],
        [ 3,  7, 11]])""",
        )
        self.assertExpectedInline(
            str(ember.tensor([[1e-8, 1.0], [123.0, -4.5]])),
            """\
tensor([[ 1.0000e-08,  1.0000e+00],
        [ 1.2300e+02, -4.5000e+00]])""",
        )
        self.assertExpectedInline(
            repr(ember.tensor([1 + 1j, 2 - 2j]).conj()), """tensor([1.-1.j, 2.+2.j])"""
        )

    def test_large_tensors_are_summarized(self):
        self.assertExpectedInline(repr(ember.arange(2000)), """tensor([   0,    1,    2,  ..., 1997, 1998, 1999])""")
        self.assertExpectedInline(
            repr(ember.arange(40 * 30, dtype=ember.float64).view(40, 30)),
            """\
tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 2.7000e+01, 2.8000e+01,
         2.9000e+01],
        [3.0000e+01, 3.1000e+01, 3.2000e+01,  ..., 5.7000e+01, 5.8000e+01,
         5.9000e+01],
        [6.0000e+01, 6.1000e+01, 6.2000e+01,  ..., 8.7000e+01, 8.8000e+01,
         8.9000e+01],
        ...,
        [1.1100e+03, 1.1110e+03, 1.1120e+03,  ..., 1.1370e+03, 1.1380e+03,
         1.1390e+03],
        [1.1400e+03, 1.1410e+03, 1.1420e+03,  ..., 1.1670e+03, 1.1680e+03,
         1.1690e+03],
        [1.1700e+03, 1.1710e+03, 1.1720e+03,  ..., 1.1970e+03, 1.1980e+03,
         1.1990e+03]], dtype=ember.float64)""",
        )

    def test_printoptions(self):
        with ember.printoptions(precision=2):
            self.assertExpectedInline(repr(ember.tensor([1 / 3])), """tensor([0.33])""")
        self.assertExpectedInline(repr(ember.tensor([1 / 3])), """tensor([0.3333])""")

    def test_size_repr(self):
        self.assertExpectedInline(repr(ember.zeros(2, 3).shape), """ember.Size([2, 3])""")
        self.assertExpectedInline(str(ember.tensor(1).shape), """ember.Size([])""")
        self.assertExpectedInline(repr(ember.Size([4])), """ember.Size([4])""")

    def test_dtype_and_device_repr(self):
        self.assertExpectedInline(repr(ember.float32), """ember.float32""")
        self.assertExpectedInline(str(ember.complex128), """ember.complex128""")
        self.assertExpectedInline(repr(ember.device("cpu")), """device(type='cpu')""")
        self.assertExpectedInline(repr(ember.device("cuda", 1)), """device(type='cuda', index=1)""")
        self.assertExpectedInline(str(ember.device("cuda:1")), """cuda:1""")
        self.assertExpectedInline(str(ember.zeros(1).device), """cpu""")


# ---------------------------------------------------------------------------
# repr(ember) == repr(torch) for random tensors
# ---------------------------------------------------------------------------


def random_values(rng, dtype_name, shape, scale):
    if dtype_name == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype_name in ("uint8",):
        return rng.integers(0, 256, shape).astype(np.uint8)
    if dtype_name.startswith("int"):
        bound = min(np.iinfo(dtype_name).max, int(scale) + 1)
        return rng.integers(-bound, bound, shape).astype(dtype_name)
    real = rng.standard_normal(shape) * scale
    if rng.random() < 0.3:
        real = np.round(real)  # integral floats print without decimals
    with np.errstate(over="ignore"):  # 1e10 is inf in float16: printed as such
        if dtype_name.startswith("complex"):
            return (real + 1j * rng.standard_normal(shape) * scale).astype(dtype_name)
        return real.astype(np.float32 if dtype_name == "bfloat16" else dtype_name)


SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (1, 1, 7), (0,), (4, 0), (1200,), (30, 40), (2, 300, 3)]
SCALES = [1.0, 1e-5, 1e5, 1e10, 3.0, 1000.0]


@pytest.mark.parametrize("dtype_name", DTYPE_NAMES)
def test_repr_matches_torch(dtype_name):
    tm = pytest.importorskip("torch")
    rng = np.random.default_rng(sum(map(ord, dtype_name)))
    for i in range(40):
        shape = SHAPES[i % len(SHAPES)]
        values = random_values(rng, dtype_name, shape, SCALES[i % len(SCALES)])
        if values.size and i % 7 == 3 and dtype_name.startswith(("float", "bfloat", "complex")):
            values.flat[0] = np.nan
            values.flat[-1] = np.inf
        e = ember.from_numpy(np.ascontiguousarray(values)).to(getattr(ember, dtype_name))
        t = tm.from_numpy(np.ascontiguousarray(values)).to(getattr(tm, dtype_name))
        expected = repr(t).replace("torch.", "ember.")
        assert repr(e) == expected, (shape, values)
        assert str(e) == str(t).replace("torch.", "ember.")
        if e.dim() >= 2:  # views print their logical values
            assert repr(e.transpose(0, -1)) == repr(t.transpose(0, -1)).replace("torch.", "ember.")


def test_repr_matches_torch_with_options():
    tm = pytest.importorskip("torch")
    values = np.random.default_rng(0).standard_normal((6, 8)) * 100
    e, t = ember.from_numpy(values), tm.from_numpy(values)
    for options in [dict(precision=2), dict(sci_mode=True), dict(linewidth=40), dict(threshold=10, edgeitems=1)]:
        with ember.printoptions(**options):
            tm.set_printoptions(**options)
            try:
                assert repr(e) == repr(t).replace("torch.", "ember.")
            finally:
                tm.set_printoptions(profile="default")
    requires = ember.from_numpy(values[:2, :2].copy()).requires_grad_()
    assert repr(requires) == repr(tm.from_numpy(values[:2, :2].copy()).requires_grad_()).replace("torch.", "ember.")
    meta = ember.empty(3, 4, dtype=ember.float16, device="meta")
    assert repr(meta) == repr(tm.empty(3, 4, dtype=tm.float16, device="meta")).replace("torch.", "ember.")


# ---------------------------------------------------------------------------
# Size, dtype and device objects
# ---------------------------------------------------------------------------


def test_size_is_a_tuple():
    s = ember.zeros(2, 3, 4).shape
    assert isinstance(s, tuple) and s == (2, 3, 4)
    assert s.numel() == 24 and ember.Size([]).numel() == 1
    assert isinstance(s[1:], ember.Size) and s[1:] == (3, 4)
    assert s[0] == 2 and type(s[0]) is int
    assert isinstance(s + (5,), ember.Size)
    assert ember.Size((np.int64(2), ember.tensor(3))) == (2, 3)
    assert hash(s) == hash((2, 3, 4))
    assert ember.zeros(s).shape == s
    if torch is not None:
        assert tuple(torch.zeros(2, 3, 4).shape) == s


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_dtype_objects(dtype):
    assert getattr(ember, name(dtype)) is dtype
    assert repr(dtype) == str(dtype) == "ember." + name(dtype)
    assert dtype == dtype and dtype != (ember.int64 if dtype is not ember.int64 else ember.int32)
    assert hash(dtype) == hash(getattr(ember, name(dtype)))
    assert ember.zeros(1, dtype=dtype).dtype is dtype
    assert pickle.loads(pickle.dumps(dtype)) is dtype
    assert copy.deepcopy(dtype) is dtype and copy.copy(dtype) is dtype
    assert len({dtype, getattr(ember, name(dtype))}) == 1
    if torch is not None:
        td = getattr(torch, name(dtype))
        assert dtype.is_floating_point == td.is_floating_point
        assert dtype.is_complex == td.is_complex
        assert dtype.is_signed == td.is_signed
        assert dtype.itemsize == td.itemsize
        assert name(dtype.to_real()) == name(td.to_real())
        # (torch maps float16 to complex32, a dtype Ember does not have.)
        if dtype in (ember.float32, ember.float64) or dtype.is_complex:
            assert name(dtype.to_complex()) == name(td.to_complex())


def test_promote_types_matches_torch():
    tm = pytest.importorskip("torch")
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            expected = tm.promote_types(getattr(tm, name(a)), getattr(tm, name(b)))
            assert name(ember.promote_types(a, b)) == name(expected), (a, b)


def test_device_objects():
    cpu = ember.device("cpu")
    assert cpu == ember.device("cpu") == ember.zeros(1).device
    assert cpu.type == "cpu" and cpu.index is None
    assert ember.device("cpu", 0).index == 0 and ember.device("cpu", 0) != cpu
    cuda1 = ember.device("cuda:1")
    assert cuda1 == ember.device("cuda", 1) == ember.device(cuda1)
    assert cuda1.type == "cuda" and cuda1.index == 1
    assert cpu != cuda1 and cpu != ember.device("meta")
    # Devices compare equal only to devices, as in torch.
    assert (cpu == "cpu") is False and (cpu != "cpu") is True and (cpu == 1) is False
    assert hash(cpu) == hash(ember.device("cpu")) and hash(cuda1) == hash(ember.device("cuda", 1))
    assert len({cpu, ember.device("cpu"), cuda1, ember.device("cuda:1"), ember.device("meta")}) == 3
    for d in (cpu, cuda1, ember.device("meta"), ember.device("cpu", 0)):
        assert pickle.loads(pickle.dumps(d)) == d
        assert copy.deepcopy(d) == d
    if torch is not None:
        assert repr(cuda1) == repr(torch.device("cuda:1"))
        assert (torch.device("cpu") == "cpu") is False


# ---------------------------------------------------------------------------
# Pickling tensors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_pickle_tensors_all_dtypes(dtype):
    t = ember.arange(12).view(3, 4).to(dtype)
    for x in (t, t.t(), t[1:, ::2], t[0, 0], t[:0]):
        y = pickle.loads(pickle.dumps(x))
        assert y.dtype is dtype and y.shape == x.shape
        assert y.tolist() == x.tolist()
        assert not y._is_view_of(x)
        assert copy.deepcopy(x).tolist() == x.tolist()
    assert pickle.loads(pickle.dumps(t.t())).stride() == (1, 4)


def test_pickle_keeps_requires_grad_conj_and_meta():
    g = pickle.loads(pickle.dumps(ember.ones(2, requires_grad=True)))
    assert g.requires_grad and g.tolist() == [1.0, 1.0]
    c = pickle.loads(pickle.dumps(ember.tensor([1 + 2j]).conj()))
    assert c.tolist() == [1 - 2j]
    m = pickle.loads(pickle.dumps(ember.empty(2, 3, dtype=ember.float16, device="meta").t()))
    assert m.is_meta and m.shape == (3, 2) and m.stride() == (1, 3) and m.dtype is ember.float16
    s = pickle.loads(pickle.dumps(ember.zeros(2, 3).shape))
    assert isinstance(s, ember.Size) and s == (2, 3)
    both = pickle.loads(pickle.dumps([ember.float64, ember.device("cpu"), ember.tensor([1.5])]))
    assert both[0] is ember.float64 and both[1] == ember.device("cpu") and both[2].tolist() == [1.5]


def test_pickled_values_match_torch():
    tm = pytest.importorskip("torch")
    t = ember.linspace(-1, 1, 6, dtype=ember.bfloat16)
    assert pickle.loads(pickle.dumps(t)).tolist() == to_torch(t).tolist()
