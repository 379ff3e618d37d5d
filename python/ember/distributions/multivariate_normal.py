import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import CenteredAtLoc, lazy_property


def _batch_mv(matrix, vector):
    return (matrix @ vector.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(scale_tril, diff):
    """|L^-1 diff|^2 over the trailing event dimension, L lower triangular, batches broadcast."""
    solved = ember.linalg.solve_triangular(scale_tril, diff.unsqueeze(-1), upper=False).squeeze(-1)
    return solved.pow(2).sum(-1)


def _precision_to_scale_tril(precision):
    """The lower Cholesky factor of precision^-1 without inverting the precision: with the flip J (J = J^-1
    = J^T), chol(J P J) = Lf gives P^-1 = (J Lf^-T J)(J Lf^-T J)^T, and J Lf^-T J is lower triangular."""
    flipped = ember.linalg.cholesky(ember.flip(precision, (-2, -1)))
    inverse_transpose = ember.transpose(ember.flip(flipped, (-2, -1)), -2, -1)
    identity = ember.eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return ember.linalg.solve_triangular(inverse_transpose, identity, upper=False)


def _the_matrix_given(covariance_matrix, precision_matrix, scale_tril):
    """(name, matrix) of the one of the three forms of a covariance that was given (checked to be one, at
    least 2-D); the distribution keeps it, broadcast, under that name, and derives the others lazily."""
    if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
        raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
    name, given = next((n, m) for n, m in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix)) if m is not None)
    if given.dim() < 2:
        raise ValueError("scale_tril, covariance_matrix or precision_matrix must be at least two-dimensional, "
                         "with optional leading batch dimensions")
    return name, given


def _scale_tril_of(covariance_matrix, precision_matrix, scale_tril):
    """The lower Cholesky factor of the covariance, from whichever form was given."""
    if scale_tril is not None:
        return scale_tril
    if covariance_matrix is not None:
        return ember.linalg.cholesky(covariance_matrix)
    return _precision_to_scale_tril(precision_matrix)


class MultivariateNormal(CenteredAtLoc, Distribution):
    """The normal distribution over vectors of the last dimension of loc, given by exactly one of its
    covariance_matrix, precision_matrix or lower Cholesky factor scale_tril."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        name, given = _the_matrix_given(covariance_matrix, precision_matrix, scale_tril)
        batch_shape = ember.broadcast_shapes(tuple(given.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, given.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = _scale_tril_of(covariance_matrix, precision_matrix, scale_tril)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.mT).expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @lazy_property
    def precision_matrix(self):
        return ember.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        noise = ember.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, noise)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        mahalanobis = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self):
        entropy = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return entropy.expand(self._batch_shape) if len(self._batch_shape) else entropy
