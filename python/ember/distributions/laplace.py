import ember

from .location_scale import LocationScale


class Laplace(LocationScale):
    """The Laplace (double exponential) distribution with location loc and scale."""

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    def _noise(self, shape):
        # The inverse CDF at u uniform on (-1, 1) (the open end keeps log1p finite).
        eps = ember.finfo(self.loc.dtype).eps
        u = ember.empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(eps - 1, 1)
        return -u.sign() * ember.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -ember.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        return 0.5 - 0.5 * (value - self.loc).sign() * ember.expm1(-(value - self.loc).abs() / self.scale)

    def entropy(self):
        return 1 + ember.log(2 * self.scale)
