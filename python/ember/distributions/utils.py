"""Helpers shared by the distributions: broadcasting parameters, converting
between probabilities and logits, and values computed once on first use."""

import math
import numbers

import ember
import ember.nn.functional as F


def broadcast_all(*values):
    """The values (tensors or numbers) as tensors of one broadcast shape; numbers take the tensors' dtype
    (the default dtype when there are none)."""
    tensors = [v for v in values if isinstance(v, ember.Tensor)]
    for v in values:
        if not isinstance(v, (ember.Tensor, numbers.Number)):
            raise ValueError("Input arguments must all be instances of numbers.Number or ember.Tensor.")
    dtype = tensors[0].dtype if tensors else ember.get_default_dtype()
    device = tensors[0].device if tensors else None
    as_tensors = [v if isinstance(v, ember.Tensor) else ember.tensor(float(v), dtype=dtype, device=device)
                  for v in values]
    return ember.broadcast_tensors(*as_tensors)


def clamp_probs(probs):
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    clamped = clamp_probs(probs)
    if is_binary:
        return ember.log(clamped) - ember.log1p(-clamped)
    return ember.log(clamped)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return ember.sigmoid(logits)
    return F.softmax(logits, dim=-1)


class lazy_property:
    """A property computed on first access and then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class SuccessProbability:
    """For distributions of one success probability, given as ``probs`` or
    ``logits`` (exactly one; the other is computed on first use)."""

    def _take_probability(self, probs, logits, *others):
        """Stores the one given, broadcast with `others` (numbers or tensors), and returns it (its shape is
        the batch shape), followed by the others broadcast when there are any."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        param, *rest = broadcast_all(value, *others)
        setattr(self, name, param)
        return (param, *rest) if others else param

    @property
    def param_shape(self):
        return self._param().shape

    def _param(self):
        """The parameter as given: probs or logits."""
        return self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


class CenteredAtLoc:
    """For distributions whose mean and mode are both ``loc`` (symmetric and
    unimodal about it)."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


class OverCategorical:
    """For distributions built on a Categorical (``self._categorical``): its probs, logits and parameter
    shape."""

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape


class OverRelaxedBase:
    """For a relaxed distribution made by transforming ``self.base_dist``: its temperature, probs and logits."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def probs(self):
        return self.base_dist.probs

    @property
    def logits(self):
        return self.base_dist.logits


def log_temperature(temperature):
    """log of a temperature given as a number or a tensor."""
    return math.log(temperature) if isinstance(temperature, numbers.Number) else temperature.log()


def _tril_mask(n, diag, device):
    """Where row - col >= -diag, i.e. the lower triangle from diagonal ``diag`` (0: main, -1: strict)."""
    rows = ember.arange(n, device=device).unsqueeze(-1)
    return ember.arange(n, device=device) <= rows + diag


def _tril_count(n, diag):
    """How many entries of an n x n matrix lie on or below diagonal ``diag``."""
    return sum(max(0, min(n, row + diag + 1)) for row in range(n))


def vec_to_tril_matrix(vec, diag=0):
    """A square matrix whose lower triangle (from diagonal ``diag``) holds ``vec`` row by row, 0 elsewhere."""
    m = vec.shape[-1]
    n = max(0, -diag)  # the smallest matrix with any room, grown until the triangle holds m values
    while _tril_count(n, diag) < m:
        n += 1
    if _tril_count(n, diag) != m:
        raise ValueError(f"vec_to_tril_matrix: {m} values do not fill the triangle of any square matrix")
    mask = _tril_mask(n, diag, vec.device)
    matrix = vec.new_zeros(*vec.shape[:-1], n * n)
    index = mask.reshape(-1).nonzero().reshape(-1)
    return matrix.index_copy(-1, index, vec).reshape(*vec.shape[:-1], n, n)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (from diagonal ``diag``) of the last two dims, row by row, as a vector."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    index = _tril_mask(n, diag, mat.device).reshape(-1).nonzero().reshape(-1)
    return mat.reshape(*mat.shape[:-2], n * n).index_select(-1, index)
