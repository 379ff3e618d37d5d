"""ember.utils.checkpoint: the same gradients as without checkpointing,
with the block recomputed during backward."""

import numpy as np
import pytest

import ember
from ember.utils.checkpoint import checkpoint, checkpoint_sequential


def make(seed=0):
    rng = np.random.default_rng(seed)
    x = ember.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    w = ember.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    return x, w


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_gradients_match_and_the_block_reruns(use_reentrant):
    x, w = make()
    calls = []

    def block(a):
        calls.append(1)
        return (a @ w).tanh().sin()

    block(x).pow(2).sum().backward()
    expected = (x.grad.clone(), w.grad.clone())
    x.grad = None
    w.grad = None
    calls.clear()
    checkpoint(block, x, use_reentrant=use_reentrant).pow(2).sum().backward()
    assert len(calls) == 2  # forward, then the recomputation in backward
    np.testing.assert_allclose(x.grad.numpy(), expected[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), expected[1].numpy(), rtol=1e-12)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_recomputation_replays_the_random_numbers(use_reentrant):
    x, _ = make()

    def block(a):
        return ember.dropout(a * 3, 0.5, True)

    ember.manual_seed(1)
    out = checkpoint(block, x, use_reentrant=use_reentrant)
    out.sum().backward()
    # The gradient is 3 where dropout kept an element (scaled by 1/(1-p)) and
    # 0 where it dropped one: the same mask as the forward's output shows.
    kept = (out.detach() != 0).double()
    np.testing.assert_allclose(x.grad.numpy(), (kept * 6).numpy())


def test_non_reentrant_works_with_autograd_grad():
    x, w = make()
    y = checkpoint(lambda a: (a * a * a).sum(), x, use_reentrant=False)
    (g,) = ember.autograd.grad(y, x)
    np.testing.assert_allclose(g.numpy(), (3 * x * x).detach().numpy())
    assert x.grad is None


def test_checkpoint_sequential():
    x, w = make()
    fns = [lambda a: a @ w, ember.tanh, ember.sin, lambda a: a * 2]
    out = x
    for f in fns:
        out = f(out)
    out.sum().backward()
    expected = w.grad.clone()
    w.grad = None
    checkpoint_sequential(fns, 2, x).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), expected.numpy(), rtol=1e-12)


def test_reentrant_needs_an_output_that_requires_grad():
    x = ember.ones(3)
    w = ember.ones(3, requires_grad=True)
    out = checkpoint(lambda a: a * 2, x, use_reentrant=True)
    assert not out.requires_grad
    (w * 1).sum().backward()  # unrelated graphs are unaffected
