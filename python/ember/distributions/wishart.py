import math

import ember

from . import constraints
from .distribution import Distribution
from .multivariate_normal import _scale_tril_of, _the_matrix_given
from .utils import lazy_property


def _multi_digamma(a, p):
    """The multivariate digamma: sum over i < p of digamma(a - i / 2)."""
    steps = ember.arange(p, dtype=a.dtype, device=a.device) / 2
    return ember.digamma(a.unsqueeze(-1) - steps).sum(-1)


class Wishart(Distribution):
    """The Wishart distribution over p x p positive-definite matrices with ``df`` degrees of freedom
    (> p - 1) and scale given by exactly one of covariance_matrix, precision_matrix or scale_tril: the
    law of sum_k x_k x_k^T for df draws x_k ~ N(0, covariance_matrix) when df is an integer.

    rsample is Bartlett's decomposition, X = (L A)(L A)^T with A lower triangular, A[i, i] the square
    root of a chi-squared draw with df - i degrees of freedom and N(0, 1) below the diagonal; gradients
    reach df through the gamma draws' pathwise derivative."""

    arg_constraints = {"covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky,
                       "df": constraints.greater_than(0)}
    support = constraints.positive_definite
    has_rsample = True

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        name, given = _the_matrix_given(covariance_matrix, precision_matrix, scale_tril)
        p = given.shape[-1]
        if isinstance(df, (int, float)):
            df = ember.tensor(float(df), dtype=given.dtype, device=given.device)
        batch_shape = ember.broadcast_shapes(tuple(given.shape[:-2]), tuple(df.shape))
        self.df = df.expand(batch_shape)
        setattr(self, name, given.expand(tuple(batch_shape) + (p, p)))
        self._unbroadcasted_scale_tril = _scale_tril_of(covariance_matrix, precision_matrix, scale_tril)
        # df must exceed p - 1: the bound depends on the event, so the constraint is set per instance.
        self.arg_constraints = dict(self.arg_constraints, df=constraints.greater_than(p - 1))
        super().__init__(batch_shape, ember.Size((p, p)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = tuple(batch_shape)
        return Wishart(self.df.expand(shape), scale_tril=self._unbroadcasted_scale_tril.expand(shape + (-1, -1)),
                       validate_args=False)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._extended_shape())

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.mT).expand(self._extended_shape())

    @lazy_property
    def precision_matrix(self):
        return ember.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._extended_shape())

    @property
    def _p(self):
        return self._event_shape[-1]

    @property
    def mean(self):
        return self.df[..., None, None] * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self._p - 1
        factor = ember.where(factor > 0, factor, ember.full_like(factor, float("nan")))
        return factor[..., None, None] * self.covariance_matrix

    @property
    def variance(self):
        cov = self.covariance_matrix
        diagonal = cov.diagonal(dim1=-2, dim2=-1)
        return self.df[..., None, None] * (cov.pow(2) + diagonal.unsqueeze(-1) * diagonal.unsqueeze(-2))

    def rsample(self, sample_shape=ember.Size()):
        sample_shape = ember.Size(sample_shape)
        p = self._p
        shape = self._extended_shape(sample_shape)
        dtype, device = self._unbroadcasted_scale_tril.dtype, self._unbroadcasted_scale_tril.device
        df = self.df.expand(tuple(sample_shape) + tuple(self._batch_shape))
        # chi2(k) = 2 Gamma(k / 2, 1): one per diagonal entry, k = df - i.
        half_dof = (df.unsqueeze(-1) - ember.arange(p, dtype=dtype, device=device)) / 2
        diagonal = (2 * ember._standard_gamma(half_dof)).sqrt()
        A = ember.randn(shape, dtype=dtype, device=device).tril(-1) + ember.diag_embed(diagonal)
        LA = self._unbroadcasted_scale_tril @ A
        return LA @ LA.mT

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p, nu = self._p, self.df
        half_log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = ember.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (-nu * half_log_det_scale - 0.5 * nu * p * math.log(2) - ember.mvlgamma(0.5 * nu, p)
                + 0.5 * (nu - p - 1) * ember.linalg.slogdet(value).logabsdet - 0.5 * trace)

    def entropy(self):
        p, nu = self._p, self.df
        half_log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * half_log_det_scale + 0.5 * p * (p + 1) * math.log(2) + ember.mvlgamma(0.5 * nu, p)
                - 0.5 * (nu - p - 1) * _multi_digamma(0.5 * nu, p) + 0.5 * nu * p)

    def __repr__(self):
        return f"Wishart(df: {self.df}, covariance_matrix: {self.covariance_matrix})"
