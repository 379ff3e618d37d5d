import ember

from . import constraints
from .distribution import Distribution
from .utils import SuccessProbability


class Binomial(SuccessProbability, Distribution):
    """The number of successes in total_count independent trials of success probability probs (or
    sigmoid(logits))."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        param, total_count = self._take_probability(probs, logits, total_count)
        self.total_count = total_count.type_as(param)
        super().__init__(param.shape, validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, value
        # log(1 + exp(logits)) * n written to stay finite for large |logits|.
        normalizer = n * self.logits.clamp(min=0) + n * ember.log1p(ember.exp(-self.logits.abs())) - ember.lgamma(n + 1)
        return k * self.logits - ember.lgamma(k + 1) - ember.lgamma(n - k + 1) - normalizer

    def entropy(self):
        counts = self.total_count.unique() if self.total_count.numel() else self.total_count
        if counts.numel() > 1:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        support = self.enumerate_support(False)
        log_prob = self.log_prob(support)
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        counts = self.total_count.unique() if self.total_count.numel() else self.total_count
        if counts.numel() > 1:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        n = int(counts.max().item()) if counts.numel() else 0
        values = ember.arange(1 + n, dtype=self._param().dtype).reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
