"""|X| for X ~ Normal(0, scale): a normal folded onto [0, inf)."""

import math

import ember

from . import constraints
from .distribution import Distribution
from .normal import Normal


class HalfNormal(Distribution):
    """The absolute value of a zero-mean normal with standard deviation scale."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        self.base_dist = Normal(0.0, scale, validate_args=False)
        self.scale = self.base_dist.scale
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape=ember.Size()):
        return self.base_dist.rsample(sample_shape).abs()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        density = self.base_dist.log_prob(value) + math.log(2)
        return ember.where(value >= 0, density, -math.inf)

    def cdf(self, value):
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
