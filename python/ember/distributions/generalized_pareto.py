"""The generalized Pareto distribution, the limit law of tails over a threshold."""

import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class GeneralizedPareto(Distribution):
    """Density (1/scale) (1 + c z)^(-1/c - 1) for z = (x - loc) / scale and
    c = concentration (exp(-z) / scale at c = 0, the exponential); support
    [loc, loc - scale / c] for c < 0, else [loc, inf). Drawn by the inverse cdf."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _shape_parts(self):
        """(c == 0 within torch's isclose, c with 1 put where it is 0)."""
        c = self.concentration
        zero = c.abs() <= 1e-8
        return zero, ember.where(zero, ember.ones_like(c), c)

    @property
    def support(self):
        c = self.concentration
        upper = ember.where(c < 0, self.loc - self.scale / c.clamp(max=-1e-300), math.inf)
        return constraints.interval(self.loc, upper)

    @property
    def mean(self):
        valid = self.concentration < 1
        c = ember.where(valid, self.concentration, 0.5)  # finite everywhere, so gradients stay finite too
        return ember.where(valid, self.loc + self.scale / (1 - c), math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        valid = self.concentration < 0.5
        c = ember.where(valid, self.concentration, 0.25)
        return ember.where(valid, self.scale.pow(2) / ((1 - c).pow(2) * (1 - 2 * c)), math.nan)

    def rsample(self, sample_shape=ember.Size()):
        u = ember.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.loc.dtype, device=self.loc.device)
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, c = self._shape_parts()
        power = 1 / c + 1  # 0 at c = -1 (the uniform): no log term then
        tail = ember.where(power == 0, ember.zeros_like(z), power * ember.log1p(c * z))
        return -self.scale.log() - ember.where(zero, z, tail)

    def log_survival_function(self, value):
        z = (ember.as_tensor(value, dtype=self.loc.dtype) - self.loc) / self.scale
        zero, c = self._shape_parts()
        return ember.where(zero, -z, -ember.log1p(c * z) / c)

    def cdf(self, value):
        return -ember.expm1(self.log_survival_function(value))

    def icdf(self, value):
        log_tail = ember.log1p(-ember.as_tensor(value, dtype=self.loc.dtype))
        zero, c = self._shape_parts()
        return ember.where(zero, self.loc - self.scale * log_tail, self.loc + self.scale / c * ember.expm1(-c * log_tail))

    def entropy(self):
        return self.scale.log() + self.concentration + 1
