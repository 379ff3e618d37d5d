"""Distributions of |X| for X symmetric about 0 (HalfNormal, HalfCauchy): the
density, cdf and entropy follow from the base's by the fold."""

import math

import ember

from . import constraints
from .distribution import Distribution


class FoldedAtZero(Distribution):
    """|X| for X ~ base_dist, a distribution symmetric about 0 with a `scale` parameter."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, base_dist, validate_args=None):
        self.base_dist = base_dist
        self.scale = base_dist.scale
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    def rsample(self, sample_shape=ember.Size()):
        return self.base_dist.rsample(sample_shape).abs()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = ember.as_tensor(value, dtype=self.scale.dtype)
        return ember.where(value >= 0, self.base_dist.log_prob(value) + math.log(2), -math.inf)

    def cdf(self, value):
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
