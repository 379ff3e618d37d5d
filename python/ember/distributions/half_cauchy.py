"""|X| for X ~ Cauchy(0, scale): a heavy-tailed prior on scales."""

import math

import ember

from .cauchy import Cauchy
from .folded import FoldedAtZero


class HalfCauchy(FoldedAtZero):
    """The absolute value of a zero-centred Cauchy with the given scale (no finite mean or variance)."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0.0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return ember.full_like(self.scale, math.inf)

    @property
    def variance(self):
        return ember.full_like(self.scale, math.inf)
