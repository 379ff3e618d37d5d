"""RelaxedBernoulli (the binary Concrete distribution, Maddison et al. 2017):
values in (0, 1) whose draws are differentiable in the parameters and
approach Bernoulli draws as the temperature goes to 0."""

import numbers

import ember

from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import OverRelaxedBase, SuccessProbability, broadcast_all, clamp_probs, log_temperature


class LogitRelaxedBernoulli(SuccessProbability, Distribution):
    """The logit of a RelaxedBernoulli sample: (logit(u) + logits) / temperature for u ~ U(0, 1)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        param = self._take_probability(probs, logits)
        given = probs if probs is not None else logits
        batch_shape = ember.Size() if isinstance(given, numbers.Number) else param.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(ember.rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return log_temperature(self.temperature) + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(OverRelaxedBase, TransformedDistribution):
    """sigmoid of a LogitRelaxedBernoulli sample: values in (0, 1) that approach Bernoulli(probs) draws as the
    temperature approaches 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)
