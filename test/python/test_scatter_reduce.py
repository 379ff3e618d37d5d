"""scatter_reduce's gradients where the operator database's cases cannot speak:
ties left out of a slot, and the double backward it refuses."""

import numpy as np
import pytest

import ember
from ember_testing import to_numpy


def _tied():
    x = ember.tensor([[1.0, 2, 3, 4]], dtype=ember.float64, requires_grad=True)
    src = ember.tensor([[3.0, 3, 1, 5]], dtype=ember.float64, requires_grad=True)
    return x, ember.tensor([[2, 2, 0, 3]]), src


def test_amax_without_self_shares_the_gradient_among_the_values_that_took_part():
    # Slot 2 gets src's two 3s; self's own 3 there is left out, so it neither
    # gets a share nor thins the others' (torch 2.13 gives each src 3 only 1/3).
    x, index, src = _tied()
    y = x.scatter_reduce(1, index, src, "amax", include_self=False)
    np.testing.assert_array_equal(to_numpy(y.detach()), [[1, 2, 3, 5]])
    gx, gs = ember.autograd.grad([y.sum()], [x, src])
    np.testing.assert_array_equal(to_numpy(gx), [[0, 1, 0, 0]])
    np.testing.assert_array_equal(to_numpy(gs), [[0.5, 0.5, 1, 1]])


def test_amax_with_self_shares_among_self_and_src():
    x, index, src = _tied()
    y = x.scatter_reduce(1, index, src, "amax")
    gx, gs = ember.autograd.grad([y.sum()], [x, src])
    np.testing.assert_allclose(to_numpy(gx), [[0.5, 1, 1 / 3, 0]])
    np.testing.assert_allclose(to_numpy(gs), [[1 / 3, 1 / 3, 0.5, 1]])


def test_prod_with_two_zeros_in_a_slot_has_a_first_derivative_but_refuses_a_second():
    x = ember.tensor([[1.0, 2, 3, 4]], dtype=ember.float64, requires_grad=True)
    src = ember.tensor([[0.0, 0, 1, 5]], dtype=ember.float64, requires_grad=True)
    y = x.scatter_reduce(1, ember.tensor([[2, 2, 0, 3]]), src, "prod")
    (g,) = ember.autograd.grad([y.sum()], [src], create_graph=True)
    np.testing.assert_array_equal(to_numpy(g.detach()), [[0, 0, 1, 4]])
    with pytest.raises(RuntimeError, match="scatter_reduce\\(\\): Double backward is unsupported"):
        ember.autograd.grad([g.sum()], [src])


def test_a_bad_index_leaves_self_unchanged():
    x = ember.zeros(4)
    with pytest.raises(RuntimeError, match="scatter_reduce_\\(\\): index 9 is out of bounds"):
        x.scatter_reduce_(0, ember.tensor([1, 9]), ember.ones(2), "sum")
    np.testing.assert_array_equal(to_numpy(x), np.zeros(4))


def test_legacy_reduce_names():
    x = ember.ones(3)
    out = x.scatter(0, ember.tensor([0, 0]), ember.tensor([2.0, 3.0]), reduce="multiply")
    np.testing.assert_array_equal(to_numpy(out), [6, 1, 1])
    with pytest.raises(RuntimeError, match="scatter\\(\\): reduce argument must be either add or multiply"):
        x.scatter(0, ember.tensor([0]), ember.ones(1), reduce="sum")
