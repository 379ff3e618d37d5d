"""ember.testing.assert_close: tolerances by dtype, shape/dtype/device
checks, nested containers and messages, against torch.testing's decisions."""

import numpy as np
import pytest

import ember
from ember.testing import assert_close, make_tensor

torch = pytest.importorskip("torch")

CASES = [
    ("equal", [1.0, 2.0], [1.0, 2.0], {}),
    ("within_float32_tolerance", [1.0, 2.0], [1.0, 2.0 + 1e-6], {}),
    ("beyond_tolerance", [1.0, 2.0], [1.0, 2.1], {}),
    ("loose_tolerance", [1.0, 2.0], [1.0, 2.1], {"rtol": 0.1, "atol": 0.0}),
    ("nan_unequal", [float("nan")], [float("nan")], {}),
    ("nan_equal", [float("nan")], [float("nan")], {"equal_nan": True}),
    ("inf", [float("inf")], [float("inf")], {}),
]


@pytest.mark.parametrize("name, a, b, kw", CASES, ids=[c[0] for c in CASES])
def test_decisions_match_torch(name, a, b, kw):
    def decide(lib, check):
        try:
            check(lib.tensor(a), lib.tensor(b), **kw)
            return True
        except AssertionError:
            return False
    assert decide(ember, assert_close) == decide(torch, torch.testing.assert_close)


def test_dtype_shape_and_containers():
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(ember.ones(2), ember.ones(2, dtype=ember.float64))
    assert_close(ember.ones(2), ember.ones(2, dtype=ember.float64), check_dtype=False)
    with pytest.raises(AssertionError, match="shape"):
        assert_close(ember.ones(2), ember.ones(3))
    assert_close({"a": [ember.ones(2), 3]}, {"a": [ember.ones(2), 3]})
    with pytest.raises(AssertionError, match=r"\['a'\]\[1\]"):
        assert_close({"a": [ember.ones(2), ember.zeros(1)]}, {"a": [ember.ones(2), ember.ones(1)]})
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 3"):
        assert_close(ember.tensor([1, 2, 3]), ember.tensor([1, 2, 4]))
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol'"):
        assert_close(ember.ones(1), ember.ones(1), rtol=0.1)
    with pytest.raises(AssertionError, match="custom"):
        assert_close(ember.ones(1), ember.zeros(1), msg="custom")


def test_make_tensor():
    t = make_tensor(3, 4, dtype=ember.float32, low=-1, high=1)
    assert tuple(t.shape) == (3, 4) and t.dtype == ember.float32
    assert bool((t >= -1).all() and (t < 1).all())
    n = make_tensor((2, 5), dtype=ember.int64, low=0, high=3, noncontiguous=True)
    assert not n.is_contiguous() and bool(((n >= 0) & (n < 3)).all())
    assert make_tensor(2, dtype=ember.float64, requires_grad=True).requires_grad
