"""3-d convolution and pooling, transposed convolutions, power-average
pooling, max-unpooling and 3-d adaptive pooling (ember/nn/_windows.py),
against torch in values and gradients, and their modules' reprs."""

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

RNG = np.random.default_rng(0)
X5 = RNG.standard_normal((2, 4, 5, 6, 7))
W5 = RNG.standard_normal((6, 2, 2, 3, 2))
SAMPLES2, SAMPLES3 = RNG.random((2, 4, 2)), RNG.random((2, 4, 3))

CASES = [
    ("conv3d", lambda F, x, w: F.conv3d(x, w, None, (2, 1, 2), (1, 0, 1), (1, 2, 1), 2), X5, W5),
    ("conv3d_same_bias", lambda F, x, w, b: F.conv3d(x, w, b, 1, "same", 1, 2), X5, W5, RNG.standard_normal(6)),
    ("conv3d_unbatched", lambda F, x, w: F.conv3d(x, w), X5[0], RNG.standard_normal((3, 4, 1, 2, 3))),
    ("conv_transpose1d", lambda F, x, w: F.conv_transpose1d(x, w, None, 2, 1, 1, 2, 1),
     RNG.standard_normal((2, 4, 7)), RNG.standard_normal((4, 3, 3))),
    ("conv_transpose2d", lambda F, x, w: F.conv_transpose2d(x, w, None, (2, 1), (1, 0), (1, 0), 1, (1, 2)),
     RNG.standard_normal((2, 4, 5, 6)), RNG.standard_normal((4, 3, 3, 2))),
    ("conv_transpose3d", lambda F, x, w, b: F.conv_transpose3d(x, w, b, 2, 1, 1, 1, 1),
     RNG.standard_normal((1, 2, 3, 4, 3)), RNG.standard_normal((2, 3, 3, 2, 3)), RNG.standard_normal(3)),
    ("max_pool3d", lambda F, x: F.max_pool3d(x, 2), X5),
    ("max_pool3d_indices", lambda F, x: F.max_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 2), True, True), X5),
    ("max_pool3d_ceil", lambda F, x: F.max_pool3d(x, 3, 2, 1, ceil_mode=True), X5),
    ("avg_pool3d", lambda F, x: F.avg_pool3d(x, 2), X5),
    ("avg_pool3d_padded", lambda F, x: F.avg_pool3d(x, 3, 2, 1), X5),
    ("avg_pool3d_exclude_pad_ceil", lambda F, x: F.avg_pool3d(x, 3, 2, 1, True, False), X5),
    ("avg_pool3d_divisor", lambda F, x: F.avg_pool3d(x, (2, 3, 3), 2, 1, True, True, 5), X5),
    ("lp_pool1d", lambda F, x: F.lp_pool1d(x, 2, 3, 2), RNG.standard_normal((2, 3, 8))),
    ("lp_pool2d_ceil", lambda F, x: F.lp_pool2d(x, 3, (2, 3), ceil_mode=True), np.abs(RNG.standard_normal((2, 3, 7, 8)))),
    ("lp_pool3d", lambda F, x: F.lp_pool3d(x, 2, 2), X5),
    ("max_unpool1d_output_size", lambda F, x: F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2,
                                                             output_size=[9]), RNG.standard_normal((2, 3, 9))),
    ("max_unpool2d", lambda F, x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2),
     RNG.standard_normal((2, 3, 6, 8))),
    ("max_unpool3d", lambda F, x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2), X5[:, :, :4, :, :6]),
    ("adaptive_avg_pool3d", lambda F, x: F.adaptive_avg_pool3d(x, (2, 4, 3)), X5),
    ("adaptive_avg_pool3d_1", lambda F, x: F.adaptive_avg_pool3d(x, 1), X5),
    ("adaptive_max_pool3d", lambda F, x: F.adaptive_max_pool3d(x, (3, None, 2)), X5),
    ("adaptive_max_pool1d_indices", lambda F, x: F.adaptive_max_pool1d(x, 4, True), RNG.standard_normal((2, 3, 9))),
    ("adaptive_max_pool2d_indices", lambda F, x: F.adaptive_max_pool2d(x, (3, None), True), X5[:, :, 0]),
    ("adaptive_max_pool3d_indices", lambda F, x: F.adaptive_max_pool3d(x, (2, 4, 3), True), X5),
    ("adaptive_max_pool2d_unbatched", lambda F, x: F.adaptive_max_pool2d_with_indices(x, 2), X5[0, :, 0]),
    ("fractional_max_pool2d", lambda F, x: F.fractional_max_pool2d(
        x, (2, 3), (4, 3), return_indices=True, _random_samples=x.new_tensor(SAMPLES2)), X5[:, :, 0]),
    ("fractional_max_pool2d_ratio", lambda F, x: F.fractional_max_pool2d(
        x, 2, output_ratio=(0.6, 0.5), _random_samples=x.new_tensor(SAMPLES2)), X5[:, :, 0]),
    ("fractional_max_pool3d", lambda F, x: F.fractional_max_pool3d(
        x, 2, (3, 4, 4), return_indices=True, _random_samples=x.new_tensor(SAMPLES3)), X5),
]


