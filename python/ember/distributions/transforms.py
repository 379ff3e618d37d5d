"""Invertible maps for TransformedDistribution, as torch.distributions.transforms:
each maps x to y, has an inverse (``.inv``) and the log of the absolute
Jacobian determinant. ``cache_size=1`` remembers the last (x, y) pair, so
that the log-probability of a sample uses the x it came from (which keeps
TanhTransform exact near +-1)."""

import math

import ember
import ember.nn.functional as F

from . import constraints
from .utils import tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform", "Transform",
           "identity_transform"]


def sum_rightmost(value, dims):
    """value summed over its `dims` rightmost dims (a number stays as it is)."""
    if dims <= 0 or not isinstance(value, ember.Tensor):
        return value
    return value.reshape(*value.shape[:value.dim() - dims], -1).sum(-1)


def _composed_constraint(parts, start, end):
    """The `end` constraint (domain or codomain) of parts applied in this order
    from their `start` side: the last part's own, over as many event dims as
    any part along the way needs."""
    if not parts:
        return constraints.real
    event_dim = getattr(parts[0], start).event_dim
    for part in parts:
        event_dim = max(event_dim + getattr(part, end).event_dim - getattr(part, start).event_dim,
                        getattr(part, end).event_dim)
    last = getattr(parts[-1], end)
    return constraints.independent(last, event_dim - last.event_dim) if event_dim > last.event_dim else last


def _sign(value):
    """The sign of a number (an int) or of each element of a tensor."""
    if isinstance(value, (int, float)):
        return 1 if value > 0 else -1 if value < 0 else 0
    return value.sign()


class Transform:
    bijective = True
    sign = 1
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached = None  # (x, y)

    @property
    def inv(self):
        return _InverseTransform(self)

    def __call__(self, x):
        if self._cache_size and self._cached is not None and self._cached[0] is x:
            return self._cached[1]
        y = self._call(x)
        if self._cache_size:
            self._cached = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size and self._cached is not None and self._cached[1] is y:
            return self._cached[0]
        x = self._inverse(y)
        if self._cache_size:
            self._cached = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    # The shape of y for an x of `shape`, and back (a transform over events may change them).
    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __repr__(self):
        return f"{type(self).__name__}()"

    # Two transforms are equal when they are of one type with equal parameters (what KL between
    # TransformedDistributions needs to know); a subclass with parameters lists them in _key().
    def _key(self):
        return ()

    def __eq__(self, other):
        return type(self) is type(other) and _same(self._key(), other._key())

    def __ne__(self, other):
        return not self == other

    __hash__ = object.__hash__


def _same(a, b):
    if isinstance(a, ember.Tensor) or isinstance(b, ember.Tensor):
        if not (isinstance(a, ember.Tensor) and isinstance(b, ember.Tensor)):
            a, b = ember.as_tensor(a), ember.as_tensor(b)
        return a.shape == b.shape and bool((a == b).all())
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, Transform) or isinstance(b, Transform):
        return a == b
    if isinstance(a, (int, float, str, type(None), ember.Size)):
        return a == b
    return a is b  # distributions and other objects: the same one


class _InverseTransform(Transform):
    def __init__(self, transform):
        super().__init__()
        self._inv = transform


    def _key(self):
        return (self._inv,)

    @property
    def inv(self):
        return self._inv

    @property
    def sign(self):
        return self._inv.sign

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def __repr__(self):
        return f"{self._inv!r}.inv"


