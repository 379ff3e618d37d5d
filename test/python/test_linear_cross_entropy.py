"""nn.LinearCrossEntropyLoss / F.linear_cross_entropy against torch 2.13:
the reference computation and the chunked one (options), with class
weights, ignore_index, label smoothing, bias and K-dimensional targets."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

CASES = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=True, label_smoothing=0.1),
    dict(ignore_index=2),
    dict(bias=True, weight=True, ignore_index=0, label_smoothing=0.2),
]


def run(lib, case, chunked, out_features=()):
    lib.manual_seed(0)
    options = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=3) if chunked else None
    weight = lib.linspace(0.5, 1.5, 5) if case.get("weight") else None
    module = lib.nn.LinearCrossEntropyLoss(4, 5, out_features=out_features, bias=case.get("bias", False),
                                           weight=weight, reduction=case.get("reduction", "mean"),
                                           ignore_index=case.get("ignore_index"),
                                           label_smoothing=case.get("label_smoothing", 0.0), options=options)
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((8, 4)), dtype=lib.float32, requires_grad=True)
    target = lib.tensor(rng.integers(0, 5, (8, *out_features)))
    loss = module(x, target)
    loss.sum().backward()
    return loss.detach().numpy(), x.grad.numpy(), module.linear.weight.grad.numpy(), repr(module)


@pytest.mark.filterwarnings("ignore:linear_cross_entropy")  # torch notes where its chunked path does not apply
@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_matches_torch(case, chunked):
    if chunked and case.get("reduction") == "none":
        pytest.skip("covered by the reference path (the chunked one falls back, with a warning)")
    mine, theirs = run(ember, case, chunked), run(torch, case, chunked)
    for a, b in zip(mine[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert mine[3] == theirs[3].replace("torch", "ember")


def test_k_dimensional_targets_and_errors():
    mine, theirs = run(ember, {}, False, out_features=(3,)), run(torch, {}, False, out_features=(3,))
    for a, b in zip(mine[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match=r"expected weight shape to be \(3,\), got \(2,\)"):
        ember.nn.LinearCrossEntropyLoss(4, 3, weight=ember.ones(2))
    with pytest.raises(RuntimeError, match=r"expected label_smoothing to be in range \[0, 1\], got 2"):
        ember.nn.LinearCrossEntropyLoss(4, 3, label_smoothing=2)


def test_chunks_never_hold_all_logits():
    # Each chunk's logits are recomputed in backward rather than kept: the graph
    # keeps the per-chunk inputs only (checkpointing), whatever the class count.
    x = ember.randn(6, 4, requires_grad=True)
    w = ember.randn(1000, 4, requires_grad=True)
    t = ember.randint(0, 1000, (6,))
    options = ember.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    chunked = ember.nn.functional.linear_cross_entropy(x, w, t, options=options)
    reference = ember.nn.functional.linear_cross_entropy(x, w, t)
    np.testing.assert_allclose(chunked.item(), reference.item(), rtol=1e-5)
    g1 = ember.autograd.grad(chunked, (x, w))
    g2 = ember.autograd.grad(reference, (x, w))
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)
