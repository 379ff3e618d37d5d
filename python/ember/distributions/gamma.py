import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Gamma(Distribution):
    """The gamma distribution of shape concentration and inverse scale rate; rsample is reparameterized
    through the implicit derivative of the gamma quantile, as torch's."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        value = ember._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # Division by a large rate can underflow to 0, where log_prob is -inf: keep the smallest normal number.
        value.detach().clamp_(min=ember.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (ember.xlogy(self.concentration, self.rate) + ember.xlogy(self.concentration - 1, value)
                - self.rate * value - ember.lgamma(self.concentration))

    def entropy(self):
        c = self.concentration
        return c - ember.log(self.rate) + ember.lgamma(c) + (1.0 - c) * ember.digamma(c)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ember.special.gammainc(self.concentration, self.rate * value)


class Chi2(Gamma):
    """The chi-squared distribution with df degrees of freedom: Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2
