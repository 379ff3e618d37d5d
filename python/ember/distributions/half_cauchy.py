"""|X| for X ~ Cauchy(0, scale): a heavy-tailed prior on scales."""

import math

import ember

from . import constraints
from .cauchy import Cauchy
from .distribution import Distribution


class HalfCauchy(Distribution):
    """The absolute value of a zero-centred Cauchy with the given scale (no finite mean or variance)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        self.base_dist = Cauchy(0.0, scale, validate_args=False)
        self.scale = self.base_dist.scale
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def mean(self):
        return ember.full_like(self.scale, math.inf)

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    @property
    def variance(self):
        return ember.full_like(self.scale, math.inf)

    def rsample(self, sample_shape=ember.Size()):
        return self.base_dist.rsample(sample_shape).abs()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = ember.as_tensor(value, dtype=self.scale.dtype)
        density = self.base_dist.log_prob(value) + math.log(2)
        return ember.where(value >= 0, density, -math.inf)

    def cdf(self, value):
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
