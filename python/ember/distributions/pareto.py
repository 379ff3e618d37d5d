"""The Pareto (power-law) distribution on [scale, inf)."""

import math

import ember

from . import constraints
from .distribution import Distribution
from .exponential import Exponential
from .utils import broadcast_all


class Pareto(Distribution):
    """Density alpha scale^alpha / x^(alpha + 1) for x >= scale; drawn as scale exp(E / alpha), E ~ Exp(1)."""

    arg_constraints = {"scale": constraints.positive, "alpha": constraints.positive}
    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return ember.where(self.alpha > 1, a * self.scale / (a - 1), math.inf)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return ember.where(self.alpha > 2, self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2)), math.inf)

    def rsample(self, sample_shape=ember.Size()):
        return self.scale * Exponential(self.alpha, validate_args=False).rsample(sample_shape).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.alpha.log() + self.alpha * self.scale.log() - (self.alpha + 1) * ember.as_tensor(value).log()

    def cdf(self, value):
        return 1 - (self.scale / value).pow(self.alpha)

    def icdf(self, prob):
        return self.scale * (1 - prob).pow(-1 / self.alpha)

    def entropy(self):
        return (self.scale / self.alpha).log() + 1 / self.alpha + 1
