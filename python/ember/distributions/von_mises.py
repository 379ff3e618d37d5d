"""The von Mises distribution: the circular analogue of the normal, on angles."""

import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import CenteredAtLoc, broadcast_all


def _log_i0(concentration):
    """log I0(k) without overflow: log(i0e(k)) + k."""
    return ember.special.i0e(concentration).log() + concentration


class VonMises(CenteredAtLoc, Distribution):
    """Angles with density exp(concentration * cos(x - loc)) / (2 pi I0(concentration)); loc is the mean
    direction, and the concentration plays the part of an inverse variance. Samples lie in [-pi, pi)."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def variance(self):
        # The circular variance, 1 - I1(k) / I0(k).
        k = self.concentration
        return 1 - ember.special.i1e(k) / ember.special.i0e(k)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.concentration * ember.cos(value - self.loc) - math.log(2 * math.pi) - _log_i0(self.concentration)

    def sample(self, sample_shape=ember.Size()):
        """Best and Fisher's (1979) rejection sampler, all draws at once, redrawn where rejected."""
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            k = self.concentration.double().expand(shape)
            # The wrapped Cauchy envelope's parameter r; for tiny k the density is nearly uniform and 1/k serves.
            tau = 1 + (1 + 4 * k * k).sqrt()
            rho = (tau - (2 * tau).sqrt()) / (2 * k)
            r = ember.where(k < 1e-5, 1 / k, (1 + rho * rho) / (2 * rho))
            angle = ember.empty(shape, dtype=ember.float64)
            pending = ember.ones(shape, dtype=ember.bool)
            while bool(pending.any()):
                u1, u2, u3 = (ember.rand(shape, dtype=ember.float64) for _ in range(3))
                z = ember.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = k * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                drawn = ember.sign(u3 - 0.5) * f.clamp(-1, 1).acos()
                take = pending & accept
                angle = ember.where(take, drawn, angle)
                pending = pending & ~accept
            x = ember.remainder(angle + self.loc.double() + math.pi, 2 * math.pi) - math.pi
            return x.to(self.loc.dtype)
