"""The varargs spellings of einsum, tensordot and meshgrid against torch (the
operator database covers the ops' values and gradients)."""

import numpy as np
import pytest

import ember
from torch_oracle import E, N, torch


def test_einsum_takes_operands_as_varargs_or_a_list():
    a, b = torch.randn(2, 3), torch.randn(3, 4)
    expected = torch.einsum("ij,jk->ik", a, b)
    np.testing.assert_allclose(N(ember.einsum("ij,jk->ik", E(a), E(b))), N(expected), rtol=1e-6)
    np.testing.assert_allclose(N(ember.einsum("ij,jk->ik", [E(a), E(b)])), N(expected), rtol=1e-6)
    with pytest.raises(TypeError, match="sublist format"):
        ember.einsum(E(a), [0, 1])


@pytest.mark.parametrize("dims", [0, 1, 2, ([1], [0]), ([0, 1], [1, 0])])
def test_tensordot_dims_forms(dims):
    a, b = torch.randn(3, 3), torch.randn(3, 3)
    np.testing.assert_allclose(N(ember.tensordot(E(a), E(b), dims=dims)), N(torch.tensordot(a, b, dims=dims)),
                               rtol=1e-5, atol=1e-6)


def test_tensordot_errors():
    with pytest.raises(RuntimeError, match="tensordot expects dims >= 0"):
        ember.tensordot(ember.ones(2), ember.ones(2), dims=-1)
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        ember.tensordot(ember.ones(2, 3), ember.ones(2, 3), dims=1)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_torch(indexing):
    xs = [torch.arange(3), torch.arange(2) * 10, torch.tensor(5)]
    expected = torch.meshgrid(*xs, indexing=indexing)
    actual = ember.meshgrid(*[E(x) for x in xs], indexing=indexing)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        np.testing.assert_array_equal(N(a), N(e))
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        ember.meshgrid(ember.arange(2), ember.arange(3))
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij"'):
        ember.meshgrid(ember.arange(2), indexing="yx")
