"""The Kumaraswamy distribution on (0, 1), a Beta look-alike with a closed-form cdf."""

import ember

from . import constraints
from .distribution import Distribution
from .uniform import Uniform
from .utils import broadcast_all


def _moment(a, b, n):
    """E[X^n] = b B(1 + n/a, b)."""
    return b * (ember.lgamma(1 + n / a) + ember.lgamma(b) - ember.lgamma(1 + b + n / a)).exp()


class Kumaraswamy(Distribution):
    """Density a b x^(a-1) (1 - x^a)^(b-1) with a = concentration1, b = concentration0;
    drawn by inverting the cdf 1 - (1 - x^a)^b (reparameterized)."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        super().__init__(self.concentration1.shape, validate_args=validate_args)

    @property
    def mean(self):
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # ((a - 1) / (a b - 1))^(1/a) where a, b >= 1 and not both 1 (torch's
        # formula gives NaN for every a, b > 1).
        a, b = self.concentration1, self.concentration0
        defined = (a >= 1) & (b >= 1) & ((a > 1) | (b > 1))
        ratio = ((a - 1) / (a * b - 1)).clamp(min=0)
        return ember.where(defined, ratio.pow(1 / a), float("nan"))

    @property
    def variance(self):
        return _moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def rsample(self, sample_shape=ember.Size()):
        u = Uniform(ember.zeros_like(self.concentration1), ember.ones_like(self.concentration1),
                    validate_args=False).rsample(sample_shape)
        return (-ember.expm1(ember.log(u) / self.concentration0)).pow(1 / self.concentration1)

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.concentration1.dtype, device=self.concentration1.device)
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return a.log() + b.log() + (a - 1) * value.log() + (b - 1) * ember.log1p(-value.pow(a))

    def cdf(self, value):
        return -ember.expm1(self.concentration0 * ember.log1p(-ember.as_tensor(value).pow(self.concentration1)))

    def icdf(self, prob):
        prob = ember.as_tensor(prob, dtype=self.concentration1.dtype)
        return (-ember.expm1(ember.log1p(-prob) / self.concentration0)).pow(1 / self.concentration1)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic = ember.digamma(b + 1) + 0.5772156649015329
        return (1 - 1 / b) + (1 - 1 / a) * harmonic - a.log() - b.log()
