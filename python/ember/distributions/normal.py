import math

import ember

from .location_scale import LocationScale


class Normal(LocationScale):
    """The normal (Gaussian) distribution with mean loc and standard deviation scale."""

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def _noise(self, shape):
        return ember.randn(shape, dtype=self.loc.dtype, device=self.loc.device)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.variance) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        return 0.5 * (1 + ember.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * ember.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
