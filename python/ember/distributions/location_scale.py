import ember

from . import constraints
from .distribution import Distribution
from .utils import CenteredAtLoc, broadcast_all


class LocationScale(CenteredAtLoc, Distribution):
    """A family over the reals given by a location (its mean and mode) and a positive scale, sampled as
    loc + scale * noise (so rsample carries gradients to both)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _noise(self, shape):
        """Standard draws of the family (location 0, scale 1)."""
        raise NotImplementedError

    def rsample(self, sample_shape=ember.Size()):
        return self.loc + self._noise(self._extended_shape(sample_shape)) * self.scale
