import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Uniform(Distribution):
    """The uniform distribution on the half-open interval [low, high)."""

    arg_constraints = {"low": constraints.real, "high": constraints.real}
    support = constraints.dependent
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError(f"Uniform is not defined when low >= high: low {self.low}, high {self.high}")

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """Every point of [low, high) is a mode; as torch, NaN."""
        return self.high * float("nan")

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        u = ember.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value).to(self.low.dtype) * (self.high > value).to(self.low.dtype)
        return ember.log(inside) - ember.log(self.high - self.low)

    def cdf(self, value):
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return ember.log(self.high - self.low)
