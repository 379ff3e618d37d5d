"""ember.unique / Tensor.unique's flag combinations against torch (the
operator database covers _unique2, kthvalue and median themselves)."""

import itertools

import numpy as np
import pytest

import ember
from torch_oracle import E, N, torch


@pytest.mark.parametrize("return_inverse,return_counts", list(itertools.product([False, True], repeat=2)))
def test_unique_flags_match_torch(return_inverse, return_counts):
    t = torch.tensor([[3.0, 1.0, float("nan")], [1.0, 3.0, 2.0]])
    expected = torch.unique(t, return_inverse=return_inverse, return_counts=return_counts)
    actual = ember.unique(E(t), return_inverse=return_inverse, return_counts=return_counts)
    method = E(t).unique(return_inverse=return_inverse, return_counts=return_counts)
    if not isinstance(expected, tuple):
        expected, actual, method = (expected,), (actual,), (method,)
    assert len(actual) == len(expected) == len(method)
    for a, m, e in zip(actual, method, expected):
        np.testing.assert_array_equal(N(a), N(e))
        np.testing.assert_array_equal(N(m), N(e))


def test_unique_errors():
    with pytest.raises(TypeError, match="unique"):
        ember.unique([1, 2])
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range"):  # as torch
        ember.kthvalue(ember.ones(3), 4)
    with pytest.raises(IndexError, match="median\\(\\): Expected reduction dim 0 to have non-zero size"):
        ember.median(ember.ones(0, 2), 0)


ROWS = np.array([[1, 2, 0], [0, 5, 1], [1, 2, 0], [0, 5, 0], [0, 5, 1]])


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("return_inverse,return_counts", list(itertools.product([False, True], repeat=2)))
def test_unique_along_a_dim_matches_torch(dim, return_inverse, return_counts):
    for values in (ROWS, ROWS.astype(np.float32) / 2, np.stack([ROWS, ROWS[::-1]], 1)):
        expected = torch.unique(torch.tensor(values), dim=dim, return_inverse=return_inverse,
                                return_counts=return_counts)
        actual = ember.tensor(values).unique(dim=dim, return_inverse=return_inverse, return_counts=return_counts)
        expected, actual = (expected, actual) if isinstance(expected, tuple) else ((expected,), (actual,))
        for a, e in zip(actual, expected, strict=True):
            np.testing.assert_array_equal(N(a), N(e))


@pytest.mark.parametrize("dim", [None, 0, 1])
@pytest.mark.parametrize("return_inverse,return_counts", list(itertools.product([False, True], repeat=2)))
def test_unique_consecutive_matches_torch(dim, return_inverse, return_counts):
    values = np.array([[1, 1, 2], [1, 1, 2], [3, 1, 2], [1, 1, 2]])
    flags = {"return_inverse": return_inverse, "return_counts": return_counts, "dim": dim}
    expected = torch.unique_consecutive(torch.tensor(values), **flags)
    actual = ember.unique_consecutive(ember.tensor(values), **flags)
    method = ember.tensor(values).unique_consecutive(**flags)
    expected, actual, method = ((expected, actual, method) if isinstance(expected, tuple)
                                else ((expected,), (actual,), (method,)))
    for a, m, e in zip(actual, method, expected, strict=True):
        np.testing.assert_array_equal(N(a), N(e))
        np.testing.assert_array_equal(N(m), N(e))



@pytest.mark.parametrize("rows", [
    [[1.0, float("nan"), 3.0, 0.5], [2.0, 1.0, 4.0, 3.0]],          # NaN in one slice
    [[float("inf"), float("-inf"), 1.0, 2.0], [5.0, 1.0, 2.0, 0.0]],  # a NaN sum without a NaN
    [[float("nan"), float("nan"), float("inf"), 1.0], [float("-inf"), float("inf"), float("nan"), 1.0]],
])
def test_median_finds_nan_only_where_there_is_one(rows):
    t = torch.tensor(rows)
    for dim in (0, 1):
        values, indices = ember.median(E(t), dim)
        expected = torch.median(t, dim)
        np.testing.assert_array_equal(N(values), expected.values.numpy())
        np.testing.assert_array_equal(N(indices), expected.indices.numpy())
    np.testing.assert_array_equal(N(ember.median(E(t))), torch.median(t).numpy())
