import math

import ember

from .location_scale import LocationScale

_EULER_GAMMA = 0.57721566490153286060


class Gumbel(LocationScale):
    """The Gumbel (type-I extreme value) distribution: loc - scale * log(-log(u)) for u uniform."""

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def variance(self):
        return self.scale.pow(2) * (math.pi ** 2 / 6)

    @property
    def stddev(self):
        return self.scale * (math.pi / math.sqrt(6))

    def _noise(self, shape):
        finfo = ember.finfo(self.loc.dtype)
        u = ember.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        u = finfo.tiny + u * (1 - finfo.eps - finfo.tiny)  # (0, 1): both logs stay finite
        return -(-u.log()).log()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    def cdf(self, value):
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self):
        return self.scale.log() + (1 + _EULER_GAMMA)
