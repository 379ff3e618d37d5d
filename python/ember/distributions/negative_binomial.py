"""The negative binomial distribution: failures before total_count successes."""

import ember
import ember.nn.functional as F

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .poisson import Poisson
from .utils import SuccessProbability


class NegativeBinomial(SuccessProbability, Distribution):
    """P(k) = C(k + r - 1, k) p^k (1 - p)^r for r = total_count and p = probs (the
    probability of each counted event), parameterized by probs or logits."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        param, total_count = self._take_probability(probs, logits, total_count)
        self.total_count = total_count.type_as(param)
        super().__init__(param.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / ember.sigmoid(-self.logits)

    def sample(self, sample_shape=ember.Size()):
        # A Poisson whose rate is Gamma(r, (1 - p) / p): the gamma-Poisson mixture.
        with ember.no_grad():
            rate = Gamma(self.total_count, (-self.logits).exp(), validate_args=False).sample(sample_shape)
            return Poisson(rate, validate_args=False).sample()

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.logits.dtype, device=self.logits.device)
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        unnormalized = r * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        normalizer = ember.lgamma(r + value) - ember.lgamma(1.0 + value) - ember.lgamma(r)
        # r = 0 is a point mass at 0: its normalizer is 0 there, not lgamma(0) - lgamma(0).
        normalizer = normalizer.masked_fill(r + value == 0.0, 0.0)
        return unnormalized + normalizer
