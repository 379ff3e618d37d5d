"""The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019)."""

import math

import ember
import ember.nn.functional as F

from . import constraints
from .distribution import Distribution
from .utils import SuccessProbability, clamp_probs, lazy_property, logits_to_probs


class ContinuousBernoulli(SuccessProbability, Distribution):
    """Density C(p) p^x (1 - p)^(1 - x) on [0, 1], where C(p) = 2 atanh(1 - 2p) / (1 - 2p)
    normalizes it. Near p = 1/2, inside ``lims``, where that ratio is 0/0, the
    normalizer and the moments are their Taylor series in (p - 1/2)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        param = self._take_probability(probs, logits)
        self._lims = lims
        super().__init__(param.shape, validate_args=validate_args)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _stable(self):
        """Where p is outside lims, and p itself there (a harmless stand-in inside)."""
        p = self.probs
        outside = (p <= self._lims[0]) | (p > self._lims[1])
        return outside, ember.where(outside, p, ember.full_like(p, self._lims[0]))

    def _log_odds_gap(self, p):
        """log(1 - p) - log(p) = 2 atanh(1 - 2p)."""
        return ember.log1p(-p) - ember.log(p)

    def _log_normalizer(self):
        outside, p = self._stable()
        exact = self._log_odds_gap(p).abs().log() - (1 - 2 * p).abs().log()
        d2 = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * d2) * d2
        return ember.where(outside, exact, taylor)

    @property
    def mean(self):
        outside, p = self._stable()
        exact = p / (2 * p - 1) + 1 / self._log_odds_gap(p)
        d = self.probs - 0.5
        return ember.where(outside, exact, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * d.pow(2)) * d)

    @property
    def mode(self):
        # The density is monotone in x: its maximum is at 1 for p > 1/2, at 0 for
        # p < 1/2, and everywhere at p = 1/2 (torch gives no mode).
        p = self.probs
        return ember.where(p > 0.5, ember.ones_like(p), ember.where(p < 0.5, ember.zeros_like(p), math.nan))

    @property
    def variance(self):
        outside, p = self._stable()
        exact = p * (p - 1) / (1 - 2 * p).pow(2) + 1 / self._log_odds_gap(p).pow(2)
        d2 = (self.probs - 0.5).pow(2)
        return ember.where(outside, exact, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * d2) * d2)

    def rsample(self, sample_shape=ember.Size()):
        u = ember.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.logits.dtype, device=self.logits.device)
        if self._validate_args:
            self._validate_sample(value)
        logits, value = ember.broadcast_tensors(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + self._log_normalizer()

    def cdf(self, value):
        value = ember.as_tensor(value, dtype=self.probs.dtype, device=self.probs.device)
        outside, p = self._stable()
        exact = (p.pow(value) * (1 - p).pow(1 - value) + p - 1) / (2 * p - 1)
        inside = ember.where(outside, exact, value)
        return ember.where(value <= 0, ember.zeros_like(inside), ember.where(value >= 1, ember.ones_like(inside), inside))

    def icdf(self, value):
        outside, p = self._stable()
        exact = (ember.log1p(-p + value * (2 * p - 1)) - ember.log1p(-p)) / (ember.log(p) - ember.log1p(-p))
        return ember.where(outside, exact, value)

    def entropy(self):
        log_q, log_p = ember.log1p(-self.probs), ember.log(self.probs)
        return self.mean * (log_q - log_p) - self._log_normalizer() - log_q
