"""InstanceNorm1d/2d/3d: each sample's channels normalized over their own positions."""

import warnings

from .. import functional as F
from .batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    spatial_dims = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype)

    def _check_input_dim(self, input):
        if input.dim() not in (self.spatial_dims + 1, self.spatial_dims + 2):
            raise ValueError(f"expected {self.spatial_dims + 1}D or {self.spatial_dims + 2}D input "
                             f"(got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        batched = input.dim() == self.spatial_dims + 2
        channels = input.size(1 if batched else 0)
        if channels != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={1 if batched else 0} to match num_features "
                                 f"({self.num_features}), but got: {channels}.")
            warnings.warn(f"input's size at dim={1 if batched else 0} does not match num_features. You can "
                          "silence this warning by not passing in num_features, which is not used because "
                          "affine=False")
        x = input if batched else input.unsqueeze(0)
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum if self.momentum is not None
                              else 0.0, self.eps)
        return out if batched else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    spatial_dims = 2


class InstanceNorm3d(_InstanceNorm):
    spatial_dims = 3
