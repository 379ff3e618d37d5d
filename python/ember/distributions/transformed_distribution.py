import ember

from . import constraints
from .distribution import Distribution
from .transforms import ComposeTransform, ExpTransform, Transform


class TransformedDistribution(Distribution):
    """The distribution of transforms(x) for x drawn from base_distribution
    (elementwise transforms; log_prob subtracts the log-Jacobians)."""

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not isinstance(transforms, list) or not all(isinstance(t, Transform) for t in transforms):
            raise ValueError(f"transforms must be a Transform or a list of Transforms, but was {transforms}")
        self.base_dist = base_distribution
        self.transforms = transforms
        super().__init__(base_distribution.batch_shape, base_distribution.event_shape, validate_args=validate_args)

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
            # The transforms act elementwise: over an event of several values the log-Jacobian is their sum.
            jacobian = t.log_abs_det_jacobian(x, y)
            if event_dims and isinstance(jacobian, ember.Tensor):
                jacobian = jacobian.sum(list(range(-event_dims, 0)))
            log_prob = log_prob - jacobian
            y = x
        return log_prob + self.base_dist.log_prob(y)

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
