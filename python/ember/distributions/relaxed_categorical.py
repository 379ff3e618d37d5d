"""RelaxedOneHotCategorical (the Concrete / Gumbel-softmax distribution,
Maddison et al. 2017; Jang et al. 2017): points of the simplex whose draws
are differentiable in the parameters and approach one-hot draws as the
temperature goes to 0."""

import math

import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import OverCategorical, OverRelaxedBase, broadcast_all, clamp_probs, log_temperature


class ExpRelaxedCategorical(OverCategorical, Distribution):
    """The log of a RelaxedOneHotCategorical sample: log_softmax((logits + Gumbel noise) / temperature)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(ember.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # The density of the Concrete distribution in log space: log (K - 1)! + (K - 1) log t + ...
        log_scale = math.lgamma(k) + (k - 1) * log_temperature(self.temperature)
        score = logits - value * self.temperature
        return (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(OverRelaxedBase, TransformedDistribution):
    """exp of an ExpRelaxedCategorical sample: points of the simplex that approach one-hot draws of
    OneHotCategorical(probs) as the temperature approaches 0."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)
