"""ember.nn.grad: the gradients of a convolution with respect to its input or its weight, given the
gradient of its output (torch.nn.grad). A convolution is linear in each of them, so each is the
gradient of the convolution at zeros, taken by autograd (and differentiable in turn)."""

import ember

from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _through(conv, input, weight, wrt, grad_output, **options):
    with ember.enable_grad():
        output = conv(input, weight, **options)
        if tuple(output.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"grad_output has shape {tuple(grad_output.shape)}, but the convolution of these "
                               f"sizes gives {tuple(output.shape)}")
        (grad,) = ember.autograd.grad(output, wrt, grad_output, create_graph=grad_output.requires_grad)
    return grad


def _gradients(conv, dims):
    def grad_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        input = ember.zeros(tuple(input_size), dtype=grad_output.dtype, device=grad_output.device,
                            requires_grad=True)
        return _through(conv, input, weight, input, grad_output, stride=stride, padding=padding,
                        dilation=dilation, groups=groups)

    def grad_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        weight = ember.zeros(tuple(weight_size), dtype=grad_output.dtype, device=grad_output.device,
                             requires_grad=True)
        return _through(conv, input, weight, weight, grad_output, stride=stride, padding=padding,
                        dilation=dilation, groups=groups)

    grad_input.__name__, grad_weight.__name__ = f"conv{dims}d_input", f"conv{dims}d_weight"
    grad_input.__doc__ = f"The gradient of conv{dims}d with respect to an input of ``input_size``."
    grad_weight.__doc__ = f"The gradient of conv{dims}d with respect to a weight of ``weight_size``."
    return grad_input, grad_weight


conv1d_input, conv1d_weight = _gradients(F.conv1d, 1)
conv2d_input, conv2d_weight = _gradients(F.conv2d, 2)
conv3d_input, conv3d_weight = _gradients(F.conv3d, 3)
