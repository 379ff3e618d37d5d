"""affine_grid and grid_sample against torch: 2-D and 3-D, every padding
mode, bilinear and nearest, both align_corners, gradients for the image and
the grid; and the errors."""

import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 2, 3, 4, 2), (2, 1, 1, 3)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(size, align_corners):
    nd = len(size) - 2
    theta = RNG.standard_normal((size[0], nd, nd + 1))
    mine = ember.tensor(theta, requires_grad=True)
    theirs = torch.tensor(theta, requires_grad=True)
    a, b = EF.affine_grid(mine, size, align_corners), TF.affine_grid(theirs, size, align_corners)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)
    seed = RNG.standard_normal(tuple(b.shape))
    a.backward(ember.tensor(seed))
    b.backward(torch.tensor(seed))
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("nd, mode", [(2, "bilinear"), (3, "bilinear"), (2, "nearest"), (3, "nearest"),
                                      (2, "bicubic")])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_torch(nd, mode, padding_mode, align_corners):
    image = RNG.standard_normal((2, 3) + (4, 5, 3)[:nd])
    # Reaches outside [-1, 1] so that padding matters; no coordinate sits on a pixel boundary.
    grid = RNG.uniform(-1.6, 1.6, (2,) + (3, 4, 2)[:nd] + (nd,))
    results = []
    for lib, F in ((ember, EF), (torch, TF)):
        x, g = lib.tensor(image, requires_grad=True), lib.tensor(grid, requires_grad=True)
        out = F.grid_sample(x, g, mode, padding_mode, align_corners)
        out.backward(lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape))))
        # nearest: the grid gets no gradient (torch reports zeros, Ember leaves it None)
        grid_grad = g.grad.numpy() if g.grad is not None else np.zeros(grid.shape)
        results.append([out.detach().numpy(), x.grad.numpy(), grid_grad])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-9)


def test_spatial_transformer_round_trip_is_identity():
    image = ember.tensor(RNG.standard_normal((1, 2, 5, 6)))
    grid = EF.affine_grid(ember.eye(2, 3, dtype=ember.float64).unsqueeze(0), (1, 2, 5, 6), align_corners=False)
    np.testing.assert_allclose(EF.grid_sample(image, grid, align_corners=False).numpy(), image.numpy(), atol=1e-12)


def test_default_align_corners_warns_as_torch():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        EF.affine_grid(ember.eye(2, 3).unsqueeze(0), (1, 1, 2, 2))


@pytest.mark.parametrize("call, error, message", [
    (lambda: EF.grid_sample(ember.ones(1, 1, 2, 2), ember.zeros(1, 2, 2, 2), mode="x", align_corners=False),
     ValueError, "expected mode to be 'bilinear', 'nearest' or 'bicubic'"),
    (lambda: EF.grid_sample(ember.ones(1, 1, 2, 2), ember.zeros(1, 2, 2, 2), padding_mode="x", align_corners=False),
     ValueError, "expected padding_mode to be 'zeros', 'border', or 'reflection'"),
    (lambda: EF.grid_sample(ember.ones(1, 1, 2, 2, 2), ember.zeros(1, 2, 2, 2, 3), mode="bicubic",
                            align_corners=False), RuntimeError, "bicubic interpolation only supports 4D input"),
    (lambda: EF.grid_sample(ember.ones(1, 1, 2, 2), ember.zeros(1, 2, 2, 3), align_corners=False), RuntimeError,
     "expected grid to have size 2 in last dimension"),
    (lambda: EF.grid_sample(ember.ones(2, 1, 2, 2), ember.zeros(1, 2, 2, 2), align_corners=False), RuntimeError,
     "same batch size"),
    (lambda: EF.affine_grid(ember.eye(2, 3), (1, 1, 2, 2), align_corners=False), ValueError,
     "Expected a batch of 2D affine matrices of shape Nx2x3"),
])
def test_errors(call, error, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=message):
            call()
