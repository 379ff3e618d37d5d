"""Folding an eval-mode BatchNorm into the convolution or linear layer
before it (torch.nn.utils.fusion): y = bn(conv(x)) becomes one conv whose
weight and bias absorb the normalization, for faster inference."""

import copy

import ember

from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _bn_scale(bn_rv, bn_eps, bn_w):
    inverse_std = ember.rsqrt(bn_rv + bn_eps)
    return inverse_std if bn_w is None else bn_w * inverse_std


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The weight and bias (Parameters) of conv followed by eval-mode batch norm, as one conv."""
    conv_b = ember.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_b = ember.zeros_like(bn_rm) if bn_b is None else bn_b
    scale = _bn_scale(bn_rv, bn_eps, bn_w)
    # Output channels are dim 0 of a convolution's weight, dim 1 of a transposed one's.
    shape = [1, -1] + [1] * (conv_w.dim() - 2) if transpose else [-1] + [1] * (conv_w.dim() - 1)
    fused_w = (conv_w * scale.reshape(shape)).to(conv_w.dtype)
    fused_b = ((conv_b - bn_rm) * scale + bn_b).to(conv_w.dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def _fused_copy(layer, bn, fuse_weights):
    """A copy of layer whose weight and bias are fuse_weights(...) of its own and bn's statistics."""
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("fusing a batch norm needs one that tracks running statistics")
    fused = copy.deepcopy(layer)
    fused.weight, fused.bias = fuse_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps,
                                            bn.weight, bn.bias)
    return fused


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of conv with bn (both in eval mode) folded into it."""
    return _fused_copy(conv, bn, lambda *parts: fuse_conv_bn_weights(*parts, transpose=transpose))


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The weight and bias (Parameters) of linear followed by eval-mode batch norm, as one linear."""
    if linear_w.shape[0] != bn_rm.shape[0]:
        raise AssertionError("To fuse, linear.out_features must equal bn.num_features (or bn.num_features must "
                             "be 1)")
    linear_b = ember.zeros_like(bn_rm) if linear_b is None else linear_b
    bn_b = ember.zeros_like(bn_rm) if bn_b is None else bn_b
    scale = _bn_scale(bn_rv, bn_eps, bn_w)
    fused_w = linear_w * scale.unsqueeze(-1)
    fused_b = (linear_b - bn_rm) * scale + bn_b
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of linear with bn (both in eval mode) folded into it."""
    return _fused_copy(linear, bn, fuse_linear_bn_weights)
