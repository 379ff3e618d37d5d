"""Bad window parameters of convolution, pooling and resizing.

Zero or negative kernel sizes, strides and dilations used to reach the shape
arithmetic, where they divided by zero (SIGFPE killed the process) or gave
nonsense sizes. Each must be an exception naming the op and the parameter;
torch (the oracle where installed) must reject the same input.
"""

import pytest

import ember
import ember.nn.functional as F

torch = pytest.importorskip("torch")

X = ember.randn(1, 2, 8, 8)
W = ember.randn(3, 2, 3, 3)

BAD = {
    "conv2d stride 0": (lambda m, f: f.conv2d(X if m is ember else torch.randn(1, 2, 8, 8), W if m is ember else torch.randn(3, 2, 3, 3), stride=0), "conv2d: stride must be greater than zero"),
    "conv2d stride -1": (lambda m, f: f.conv2d(X if m is ember else torch.randn(1, 2, 8, 8), W if m is ember else torch.randn(3, 2, 3, 3), stride=-1), "conv2d: stride must be greater than zero"),
    "conv2d dilation 0": (lambda m, f: f.conv2d(X if m is ember else torch.randn(1, 2, 8, 8), W if m is ember else torch.randn(3, 2, 3, 3), dilation=0), "conv2d: dilation must be greater than zero"),
    "conv2d padding -1": (lambda m, f: f.conv2d(X if m is ember else torch.randn(1, 2, 8, 8), W if m is ember else torch.randn(3, 2, 3, 3), padding=-1), "conv2d: padding must be non-negative"),
    "max_pool2d kernel 0": (lambda m, f: f.max_pool2d(m.randn(1, 2, 8, 8), 0), "max_pool2d: kernel_size must be greater than zero"),
    "max_pool2d kernel -1": (lambda m, f: f.max_pool2d(m.randn(1, 2, 8, 8), -1), "max_pool2d: kernel_size must be greater than zero"),
    "max_pool2d stride 0": (lambda m, f: f.max_pool2d(m.randn(1, 2, 8, 8), 2, stride=0), "max_pool2d: stride must be greater than zero"),
    "max_pool2d dilation 0": (lambda m, f: f.max_pool2d(m.randn(1, 2, 8, 8), 2, dilation=0), "max_pool2d: dilation must be greater than zero"),
    "avg_pool2d kernel 0": (lambda m, f: f.avg_pool2d(m.randn(1, 2, 8, 8), 0), "avg_pool2d: kernel_size must be greater than zero"),
    "avg_pool2d stride 0": (lambda m, f: f.avg_pool2d(m.randn(1, 2, 8, 8), 2, stride=0), "avg_pool2d: stride must be greater than zero"),
    "avg_pool2d kernel larger than input": (lambda m, f: f.avg_pool2d(m.randn(1, 2, 8, 8), 20), "avg_pool2d: output size is too small"),
    "adaptive_avg_pool2d -1": (lambda m, f: f.adaptive_avg_pool2d(m.randn(1, 2, 8, 8), -1), "must be greater than or equal to 0"),
    "interpolate size 0": (lambda m, f: f.interpolate(m.randn(1, 2, 8, 8), size=0), "sizes should be greater than 0"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_window_parameters_raise(name):
    make, message = BAD[name]
    with pytest.raises((RuntimeError, ValueError), match=message):
        make(ember, F)
    with pytest.raises(Exception):
        make(torch, torch.nn.functional)


def test_empty_adaptive_output_is_allowed_as_in_torch():
    assert F.adaptive_avg_pool2d(X, 0).shape == (1, 2, 0, 0)
    assert tuple(torch.nn.functional.adaptive_avg_pool2d(torch.randn(1, 2, 8, 8), 0).shape) == (1, 2, 0, 0)


def test_an_impossible_resize_fails_fast():
    with pytest.raises(RuntimeError, match="not enough memory"):
        F.interpolate(X, scale_factor=1e12)
