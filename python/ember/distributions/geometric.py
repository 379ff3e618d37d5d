import ember
import ember.nn.functional as F

from . import constraints
from .distribution import Distribution
from .utils import SuccessProbability, broadcast_all


class Geometric(SuccessProbability, Distribution):
    """The number of failures before the first success of Bernoulli(probs) trials."""

    arg_constraints = {"probs": constraints.interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(self._take_probability(probs, logits).shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            raise ValueError(f"Expected parameter probs of Geometric to be in (0, 1], but found {self.probs}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return ember.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        tiny = ember.finfo(self.probs.dtype).tiny
        with ember.no_grad():
            u = ember.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # 0 failures at probs 1 is certain: log 1, not 0 * log(0).
        probs = ember.where((probs == 1) & (value == 0), ember.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
