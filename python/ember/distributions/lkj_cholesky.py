import math

import ember

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all


class LKJCholesky(Distribution):
    """The LKJ distribution over D x D correlation matrices (density proportional to
    det(C)^(concentration - 1)), given as the lower Cholesky factor L of C = L L^T.

    Sampling is the onion method: row 0 is e_0; row i >= 1 puts a Beta(i / 2, c + (D - 2 - i + 1) / 2)
    share y of its unit norm on a uniformly random direction in its first i columns and the rest,
    sqrt(1 - y), on the diagonal."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.shape
        # Row i's Beta: first parameter i / 2, second c + (D - 2) / 2 - (i - 1) / 2 (row 0's is unused: it
        # takes row 1's). torch 2.13 draws rows i >= 2 from Beta((i + 1) / 2, ...), which biases their
        # correlations toward +-1; the test checks the marginal variance 1 / (2c + D - 1) of every entry.
        rows = ember.arange(dim, dtype=self.concentration.dtype).clamp(min=1)
        marginal = self.concentration + 0.5 * (dim - 2)
        super().__init__(batch_shape, ember.Size((dim, dim)), validate_args=validate_args)
        self._beta = Beta(0.5 * rows, marginal.unsqueeze(-1) - 0.5 * (rows - 1), validate_args=False)

    def expand(self, batch_shape, _instance=None):
        return LKJCholesky(self.dim, self.concentration.expand(batch_shape), validate_args=False)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            shape = self._extended_shape(sample_shape)
            y = self._beta.sample(sample_shape).unsqueeze(-1)  # (..., D, 1): each row's off-diagonal share
            directions = ember.randn(shape, dtype=y.dtype).tril(-1)
            norms = ember.linalg.vector_norm(directions, dim=-1, keepdim=True)
            directions = directions / ember.where(norms > 0, norms, ember.ones_like(norms))  # row 0 stays 0
            w = y.sqrt() * directions
            tiny = ember.finfo(w.dtype).tiny
            diagonal = (1 - (w * w).sum(-1)).clamp(min=tiny).sqrt()
            return w + ember.diag_embed(diagonal)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        d = self.dim
        c = self.concentration
        # log density of L: sum_i (2 (c - 1) + D - i - 1) log L[i, i] over rows i = 1 .. D-1.
        rows = ember.arange(1, d, dtype=value.dtype)
        exponents = 2 * (c - 1).unsqueeze(-1) + d - rows - 1
        unnormalized = (exponents * value.diagonal(dim1=-2, dim2=-1)[..., 1:].log()).sum(-1)
        # The normalizing constant of the LKJ density in this parametrization.
        alpha = c + 0.5 * (d - 1)
        log_normalizer = (0.5 * (d - 1) * math.log(math.pi) + ember.mvlgamma(alpha - 0.5, d - 1)
                          - (d - 1) * ember.lgamma(alpha))
        return unnormalized - log_normalizer

    def __repr__(self):
        return f"LKJCholesky(dim: {self.dim}, concentration: {self.concentration})"
