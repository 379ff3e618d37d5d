"""float32 conv2d runs oneDNN's Winograd kernel for large 3x3 stride-1
convolutions on AVX-512 CPUs and the direct kernel elsewhere
(aten/native/Convolution.cpp). Both must give torch's float64 result within
float32 rounding, forward and backward, on the shapes around the switch."""

import numpy as np
import pytest

import ember
from torch_oracle import N, torch

# (input shape, out channels, kwargs): the first ones take Winograd where the CPU has AVX-512, the rest stay
# direct (too few channels, stride 2, dilation, groups, too little work).
CASES = [
    ((8, 32, 16, 16), 32, dict(padding=1)),
    ((2, 64, 28, 28), 48, dict(padding=1, bias=True)),
    ((6, 16, 32, 32), 32, dict(padding=0)),
    ((8, 3, 32, 32), 32, dict(padding=1)),
    ((8, 32, 16, 16), 32, dict(padding=1, stride=2)),
    ((8, 32, 16, 16), 32, dict(padding=2, dilation=2)),
    ((8, 32, 16, 16), 32, dict(padding=1, groups=2)),
    ((2, 16, 8, 8), 16, dict(padding=1)),
]


@pytest.mark.parametrize("shape,out_channels,kwargs", CASES)
def test_conv2d_forward_and_backward_match_float64(shape, out_channels, kwargs):
    kwargs = dict(kwargs)
    with_bias = kwargs.pop("bias", False)
    rng = np.random.default_rng(sum(shape) + out_channels)
    groups = kwargs.get("groups", 1)
    x = rng.standard_normal(shape).astype(np.float32)
    w = (rng.standard_normal((out_channels, shape[1] // groups, 3, 3)) / np.sqrt(9 * shape[1])).astype(np.float32)
    b = rng.standard_normal(out_channels).astype(np.float32) if with_bias else None

    xt, wt = torch.tensor(x, dtype=torch.float64, requires_grad=True), torch.tensor(w, dtype=torch.float64,
                                                                                   requires_grad=True)
    bt = torch.tensor(b, dtype=torch.float64, requires_grad=True) if with_bias else None
    expected = torch.nn.functional.conv2d(xt, wt, bt, **kwargs)
    grad_out = rng.standard_normal(tuple(expected.shape)).astype(np.float32)
    expected.backward(torch.tensor(grad_out, dtype=torch.float64))

    xe, we = ember.tensor(x, requires_grad=True), ember.tensor(w, requires_grad=True)
    be = ember.tensor(b, requires_grad=True) if with_bias else None
    out = ember.conv2d(xe, we, be, **kwargs)
    out.backward(ember.tensor(grad_out))

    for name, got, want in [("output", out, expected), ("grad input", xe.grad, xt.grad),
                            ("grad weight", we.grad, wt.grad)] + ([("grad bias", be.grad, bt.grad)] if with_bias else []):
        want = N(want)
        scale = np.abs(want).max()
        # Winograd's rounding stays a few 1e-6 of the result's scale; direct's is smaller.
        np.testing.assert_allclose(N(got), want, rtol=0, atol=2e-5 * scale, err_msg=name)
