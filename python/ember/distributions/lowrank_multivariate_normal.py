"""Multivariate normals whose covariance is low rank plus diagonal, W W^T + D:
densities and draws in O(n r^2) through the Woodbury identity, never
forming or factoring the n x n covariance unless asked for it."""

import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import CenteredAtLoc, lazy_property


class LowRankMultivariateNormal(CenteredAtLoc, Distribution):
    """N(loc, cov_factor cov_factor^T + diag(cov_diag)), cov_factor of shape (..., n, rank)."""

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2] != n:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if cov_diag.shape[-1:] != loc.shape[-1:]:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {tuple(loc.shape[-1:])}")
        rank = cov_factor.shape[-1]
        try:
            batch = ember.broadcast_shapes(tuple(loc.shape[:-1]), tuple(cov_factor.shape[:-2]),
                                           tuple(cov_diag.shape[:-1]))
        except RuntimeError as error:
            raise ValueError(f"Incompatible batch shapes: loc {tuple(loc.shape)}, cov_factor "
                             f"{tuple(cov_factor.shape)}, cov_diag {tuple(cov_diag.shape)}") from error
        batch = tuple(batch)
        self.loc = loc.expand(batch + (n,))
        self.cov_factor = cov_factor.expand(batch + (n, rank))
        self.cov_diag = cov_diag.expand(batch + (n,))
        super().__init__(batch, (n,), validate_args=validate_args)

    @lazy_property
    def _capacitance_tril(self):
        """cholesky(I + W^T D^-1 W), the rank x rank matrix Woodbury's identity turns on."""
        w_over_d = self.cov_factor / self.cov_diag.unsqueeze(-1)
        rank = self.cov_factor.shape[-1]
        capacitance = ember.eye(rank, dtype=self.loc.dtype) + self.cov_factor.mT @ w_over_d
        return ember.linalg.cholesky(capacitance)

    @property
    def variance(self):
        return self.cov_factor.pow(2).sum(-1) + self.cov_diag

    @lazy_property
    def covariance_matrix(self):
        return self.cov_factor @ self.cov_factor.mT + ember.diag_embed(self.cov_diag)

    @lazy_property
    def precision_matrix(self):
        # D^-1 - D^-1 W C^-1 W^T D^-1, with C = L L^T the capacitance.
        inverse_diag = self.cov_diag.reciprocal()
        solved = ember.linalg.solve_triangular(self._capacitance_tril, (self.cov_factor * inverse_diag.unsqueeze(-1)).mT,
                                               upper=False)
        return ember.diag_embed(inverse_diag) - solved.mT @ solved

    @lazy_property
    def scale_tril(self):
        return ember.linalg.cholesky(self.covariance_matrix)

    def _log_det(self):
        return 2 * self._capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + self.cov_diag.log().sum(-1)

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        eps_factor = ember.randn(tuple(shape[:-1]) + (self.cov_factor.shape[-1],), dtype=self.loc.dtype)
        eps_diag = ember.randn(shape, dtype=self.loc.dtype)
        return self.loc + (self.cov_factor @ eps_factor.unsqueeze(-1)).squeeze(-1) + self.cov_diag.sqrt() * eps_diag

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        # Mahalanobis by Woodbury: diff^T D^-1 diff - |L^-1 W^T D^-1 diff|^2.
        projected = (self.cov_factor.mT @ (diff / self.cov_diag).unsqueeze(-1))
        solved = ember.linalg.solve_triangular(self._capacitance_tril.expand(tuple(projected.shape[:-2]) +
                                                                             tuple(self._capacitance_tril.shape[-2:])),
                                               projected, upper=False).squeeze(-1)
        mahalanobis = (diff.pow(2) / self.cov_diag).sum(-1) - solved.pow(2).sum(-1)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + self._log_det() + mahalanobis)

    def entropy(self):
        n = self._event_shape[0]
        return 0.5 * (n * (1.0 + math.log(2 * math.pi)) + self._log_det())