class ComposeTransform(Transform):
    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size)
        self.parts = list(parts)


    def _key(self):
        return self.parts

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign *= p.sign
        return sign

    def _call(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def _inverse(self, y):
        for p in reversed(self.parts):
            y = p.inv(y)
        return y

    @property
    def domain(self):
        return _composed_constraint(list(reversed(self.parts)), "codomain", "domain")

    @property
    def codomain(self):
        return _composed_constraint(self.parts, "domain", "codomain")

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return ember.zeros_like(x)
        total = 0
        event_dim = self.domain.event_dim
        for p in self.parts:
            y = p(x)
            total = total + sum_rightmost(p.log_abs_det_jacobian(x, y), event_dim - p.domain.event_dim)
            event_dim += p.codomain.event_dim - p.domain.event_dim
            x = y
        return total


class ExpTransform(Transform):
    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class AffineTransform(Transform):
    """y = loc + scale * x."""

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc, self.scale, self.event_dim = loc, scale, event_dim


    def _key(self):
        return (self.loc, self.scale, self.event_dim)

    @property
    def domain(self):
        return constraints.independent(constraints.real, self.event_dim) if self.event_dim else constraints.real

    codomain = domain

    @property
    def sign(self):
        return _sign(self.scale)

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        if isinstance(self.scale, (int, float)):
            result = ember.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log().expand(ember.broadcast_shapes(self.scale.shape, x.shape))
        if self.event_dim:
            result = result.reshape(*result.shape[:-self.event_dim], -1).sum(-1)
        return result


class SigmoidTransform(Transform):
    codomain = constraints.unit_interval

    def _call(self, x):
        return x.sigmoid()

    def _inverse(self, y):
        tiny, eps = ember.finfo(y.dtype).tiny, ember.finfo(y.dtype).eps
        y = y.clamp(min=tiny, max=1.0 - eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return ember.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2), written to stay finite for large |x|.
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class PowerTransform(Transform):
    """y = x ** exponent on positive x."""

    domain = constraints.positive
    codomain = constraints.positive

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = exponent


    def _key(self):
        return (self.exponent,)

    @property
    def sign(self):
        return _sign(self.exponent)

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        # |d/dx x^p| = |p| y / x
        return (self.exponent * y / x).abs().log()


class SoftplusTransform(Transform):
    """y = log(1 + exp(x)), onto the positive numbers."""

    codomain = constraints.positive

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        # log(exp(y) - 1), written as y + log(-expm1(-y)) to stay finite for large y
        return y + ember.log(-ember.expm1(-y))

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class AbsTransform(Transform):
    """y = |x|: not bijective; the inverse picks the positive preimage."""

    bijective = False
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), onto (0, 1); the inverse is its icdf."""

    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size)
        self.distribution = distribution


    def _key(self):
        return (self.distribution,)

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


class StickBreakingTransform(Transform):
    """Unconstrained vectors of K - 1 values onto the simplex of K: each value
    (shifted by the log of the pieces still to come, so that 0 maps to the
    simplex's center) breaks off the sigmoid of itself from what remains."""

    domain = constraints.independent(constraints.real, 1)
    codomain = constraints.simplex

    @staticmethod
    def _log_pieces_left(k, like):
        """log(k), log(k - 1), ..., log(1) for k values."""
        return (k + 1 - ember.ones(k, dtype=like.dtype, device=like.device).cumsum(-1)).log()

    def _call(self, x):
        z = (x - self._log_pieces_left(x.shape[-1], x)).sigmoid()
        remaining = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(remaining, [1, 0], value=1)

    def _inverse(self, y):
        head = y[..., :-1]
        left = (1 - head.cumsum(-1)).clamp(min=ember.finfo(y.dtype).tiny)
        return head.log() - left.log() + self._log_pieces_left(head.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        shifted = x - self._log_pieces_left(x.shape[-1], x)
        return (-shifted + F.logsigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return (*shape[:-1], shape[-1] + 1)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return (*shape[:-1], shape[-1] - 1)


class IndependentTransform(Transform):
    """base_transform with its `reinterpreted_batch_ndims` rightmost batch dims
    read as event dims: the same values, the log-Jacobian summed over them."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size)
        self.base_transform = base_transform
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims


    def _key(self):
        return (self.base_transform, self.reinterpreted_batch_ndims)

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Events of in_shape reshaped to out_shape (a unit Jacobian)."""

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = ember.Size(in_shape), ember.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size)


    def _key(self):
        return (self.in_shape, self.out_shape)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def _call(self, x):
        return x.reshape(*x.shape[:x.dim() - len(self.in_shape)], *self.out_shape)

    def _inverse(self, y):
        return y.reshape(*y.shape[:y.dim() - len(self.out_shape)], *self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[:x.dim() - len(self.in_shape)])

    def _split(self, shape, event):
        if len(shape) < len(event):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(event)
        if tuple(shape[cut:]) != tuple(event):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(event)}")
        return tuple(shape[:cut])

    def forward_shape(self, shape):
        return self._split(shape, self.in_shape) + tuple(self.out_shape)

    def inverse_shape(self, shape):
        return self._split(shape, self.out_shape) + tuple(self.in_shape)


class SoftmaxTransform(Transform):
    """Vectors onto the simplex by softmax; not bijective (the inverse gives the
    log, one of the preimages), so it has no Jacobian."""

    bijective = False
    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        return ember.softmax(x, -1)

    def _inverse(self, y):
        return y.log()


class LowerCholeskyTransform(Transform):
    """Square matrices onto lower-triangular ones with a positive diagonal: the
    strict lower triangle kept, the diagonal exponentiated."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrices onto positive-definite ones: L L^T for L = LowerCholeskyTransform()(x)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(ember.linalg.cholesky(y))


identity_transform = ComposeTransform([])


def _shifted_right(x):
    """x moved one place along the last dim, a 1 in front: inclusive cumulative results made exclusive."""
    return ember.cat([ember.ones_like(x[..., :1]), x[..., :-1]], -1)


class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of D(D-1)/2 reals onto Cholesky factors L of D x D correlation matrices.
    Each x becomes a partial correlation tanh(x) in (-1, 1), placed row by row in the strict lower
    triangle; row i of L is then built left to right, each entry taking its partial correlation's share
    of what is left of the row's unit norm: L[i, j] = r[i, j] * sqrt(1 - sum_{k<j} L[i, k]^2), and
    the diagonal takes the rest."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        r = vec_to_tril_matrix(ember.tanh(x), diag=-1)
        n = r.shape[-1]
        # sqrt(1 - sum_{k<j} L[i,k]^2) = prod_{k<j} sqrt(1 - r[i,k]^2): exclusive cumulative products.
        remaining = _shifted_right((1 - r * r).sqrt().cumprod(-1))
        eye = ember.eye(n, dtype=x.dtype, device=x.device)
        return (r + eye) * remaining

    def _inverse(self, y):
        # What is left of each row's norm before column j: 1 - sum_{k<j} y[i,k]^2.
        left = _shifted_right(1 - (y * y).cumsum(-1))
        r = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        eps = ember.finfo(y.dtype).eps
        return ember.atanh(r.clamp(-1 + eps, 1 - eps))

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # d L[i,j] / d r[i,j] = sqrt(1 - sum_{k<j} L[i,k]^2) for j < i; d r / d x = 1 - tanh(x)^2.
        left = 1 - (y * y).cumsum(-1)
        stick_breaking = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|.
        tanh = (2 * (math.log(2.0) - x - F.softplus(-2 * x))).sum(-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError(f"Input is not a flattened lower-diagonal number: {n} is not D(D-1)/2 for any D")
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2 or shape[-1] != shape[-2]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return tuple(shape[:-2]) + (d * (d - 1) // 2,)


def _event_dim(transform):
    return transform.domain.event_dim


class CatTransform(Transform):
    """``tseq[i]`` applied to the i-th slice (``lengths[i]`` long, 1 by default) along ``dim``."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        super().__init__(cache_size)
        self.transforms = list(tseq)
        if not all(isinstance(t, Transform) for t in self.transforms):
            raise TypeError("CatTransform: every element of tseq must be a Transform")
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(f"CatTransform: {len(self.transforms)} transforms but {len(self.lengths)} lengths")
        self.dim = dim


    def _key(self):
        return (self.transforms, self.dim, self.lengths)

    @property
    def event_dim(self):
        return max(_event_dim(t) for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def _pieces(self, value, what):
        if not -value.dim() <= self.dim < value.dim():
            raise ValueError(f"CatTransform: dim {self.dim} is out of range for a {value.dim()}-D {what}")
        if value.shape[self.dim] != self.length:
            raise ValueError(f"CatTransform: expected size {self.length} at dim {self.dim}, got "
                             f"{value.shape[self.dim]}")
        return value.split(self.lengths, self.dim)

    def _call(self, x):
        return ember.cat([t(piece) for t, piece in zip(self.transforms, self._pieces(x, "input"))], self.dim)

    def _inverse(self, y):
        return ember.cat([t.inv(piece) for t, piece in zip(self.transforms, self._pieces(y, "input"))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        event_dim = self.event_dim
        parts = [sum_rightmost(t.log_abs_det_jacobian(xp, yp), event_dim - _event_dim(t))
                 for t, xp, yp in zip(self.transforms, self._pieces(x, "input"), self._pieces(y, "output"))]
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + event_dim
        # A batch dim: the pieces' Jacobians lie side by side; an event dim: they add up.
        return ember.cat(parts, dim) if dim < 0 else sum(parts)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def __repr__(self):
        return "CatTransform()"


class StackTransform(Transform):
    """``tseq[i]`` applied to index i of ``dim``."""

    def __init__(self, tseq, dim=0, cache_size=0):
        super().__init__(cache_size)
        self.transforms = list(tseq)
        if not all(isinstance(t, Transform) for t in self.transforms):
            raise TypeError("StackTransform: every element of tseq must be a Transform")
        self.dim = dim


    def _key(self):
        return (self.transforms, self.dim)

    def _slices(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise ValueError(f"StackTransform: dim {self.dim} is out of range for a {value.dim()}-D input")
        if value.shape[self.dim] != len(self.transforms):
            raise ValueError(f"StackTransform: expected size {len(self.transforms)} at dim {self.dim}, got "
                             f"{value.shape[self.dim]}")
        return [value.select(self.dim, i) for i in range(len(self.transforms))]

    def _call(self, x):
        return ember.stack([t(v) for t, v in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y):
        return ember.stack([t.inv(v) for t, v in zip(self.transforms, self._slices(y))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        return ember.stack([t.log_abs_det_jacobian(xs, ys)
                            for t, xs, ys in zip(self.transforms, self._slices(x), self._slices(y))], self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    def __repr__(self):
        return "StackTransform()"
