import math

import ember

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import OverCategorical, broadcast_all


class Multinomial(OverCategorical, Distribution):
    """Counts of each of the last dimension's categories over total_count independent draws of
    Categorical(probs or logits)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=ember.Size()):
        sample_shape = ember.Size(sample_shape)
        draws = self._categorical.sample(ember.Size((self.total_count,)) + sample_shape)
        # draws: (total_count, *sample_shape, *batch_shape); count them along a new last dimension.
        draws = draws.movedim(0, -1)
        counts = ember.zeros(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return counts.scatter_add_(-1, draws, ember.ones_like(draws, dtype=counts.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # 0 * log(0) is 0: a category of probability 0 drawn 0 times adds nothing.
        logits = logits.masked_fill((value == 0) & (logits == -math.inf), 0)
        log_factorial_n = ember.lgamma(value.sum(-1) + 1)
        log_factorial_xs = ember.lgamma(value + 1).sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self):
        n = ember.tensor(float(self.total_count), dtype=self.probs.dtype)
        support = ember.arange(1, self.total_count + 1, dtype=self.probs.dtype)
        # E[log x_i!] for x_i ~ Binomial(n, p_i), by summing over the support.
        binomial = Binomial(self.total_count, probs=self.probs, validate_args=False)
        k = support.reshape((-1,) + (1,) * self.probs.dim())
        weights = binomial.log_prob(k).exp()
        expected_log_factorials = (weights * ember.lgamma(k + 1)).sum([0, -1])
        return -ember.lgamma(n + 1) - (n * ember.xlogy(self.probs, self.probs)).sum(-1) + expected_log_factorials
