"""The smaller names of torch.nn.functional that scripts use: in-place
activations, *_with_indices pools, the deprecated upsample spellings, pdist
and gumbel_softmax; against torch where the result is deterministic."""

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

X = np.random.default_rng(0).standard_normal((3, 4))


@pytest.mark.parametrize("name, kwargs", [("hardtanh_", {"min_val": -0.5, "max_val": 0.5}),
                                          ("leaky_relu_", {"negative_slope": 0.2}), ("elu_", {"alpha": 0.7}),
                                          ("selu_", {}), ("celu_", {"alpha": 2.0})])
def test_in_place_activations(name, kwargs):
    mine, theirs = ember.tensor(X), torch.tensor(X)
    assert getattr(EF, name)(mine, **kwargs) is mine
    getattr(TF, name)(theirs, **kwargs)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_pools_with_indices(nd):
    x = np.random.default_rng(nd).standard_normal((2, 3) + (6,) * nd)
    mine = getattr(EF, f"max_pool{nd}d_with_indices")(ember.tensor(x), 2)
    theirs = getattr(TF, f"max_pool{nd}d_with_indices")(torch.tensor(x), 2)
    for m, t in zip(mine, theirs, strict=True):
        np.testing.assert_array_equal(m.numpy(), t.numpy())


@pytest.mark.parametrize("name, kwargs", [("upsample", {"scale_factor": 2}), ("upsample_nearest", {"size": (5, 6)}),
                                          ("upsample_bilinear", {"scale_factor": 2})])
def test_deprecated_upsample_spellings_warn_and_interpolate(name, kwargs):
    x = np.random.default_rng(1).standard_normal((1, 2, 3, 3)).astype(np.float32)
    with pytest.warns(UserWarning, match="deprecated"):
        mine = getattr(EF, name)(ember.tensor(x), **kwargs)
    with pytest.warns(UserWarning):
        theirs = getattr(TF, name)(torch.tensor(x), **kwargs)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_pdist_values_and_gradients(p):
    mine, theirs = ember.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    a, b = EF.pdist(mine, p), TF.pdist(theirs, p)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    a.sum().backward()
    b.sum().backward()
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_pdist_needs_a_matrix():
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
        EF.pdist(ember.ones(3))


def test_gumbel_softmax_samples_the_softmax():
    ember.manual_seed(0)
    logits = ember.tensor([[1.0, 0.0, -1.0]]).expand(4000, 3)
    soft = EF.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).numpy(), 1.0, rtol=1e-5)
    hard = EF.gumbel_softmax(logits, hard=True)
    assert set(np.unique(hard.numpy())) <= {0.0, 1.0} and (hard.sum(-1) == 1).all()
    frequencies = hard.mean(0).numpy()
    np.testing.assert_allclose(frequencies, ember.tensor([1.0, 0.0, -1.0]).softmax(0).numpy(), atol=0.03)


def test_gumbel_softmax_hard_passes_the_soft_gradient():
    ember.manual_seed(1)
    logits = ember.tensor([[0.5, 0.2, -0.3]], requires_grad=True)
    (EF.gumbel_softmax(logits, hard=True) * ember.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0


_AA_SIZES = [{"size": (5, 7)}, {"size": (20, 3)}, {"scale_factor": 0.37}, {"scale_factor": (0.5, 2.5)}, {"size": 1}]


@pytest.mark.parametrize("kwargs", _AA_SIZES, ids=[str(k) for k in _AA_SIZES])
@pytest.mark.parametrize("mode,align_corners", [("bilinear", False), ("bilinear", True), ("bicubic", False),
                                                ("bicubic", True), ("lanczos", False)])
def test_antialiased_interpolate_matches_torch(mode, align_corners, kwargs):
    x = np.random.default_rng(1).standard_normal((2, 3, 13, 11)).astype(np.float32)
    ours = EF.interpolate(ember.tensor(x), mode=mode, antialias=True, align_corners=align_corners, **kwargs)
    theirs = TF.interpolate(torch.tensor(x), mode=mode, antialias=True, align_corners=align_corners, **kwargs)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-5)


def test_antialiased_interpolate_gradients_and_errors_match_torch():
    x = np.random.default_rng(2).standard_normal((1, 2, 9, 8))
    ours, theirs = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    weights = np.random.default_rng(3).standard_normal((1, 2, 4, 3))
    (EF.interpolate(ours, size=(4, 3), mode="bicubic", antialias=True) * ember.tensor(weights)).sum().backward()
    (TF.interpolate(theirs, size=(4, 3), mode="bicubic", antialias=True) * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-12)
    for lib, F in ((ember, EF), (torch, TF)):
        with pytest.raises(ValueError, match="restricted to bilinear, bicubic, and lanczos"):
            F.interpolate(lib.ones(1, 1, 4, 4), size=2, mode="nearest", antialias=True)
        with pytest.raises(ValueError, match="Lanczos mode requires antialias=True"):
            F.interpolate(lib.ones(1, 1, 4, 4), size=2, mode="lanczos")
        with pytest.raises(ValueError, match="does not support align_corners"):
            F.interpolate(lib.ones(1, 1, 4, 4), size=2, mode="lanczos", antialias=True, align_corners=True)
