"""|X| for X ~ Normal(0, scale): a normal folded onto [0, inf)."""

import math

from .folded import FoldedAtZero
from .normal import Normal


class HalfNormal(FoldedAtZero):
    """The absolute value of a zero-mean normal with standard deviation scale."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0.0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
