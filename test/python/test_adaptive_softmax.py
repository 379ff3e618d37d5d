"""nn.AdaptiveLogSoftmaxWithLoss against torch: structure and initial
weights from the same seed, per-target log-probabilities and loss with
gradients, log_prob over every class, predict, unbatched input, errors."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def build(lib, **kwargs):
    lib.manual_seed(0)
    return lib.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [5, 12], **kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"div_value": 2.0, "head_bias": True}])
def test_forward_loss_and_gradients_match_torch(kwargs):
    mine, theirs = build(ember, **kwargs), build(torch, **kwargs)
    assert repr(mine) == repr(theirs)
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    x = np.random.default_rng(1).standard_normal((6, 8)).astype(np.float32)
    target = [0, 4, 5, 11, 12, 19]
    a, b = mine(ember.tensor(x), ember.tensor(target)), theirs(torch.tensor(x), torch.tensor(target))
    np.testing.assert_allclose(a.output.detach().numpy(), b.output.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a.loss.item(), b.loss.item(), rtol=1e-5)
    a.loss.backward()
    b.loss.backward()
    for (name, p), (_, q) in zip(mine.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
    full_mine, full_theirs = mine.log_prob(ember.tensor(x)), theirs.log_prob(torch.tensor(x))
    np.testing.assert_allclose(full_mine.detach().numpy(), full_theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(full_mine.exp().sum(1).detach().numpy(), 1.0, rtol=1e-5)
    assert mine.predict(ember.tensor(x)).tolist() == theirs.predict(torch.tensor(x)).tolist()


def test_unbatched():
    mine, theirs = build(ember), build(torch)
    x = np.linspace(-1, 1, 8).astype(np.float32)
    a, b = mine(ember.tensor(x), ember.tensor(13)), theirs(torch.tensor(x), torch.tensor(13))
    assert tuple(a.output.shape) == tuple(b.output.shape) == ()
    np.testing.assert_allclose(a.output.item(), b.output.item(), rtol=1e-5)


@pytest.mark.parametrize("make, message", [
    (lambda: ember.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [12, 5]), "cutoffs should be a sequence of unique"),
    (lambda: ember.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [5, 20]), "between 1 and n_classes-1"),
    (lambda: build(ember)(ember.ones(2, 8), ember.tensor([1, 20])), "Target values should be in \\[0, 19\\]"),
    (lambda: build(ember)(ember.ones(2, 8), ember.tensor([1])), "same size in the batch dimension"),
    (lambda: build(ember)(ember.ones(2, 2, 8), ember.tensor([1, 2])), "1D target tensor expects 2D input"),
])
def test_errors(make, message):
    with pytest.raises((ValueError, RuntimeError), match=message):
        make()
