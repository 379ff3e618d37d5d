import math

import ember

from . import constraints
from .distribution import Distribution
from .gamma import Chi2
from .utils import broadcast_all


class StudentT(Distribution):
    """Student's t distribution with df degrees of freedom, location loc and scale scale; rsample is
    loc + scale * N / sqrt(V / df) with N standard normal and V chi-squared, both reparameterized."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc.masked_fill(self.df <= 1, math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        infinite = ember.full_like(finite, math.inf)
        return ember.where(self.df > 2, finite, ember.where(self.df > 1, infinite, ember.full_like(finite, math.nan)))

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        normal = ember.randn(shape, dtype=self.df.dtype, device=self.df.device)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * normal * ember.rsqrt(chi2 / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_normalizer = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                          + ember.lgamma(0.5 * self.df) - ember.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * ember.log1p(y.pow(2) / self.df) - log_normalizer

    def entropy(self):
        half_df = 0.5 * self.df
        log_beta = ember.lgamma(half_df) + math.lgamma(0.5) - ember.lgamma(half_df + 0.5)
        return (self.scale.log() + (half_df + 0.5) * (ember.digamma(half_df + 0.5) - ember.digamma(half_df))
                + 0.5 * self.df.log() + log_beta)
