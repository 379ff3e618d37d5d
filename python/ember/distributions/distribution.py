"""The Distribution base class: shapes, argument validation and the methods
each distribution fills in."""

import ember

from . import constraints
from .utils import lazy_property


class Distribution:
    """A batch of distributions of the same family (batch_shape) over values of
    shape event_shape."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    arg_constraints = {}
    support = None

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError("set_default_validate_args expects a bool")
        Distribution._validate_args = value

    def __init__(self, batch_shape=ember.Size(), event_shape=ember.Size(), validate_args=None):
        self._batch_shape = ember.Size(batch_shape)
        self._event_shape = ember.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for name, constraint in self.arg_constraints.items():
                if name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_property):
                    continue  # a parameter given in its other form (probs for logits); not computed here
                if constraints.is_dependent(constraint):
                    continue  # the distribution checks it itself
                value = getattr(self, name)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid "
                        f"values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} has no mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__name__} has no mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} has no variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=ember.Size()):
        """Draws without recording gradients."""
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=ember.Size()):
        raise NotImplementedError(f"{type(self).__name__} does not support reparameterized sampling (rsample)")

    def sample_n(self, n):
        return self.sample(ember.Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return ember.exp(self.entropy())

    def expand(self, batch_shape, _instance=None):
        """This distribution over a larger batch: the parameters broadcast to batch_shape (views, not copies)."""
        batch_shape = ember.Size(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        for name in self.arg_constraints:
            value = self.__dict__.get(name)
            if isinstance(value, ember.Tensor):
                event = tuple(value.shape[len(self._batch_shape):])
                new.__dict__[name] = value.expand(tuple(batch_shape) + event)
        # Distributions held inside (Beta's Dirichlet, a TransformedDistribution's base) over the same batch.
        for name, value in self.__dict__.items():
            if isinstance(value, Distribution) and tuple(value.batch_shape) == tuple(self._batch_shape):
                new.__dict__[name] = value.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    def _extended_shape(self, sample_shape=ember.Size()):
        return ember.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        if not isinstance(value, ember.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim = len(self._event_shape)
        if tuple(value.shape[value.dim() - event_dim:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                             f"{tuple(self._event_shape)}.")
        try:
            ember.broadcast_shapes(tuple(value.shape), tuple(self._extended_shape()))
        except RuntimeError as error:
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {tuple(value.shape)} vs "
                             f"{tuple(self._extended_shape())}.") from error
        support = self.support
        if support is None or constraints.is_dependent(support):
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to "
                             f"be within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for k in names:
            v = self.__dict__[k]
            parts.append(f"{k}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"
