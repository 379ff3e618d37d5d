"""The Weibull distribution of scale lambda and shape (concentration) k."""


import ember

from . import constraints
from .distribution import Distribution
from .exponential import Exponential
from .utils import broadcast_all


class Weibull(Distribution):
    """Density (k/lambda) (x/lambda)^(k-1) exp(-(x/lambda)^k) on x >= 0; drawn as
    lambda E^(1/k), E ~ Exp(1) (reparameterized)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * ember.lgamma(1 + 1 / self.concentration).exp()

    @property
    def mode(self):
        # lambda ((k-1)/k)^(1/k) for k > 1; at 0 for k <= 1 (torch raises a
        # negative base to 1/k there: 1 for k = 0.5).
        k = self.concentration.clamp(min=1)
        return ember.where(self.concentration > 1, self.scale * ((k - 1) / k).pow(1 / k), 0.0)

    @property
    def variance(self):
        inv = 1 / self.concentration
        return self.scale.pow(2) * (ember.lgamma(1 + 2 * inv).exp() - (2 * ember.lgamma(1 + inv)).exp())

    def rsample(self, sample_shape=ember.Size()):
        e = Exponential(ember.ones_like(self.scale), validate_args=False).rsample(sample_shape)
        return self.scale * e.pow(1 / self.concentration)

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        if self._validate_args:
            self._validate_sample(value)
        z = value / self.scale
        return (self.concentration / self.scale).log() + (self.concentration - 1) * z.log() - z.pow(self.concentration)

    def cdf(self, value):
        return 1 - (-(value / self.scale).pow(self.concentration)).exp()

    def icdf(self, prob):
        return self.scale * (-ember.log1p(-ember.as_tensor(prob, dtype=self.scale.dtype))).pow(1 / self.concentration)

    def entropy(self):
        inv = 1 / self.concentration
        return 0.5772156649015329 * (1 - inv) + (self.scale * inv).log() + 1
