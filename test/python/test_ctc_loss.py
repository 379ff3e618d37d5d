"""CTC loss against torch: padded and concatenated targets, varying input
and target lengths, repeated labels, empty targets, impossible alignments
(inf, or 0 with zero_infinity), every reduction, gradients, the module."""

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

RNG = np.random.default_rng(0)


def logits(t, n, c):
    return RNG.standard_normal((t, n, c))


def run(lib, F, raw, targets, input_lengths, target_lengths, **kwargs):
    x = lib.tensor(raw, requires_grad=True)
    loss = F.ctc_loss(x.log_softmax(-1), lib.tensor(targets), lib.tensor(input_lengths), lib.tensor(target_lengths),
                      **kwargs)
    weights = lib.tensor(np.linspace(0.5, 1.5, loss.numel()).reshape(tuple(loss.shape)))
    (loss * weights).sum().backward()
    return loss.detach().numpy(), x.grad.numpy()


CASES = [
    ("padded_mean", logits(12, 3, 5), [[1, 2, 2, 3], [4, 4, 0, 0], [2, 0, 0, 0]], [12, 10, 7], [4, 2, 1], {}),
    ("concatenated_sum", logits(9, 2, 4), [1, 2, 3, 3, 1], [9, 8], [3, 2], {"reduction": "sum"}),
    ("none_blank_last", logits(8, 2, 4), [[0, 1, 0], [2, 2, 2]], [8, 8], [3, 3], {"reduction": "none", "blank": 3}),
    ("empty_target", logits(6, 2, 3), [[1, 2], [0, 0]], [6, 4], [2, 0], {"reduction": "none"}),
    ("impossible_zero_infinity", logits(4, 2, 3), [[1, 1, 1], [1, 2, 0]], [4, 4], [3, 2],
     {"reduction": "none", "zero_infinity": True}),
]


@pytest.mark.parametrize("raw, targets, input_lengths, target_lengths, kwargs", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_matches_torch(raw, targets, input_lengths, target_lengths, kwargs):
    mine = run(ember, EF, raw, targets, input_lengths, target_lengths, **kwargs)
    theirs = run(torch, TF, raw, targets, input_lengths, target_lengths, **kwargs)
    for m, t in zip(mine, theirs):
        np.testing.assert_allclose(m, t, rtol=1e-9, atol=1e-10)


def test_impossible_alignment_is_inf():
    # three repeats of one label need five frames
    loss = EF.ctc_loss(ember.zeros(4, 1, 3).log_softmax(-1), ember.tensor([[1, 1, 1]]), [4], [3], reduction="none")
    assert loss.tolist() == [float("inf")]


def test_unbatched_and_module():
    raw = logits(7, 1, 4)[:, 0]
    module = ember.nn.CTCLoss(blank=0, reduction="sum")
    mine = module(ember.tensor(raw).log_softmax(-1), ember.tensor([1, 3]), ember.tensor(7), ember.tensor(2))
    theirs = torch.nn.CTCLoss(reduction="sum")(torch.tensor(raw).log_softmax(-1), torch.tensor([1, 3]),
                                              torch.tensor(7), torch.tensor(2))
    np.testing.assert_allclose(mine.item(), theirs.item(), rtol=1e-10)
    assert repr(module) == "CTCLoss()"


@pytest.mark.parametrize("call, message", [
    (lambda: EF.ctc_loss(ember.zeros(4, 1, 3), ember.tensor([[1]]), [5], [1]), "input_lengths to have value at most 4"),
    (lambda: EF.ctc_loss(ember.zeros(4, 1, 3), ember.tensor([[5]]), [4], [1]), "target labels must be in \\[0, 3\\)"),
    (lambda: EF.ctc_loss(ember.zeros(4, 1, 3), ember.tensor([[1]]), [4], [1], blank=3), "blank must be in label range"),
    (lambda: EF.ctc_loss(ember.zeros(4, 2, 3), ember.tensor([[1]]), [4, 4], [1]), "target_lengths to have 2 entries"),
])
def test_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()
