"""The inverse-gamma distribution: 1 / X for X ~ Gamma(concentration, rate)."""

import math

import ember

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all


class InverseGamma(Distribution):
    """Density rate^c / Gamma(c) x^(-c-1) exp(-rate / x) on x > 0."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    @property
    def mean(self):
        c = self.concentration
        return ember.where(c > 1, self.rate / (c - 1).clamp(min=1e-300), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        c = self.concentration
        return ember.where(c > 2, self.rate.pow(2) / ((c - 1).pow(2) * (c - 2).clamp(min=1e-300)), math.inf)

    def rsample(self, sample_shape=ember.Size()):
        return 1 / Gamma(self.concentration, self.rate, validate_args=False).rsample(sample_shape)

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return ember.xlogy(c, self.rate) - ember.lgamma(c) - (c + 1) * value.log() - self.rate / value

    def cdf(self, value):
        return ember.special.gammaincc(self.concentration, self.rate / value)

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + ember.lgamma(c) - (1 + c) * ember.digamma(c)
