"""Ready-made parametrizations (torch.nn.utils.parametrizations): weight_norm."""

import ember

from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of v over every dim but `dim` (kept, with size-1 dims elsewhere); dim -1: over all of v."""
    if dim == -1 or dim is None:
        return v.norm()
    dims = [d for d in range(v.dim()) if d != dim % v.dim()]
    return v.norm(2, dim=dims, keepdim=True) if dims else v.abs()


def _weight_norm(v, g, dim):
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    r"""Reparametrizes ``module.<name>`` as g * v / ||v|| (norm over all dims but ``dim``): the magnitude g is
    ``parametrizations.<name>.original0`` and the direction v ``original1``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module
