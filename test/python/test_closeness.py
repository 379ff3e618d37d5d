"""isclose / allclose against torch: dtypes, broadcasting, NaN and infinity, tolerances, errors."""

import math

import numpy as np
import pytest

import ember
from torch_oracle import E, N, torch

VALUES = [0.0, 1.0, 1.0 + 1e-6, 1.1, -2.0, 1e-9, math.inf, -math.inf, math.nan]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("rtol,atol,equal_nan", [(1e-5, 1e-8, False), (0.0, 0.0, True), (0.1, 0.5, True)])
def test_isclose_matches_torch(dtype, rtol, atol, equal_nan):
    a = torch.tensor(VALUES).reshape(-1, 1)
    b = torch.tensor(VALUES)
    if dtype in ("int64", "bool"):
        a, b = torch.nan_to_num(a, posinf=7, neginf=-7), torch.nan_to_num(b, posinf=7, neginf=-7)
    a, b = a.to(getattr(torch, dtype)), b.to(getattr(torch, dtype))
    expected = torch.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    actual = ember.isclose(E(a), E(b), rtol=rtol, atol=atol, equal_nan=equal_nan)
    np.testing.assert_array_equal(N(actual), N(expected))
    assert ember.allclose(E(a), E(a), equal_nan=True) == torch.allclose(a, a, equal_nan=True)
    assert E(a).allclose(E(b)) == a.allclose(b)


def test_errors_name_the_problem():
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        ember.isclose(ember.ones(1), ember.ones(1, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero, but got -1"):
        ember.allclose(ember.ones(1), ember.ones(1), rtol=-1)
    with pytest.raises(RuntimeError, match="must match the size"):
        ember.isclose(ember.ones(2), ember.ones(3))
