"""LayerNorm, GroupNorm, RMSNorm."""

import numbers

import ember

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm"]


def _as_shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


class LayerNorm(Module):
    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(ember.empty(list(self.normalized_shape), dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(ember.empty(list(self.normalized_shape), dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class GroupNorm(Module):
    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.weight = Parameter(ember.empty([num_channels], dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(ember.empty([num_channels], dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{num_groups}, {num_channels}, eps={eps}, affine={affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class RMSNorm(Module):
    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(ember.empty(list(self.normalized_shape), dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)


class LocalResponseNorm(Module):
    r"""Normalizes each channel by the squares of its `size` neighbouring channels."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class CrossMapLRN2d(Module):
    """Lua Torch's cross-channel LRN on 4-D input: each channel divided by
    (k + alpha / size * running sum of squares) ** beta, the running sum
    over channels kept the way the legacy kernel keeps it (a window that
    starts (size - 1) // 2 + 1 channels wide and is not centered).
    Ember differentiates this forward exactly; torch's hand-written legacy
    backward does not (torch's gradcheck of its own module fails)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        squares = input * input
        channels = input.size(1)
        reach = (self.size - 1) // 2 + 1
        # The legacy recurrence: sum[0] = squares[0 : reach]; each next channel
        # adds squares[c + reach - 1] (while inside) and drops squares[c - reach] once c > reach.
        sums = [squares[:, :min(reach, channels)].sum(1)]
        for c in range(1, channels):
            current = sums[-1]
            if c < channels - reach + 1:
                current = current + squares[:, c + reach - 1]
            if c > reach:
                current = current - squares[:, c - reach]
            sums.append(current)
        scale = ember.stack(sums, 1) * (self.alpha / self.size) + self.k
        return input * scale.pow(-self.beta)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
