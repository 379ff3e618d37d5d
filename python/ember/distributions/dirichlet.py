import ember

from . import constraints
from .distribution import Distribution


class Dirichlet(Distribution):
    """The Dirichlet distribution over the simplex of the last dimension of concentration. rsample
    normalizes gamma draws, so gradients reach the concentration through each draw's pathwise derivative."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        gammas = ember._standard_gamma(self.concentration.expand(shape))
        value = gammas / gammas.sum(-1, keepdim=True)
        value.detach().clamp_(min=ember.finfo(value.dtype).tiny, max=1 - ember.finfo(value.dtype).eps)
        return value

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return ember.xlogy(c - 1.0, value).sum(-1) + ember.lgamma(c.sum(-1)) - ember.lgamma(c).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        below_one = (self.concentration - 1).clamp(min=0.0)
        mode = below_one / below_one.sum(-1, keepdim=True)
        # Where every concentration is at most 1, the density peaks at the vertex of the largest.
        corner = (self.concentration < 1).all(dim=-1)
        vertex = ember.nn.functional.one_hot(self.concentration.argmax(-1), self.concentration.shape[-1]).to(mode)
        return ember.where(corner.unsqueeze(-1), vertex, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        total = c.sum(-1)
        return (ember.lgamma(c).sum(-1) - ember.lgamma(total) - (k - total) * ember.digamma(total)
                - ((c - 1.0) * ember.digamma(c)).sum(-1))
