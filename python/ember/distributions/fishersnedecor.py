"""The Fisher-Snedecor (F) distribution with df1 and df2 degrees of freedom."""

import ember

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all


class FisherSnedecor(Distribution):
    """The ratio (X1 / df1) / (X2 / df2) of chi-squared draws; reparameterized through Gamma."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        # X1 ~ Gamma(df1 / 2, rate df1) is chi2(df1) / (2 df1); the 2s cancel in X1 / X2.
        self._gamma1 = Gamma(0.5 * self.df1, self.df1, validate_args=False)
        self._gamma2 = Gamma(0.5 * self.df2, self.df2, validate_args=False)
        super().__init__(self.df1.shape, validate_args=validate_args)

    @property
    def mean(self):
        d2 = self.df2
        return ember.where(d2 > 2, d2 / (d2 - 2), float("nan"))

    @property
    def mode(self):
        d1, d2 = self.df1, self.df2
        return ember.where(d1 > 2, (d1 - 2) / d1 * d2 / (d2 + 2), float("nan"))

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2
        return ember.where(d2 > 4, 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4)), float("nan"))

    def rsample(self, sample_shape=ember.Size()):
        x1, x2 = self._gamma1.rsample(sample_shape), self._gamma2.rsample(sample_shape)
        tiny = ember.finfo(x2.dtype).tiny
        x2.detach().clamp_(min=tiny)  # a zero denominator would give inf
        ratio = x1 / x2
        ratio.detach().clamp_(min=tiny)
        return ratio

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.df1.dtype, device=self.df1.device)
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = 0.5 * self.df1, 0.5 * self.df2
        ratio = self.df1 / self.df2
        normalizer = ember.lgamma(h1 + h2) - ember.lgamma(h1) - ember.lgamma(h2)
        return normalizer + h1 * ratio.log() + (h1 - 1) * value.log() - (h1 + h2) * ember.log1p(ratio * value)
