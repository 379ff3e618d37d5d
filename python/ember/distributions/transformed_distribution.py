import ember

from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, ExpTransform, Transform, sum_rightmost


class TransformedDistribution(Distribution):
    """The distribution of transforms(x) for x drawn from base_distribution;
    log_prob subtracts the log-Jacobians. A transform over events (one whose
    domain has event dims, as StickBreakingTransform's vectors) reads the
    base's rightmost batch dims as event dims, and may change the event shape."""

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not isinstance(transforms, list) or not all(isinstance(t, Transform) for t in transforms):
            raise ValueError(f"transforms must be a Transform or a list of Transforms, but was {transforms}")
        self.transforms = transforms
        transform = ComposeTransform(transforms)
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dims = len(base_distribution.event_shape)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs at least {transform.domain.event_dim} dimensions, but got "
                             f"{base_shape}")
        shape = tuple(transform.forward_shape(base_shape))
        expanded = tuple(transform.inverse_shape(shape))
        if expanded != base_shape:
            base_distribution = base_distribution.expand(expanded[:len(expanded) - base_event_dims])
        if transform.domain.event_dim > base_event_dims:
            base_distribution = Independent(base_distribution, transform.domain.event_dim - base_event_dims)
        self.base_dist = base_distribution
        event_dims = transform.codomain.event_dim + max(base_event_dims - transform.domain.event_dim, 0)
        cut = len(shape) - event_dims
        super().__init__(ember.Size(shape[:cut]), ember.Size(shape[cut:]), validate_args=validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        return self.transforms[-1].codomain if self.transforms else self.base_dist.support

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=ember.Size()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = 0.0
        y = value
        event_dims = len(self.event_shape)
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dims += t.domain.event_dim - t.codomain.event_dim
            # A log-Jacobian per transform event, summed over the rest of the distribution's event.
            log_prob = log_prob - sum_rightmost(t.log_abs_det_jacobian(x, y), event_dims - t.domain.event_dim)
            y = x
        return log_prob + sum_rightmost(self.base_dist.log_prob(y), event_dims - len(self.base_dist.event_shape))

    def _monotone(self, value):
        """A probability mapped through the transforms' direction (a decreasing one flips it)."""
        sign = ComposeTransform(self.transforms).sign
        return value if isinstance(sign, int) and sign == 1 else sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for t in reversed(self.transforms):
            value = t.inv(value)
        return self._monotone(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotone(value))
        for t in self.transforms:
            value = t(value)
        return value


class LogNormal(TransformedDistribution):
    """exp(x) for x ~ Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        from .normal import Normal

        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


__all__ = ["LogNormal", "TransformedDistribution"]