@pytest.mark.parametrize("name, call, arrays", [(c[0], c[1], c[2:]) for c in CASES], ids=[c[0] for c in CASES])
def test_matches_torch_in_values_and_gradients(name, call, arrays):
    mine = [ember.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    got, expected = call(EF, *mine), call(TF, *theirs)
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got, expected, strict=True):
        assert tuple(g.shape) == tuple(e.shape) and str(g.dtype)[6:] == str(e.dtype)[6:]
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-7, atol=1e-9)
    seed = RNG.standard_normal(tuple(expected[0].shape))
    got[0].backward(ember.tensor(seed))
    expected[0].backward(torch.tensor(seed))
    for m, t in zip(mine, theirs):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_conv3d_gradcheck():
    x = ember.tensor(RNG.standard_normal((1, 2, 3, 3, 3)), requires_grad=True)
    w = ember.tensor(RNG.standard_normal((2, 1, 2, 1, 2)), requires_grad=True)
    assert ember.autograd.gradcheck(lambda a, b: EF.conv3d(a, b, stride=(1, 2, 1), groups=2), (x, w))


MODULES = [
    ("Conv3d", (4, 6, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ("Conv3d", (4, 6, 3), {"padding": "same", "padding_mode": "reflect"}),
    ("ConvTranspose1d", (4, 6, 3), {"stride": 2, "output_padding": 1}),
    ("ConvTranspose3d", (4, 2, (2, 3, 1)), {"bias": False}),
    ("MaxPool3d", (2,), {}),
    ("AvgPool3d", (3, 2, 1), {}),
    ("AdaptiveAvgPool3d", ((1, 2, 3),), {}),
    ("AdaptiveMaxPool3d", (2,), {}),
    ("LPPool1d", (1.5, 2), {}),
    ("LPPool2d", (2, 3), {}),
    ("LPPool3d", (2, 2), {}),
    ("MaxUnpool2d", (2,), {}),
    ("FractionalMaxPool2d", (3,), {"output_ratio": 0.5}),
    ("FractionalMaxPool3d", (2,), {"output_size": 3}),
]


@pytest.mark.parametrize("name, args, kwargs", MODULES, ids=[m[0] for m in MODULES])
def test_module_repr_and_forward_match_torch(name, args, kwargs):
    mine, theirs = getattr(ember.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(mine) == repr(theirs)
    if name == "MaxUnpool2d" or name.startswith("Fractional"):  # (random windows: forward checked above)
        return
    for param_name, param in theirs.named_parameters():
        getattr(mine, param_name).data = ember.tensor(param.detach().numpy())
    x = RNG.standard_normal((2, 4, 5, 6, 7) if "3d" in name else (2, 4, 9)).astype(np.float32)
    np.testing.assert_allclose(mine(ember.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)


def test_transposed_module_takes_output_size():
    mine, theirs = ember.nn.ConvTranspose1d(2, 3, 3, stride=2), torch.nn.ConvTranspose1d(2, 3, 3, stride=2)
    x = np.ones((1, 2, 5), np.float32)
    assert tuple(mine(ember.tensor(x), output_size=[12]).shape) == tuple(theirs(torch.tensor(x), output_size=[12]).shape)
    with pytest.raises(ValueError, match="valid sizes range from 11 to 12"):
        mine(ember.tensor(x), output_size=[13])


@pytest.mark.parametrize("call, message", [
    (lambda F: F.conv3d(F.pad(ember.ones(1, 2, 3, 3, 3), (0, 0)), ember.ones(2, 2, 3, 3)), "5D weight"),
    (lambda F: F.conv3d(ember.ones(1, 3, 3, 3, 3), ember.ones(2, 2, 1, 1, 1)), "expected input with 2 channels"),
    (lambda F: F.conv3d(ember.ones(1, 2, 2, 3, 3), ember.ones(2, 2, 3, 1, 1)), "smaller than the dilated kernel"),
    (lambda F: F.max_pool3d(ember.ones(2, 3), 2), "expected a 4D \\(unbatched\\) or 5D"),
    (lambda F: F.max_pool3d(ember.ones(1, 1, 4, 4, 4), 2, padding=2), "pad should be at most half"),
    (lambda F: F.avg_pool3d(ember.ones(1, 1, 4, 4, 4), 2, divisor_override=0), "divisor must be not zero"),
    (lambda F: F.max_unpool2d(ember.ones(1, 1, 2, 2), ember.tensor([[[[0, 1], [2, 99]]]]), 2),
     "Found an invalid max index: 99"),
    (lambda F: F.conv_transpose2d(ember.ones(1, 2, 3, 3), ember.ones(2, 1, 3, 3), stride=1, output_padding=1),
     "output padding must be smaller"),
    (lambda F: F.fractional_max_pool2d(ember.ones(1, 1, 4, 4), 2), "requires specifying either an output_size"),
    (lambda F: F.fractional_max_pool2d(ember.ones(1, 1, 4, 4), 3, 3), "must be at most the input size"),
    (lambda F: ember.nn.FractionalMaxPool2d(2, output_ratio=1.5), "output_ratio must be between 0 and 1"),
])
def test_bad_input_names_the_op(call, message):
    with pytest.raises((RuntimeError, ValueError), match=message):
        call(EF)
