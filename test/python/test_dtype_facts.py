"""Per-dtype facts (c10's scalar-type table, reached through the binding):
ember.finfo, ember.iinfo, dtype.itemsize and Tensor.type() agree with torch."""

import pytest

import ember
from ember_testing import ALL_DTYPES, name, torch

FLOATING = [d for d in ALL_DTYPES if d.is_floating_point or d.is_complex]
INTEGRAL = [d for d in ALL_DTYPES if not (d.is_floating_point or d.is_complex) and d is not ember.bool]


def twin(dtype):
    return getattr(torch, name(dtype))


@pytest.mark.skipif(torch is None, reason="needs torch as the oracle")
@pytest.mark.parametrize("dtype", FLOATING, ids=name)
def test_finfo_matches_torch(dtype):
    e, t = ember.finfo(dtype), torch.finfo(twin(dtype))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(e, field) == getattr(t, field), field
    assert repr(e) == repr(t)


@pytest.mark.skipif(torch is None, reason="needs torch as the oracle")
@pytest.mark.parametrize("dtype", INTEGRAL, ids=name)
def test_iinfo_matches_torch(dtype):
    e, t = ember.iinfo(dtype), torch.iinfo(twin(dtype))
    for field in ("bits", "min", "max", "dtype"):
        assert getattr(e, field) == getattr(t, field), field
    assert repr(e) == repr(t)


def test_finfo_defaults_and_errors():
    assert ember.finfo() == ember.finfo(ember.get_default_dtype())
    assert ember.finfo(ember.complex128) == ember.finfo(ember.float64)
    with pytest.raises(TypeError, match=r"ember.finfo\(\) requires a floating point input type"):
        ember.finfo(ember.int32)
    with pytest.raises(TypeError, match=r"ember.iinfo\(\) requires an integer input type"):
        ember.iinfo(ember.float32)
    with pytest.raises(TypeError, match="ember.bool is not supported by ember.iinfo"):
        ember.iinfo(ember.bool)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_tensor_type_names_and_converts(dtype):
    x = ember.zeros(2, dtype=dtype)
    if torch is not None:
        assert x.type() == torch.zeros(2, dtype=twin(dtype)).type().replace("torch.", "ember.")
    assert x.itemsize == dtype.itemsize
    back = ember.zeros(2).type(x.type())
    assert back.dtype is dtype and back.device.type == "cpu"
    assert ember.zeros(2).type("torch." + x.type().split(".")[-1]).dtype is dtype
    assert ember.zeros(2).type(dtype).dtype is dtype


def test_tensor_type_refuses_unknown_names():
    with pytest.raises(ValueError, match="invalid type: 'ember.NoSuchTensor'"):
        ember.zeros(1).type("ember.NoSuchTensor")
    with pytest.raises(ValueError, match="invalid type: 'numpy.FloatTensor'"):
        ember.zeros(1).type("numpy.FloatTensor")
