import ember
import ember.nn.functional as F

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import OverCategorical


class OneHotCategorical(OverCategorical, Distribution):
    """A Categorical whose values are one-hot vectors of length K."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args=False)
        if validate_args is not None:
            self._validate_args = validate_args

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        probs = self.probs
        return ember.nn.functional.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=ember.Size()):
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, self._event_shape[0]).to(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()
