"""nn.EmbeddingBag and F.embedding_bag against torch: modes, offsets,
2-D input, per-sample weights, padding_idx, empty bags, sparse gradients,
and the errors for bad offsets."""

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

WEIGHT = np.random.default_rng(0).standard_normal((7, 3))


def both(call, input, offsets=None, per_sample_weights=None, **kwargs):
    results = []
    for lib, F in ((ember, EF), (torch, TF)):
        weight = lib.tensor(WEIGHT, requires_grad=True)
        psw = None if per_sample_weights is None else lib.tensor(per_sample_weights, dtype=lib.float64, requires_grad=True)
        out = call(F, lib.tensor(input), weight, None if offsets is None else lib.tensor(offsets), psw, **kwargs)
        out.backward(lib.tensor(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)) / 10))
        grad = weight.grad.to_dense() if weight.grad.is_sparse else weight.grad
        results.append((out.detach().numpy(), grad.numpy(), None if psw is None else psw.grad.numpy()))
    return results


def call(F, input, weight, offsets, per_sample_weights, **kwargs):
    return F.embedding_bag(input, weight, offsets, per_sample_weights=per_sample_weights, **kwargs)


CASES = [
    ("sum", [0, 2, 2, 5, 1, 6], [0, 2, 2, 5], None, {"mode": "sum"}),  # an empty bag
    ("mean", [0, 2, 2, 5, 1, 6], [0, 3, 4], None, {}),
    ("max", [0, 2, 3, 5, 1, 6], [0, 3, 3, 4], None, {"mode": "max"}),
    ("2d_mean", [[0, 2, 4], [1, 1, 6]], None, None, {}),
    ("2d_max", [[0, 2, 4], [1, 3, 6]], None, None, {"mode": "max"}),
    ("per_sample_weights", [0, 2, 2, 5], [0, 1], [0.5, -1.0, 2.0, 3.0], {"mode": "sum"}),
    ("include_last_offset", [0, 2, 3, 5, 1], [0, 2, 5], None, {"include_last_offset": True}),
    ("padding_idx_mean", [0, 2, 2, 5, 2], [0, 2, 3], None, {"padding_idx": 2}),
    ("padding_idx_max", [0, 2, 4, 5, 2], [0, 2, 3], None, {"padding_idx": 2, "mode": "max"}),
    ("sparse_sum", [0, 2, 2, 5], [0, 1], None, {"mode": "sum", "sparse": True}),
]


@pytest.mark.parametrize("input, offsets, psw, kwargs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_matches_torch(input, offsets, psw, kwargs):
    mine, theirs = both(call, input, offsets, psw, **kwargs)
    for m, t in zip(mine, theirs):
        if t is not None:
            np.testing.assert_allclose(m, t, rtol=1e-12, atol=1e-12)


def test_sparse_gradient_is_sparse_and_trains_with_sparse_adam():
    bag = ember.nn.EmbeddingBag(10, 4, mode="sum", sparse=True)
    opt = ember.optim.SparseAdam(bag.parameters(), lr=0.1)
    before = bag.weight.detach().clone()
    bag(ember.tensor([1, 3, 3]), ember.tensor([0, 2])).sum().backward()
    assert bag.weight.grad.is_sparse
    opt.step()
    changed = (bag.weight.detach() != before).any(dim=1).tolist()
    assert changed == [i in (1, 3) for i in range(10)]


@pytest.mark.parametrize("kwargs", [{}, {"mode": "max", "padding_idx": 1}, {"max_norm": 1.0, "mode": "sum"}])
def test_module_repr_and_init_match_torch(kwargs):
    mine, theirs = ember.nn.EmbeddingBag(5, 3, **kwargs), torch.nn.EmbeddingBag(5, 3, **kwargs)
    assert repr(mine) == repr(theirs)
    if "padding_idx" in kwargs:
        assert float(mine.weight[kwargs["padding_idx"]].abs().sum()) == 0


@pytest.mark.parametrize("bad, error, message", [
    (lambda F, w: F.embedding_bag(ember.tensor([0, 1]), w, ember.tensor([1])), RuntimeError, "offsets\\[0\\] has to be 0"),
    (lambda F, w: F.embedding_bag(ember.tensor([0, 1]), w, ember.tensor([0, 5])), RuntimeError,
     "can not be greater than input's length 2"),
    (lambda F, w: F.embedding_bag(ember.tensor([0, 1, 2]), w, ember.tensor([0, 2, 1])), RuntimeError,
     "non-decreasing"),
    (lambda F, w: F.embedding_bag(ember.tensor([0, 1]), w, None), ValueError, "offsets has to be a 1D Tensor"),
    (lambda F, w: F.embedding_bag(ember.tensor([[0, 1]]), w, ember.tensor([0])), ValueError, "offsets has to be None"),
    (lambda F, w: F.embedding_bag(ember.tensor([0, 1]), w, ember.tensor([0]), mode="min"), ValueError,
     "mode has to be one of sum, mean or max"),
    (lambda F, w: F.embedding_bag(ember.tensor([0, 1]), w, ember.tensor([0]), per_sample_weights=ember.ones(2)),
     NotImplementedError, "only supported for mode='sum'"),
    (lambda F, w: F.embedding_bag(ember.tensor([0, 9]), w, ember.tensor([0])), IndexError, "out of range|out of bounds"),
])
def test_bad_input(bad, error, message):
    with pytest.raises(error, match=message):
        bad(EF, ember.tensor(WEIGHT))
