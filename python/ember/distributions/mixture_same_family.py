"""Mixtures whose components are one batched distribution: the last batch dim
of component_distribution indexes the components, weighted by a Categorical."""

import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution


class MixtureSameFamily(Distribution):
    """sum_k pi_k p_k(x), with pi from mixture_distribution (a Categorical over K) and p_k the k-th entry of
    component_distribution's last batch dim (of size K)."""

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError("The Mixture distribution needs to be an instance of ember.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of ember.distributions.Distribution")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mixture_batch = tuple(mixture_distribution.batch_shape)
        component_batch = tuple(component_distribution.batch_shape)
        if not component_batch:
            raise ValueError("component_distribution needs a batch dim holding the components")
        for a, b in zip(reversed(mixture_batch), reversed(component_batch[:-1])):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({ember.Size(mixture_batch)}) is not compatible "
                                 f"with `component_distribution.batch_shape`({ember.Size(component_batch[:-1])})")
        k_mixture, k_component = mixture_distribution.logits.shape[-1], component_batch[-1]
        if k_mixture != k_component:
            raise ValueError(f"`mixture_distribution component` ({k_mixture}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_component})")
        self._num_component = k_mixture
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch[:-1], component_distribution.event_shape, validate_args=validate_args)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def support(self):
        return self._component_distribution.support

    def expand(self, batch_shape, _instance=None):
        batch_shape = ember.Size(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + ember.Size([self._num_component]))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    def _component_axis(self):
        return -1 - self._event_ndims

    def _weights(self, x):
        """Mixture weights shaped to broadcast against the components' batch and event dims."""
        own_batch, mixture_batch = len(self.batch_shape), len(self._mixture_distribution.batch_shape)
        pad = 0 if mixture_batch == 1 else own_batch - mixture_batch
        shape = tuple(x.shape[:-1]) + (1,) * pad + tuple(x.shape[-1:]) + (1,) * self._event_ndims
        return x.reshape(shape)

    @property
    def mean(self):
        weights = self._weights(self._mixture_distribution.probs)
        return (weights * self._component_distribution.mean).sum(self._component_axis())

    @property
    def variance(self):
        # The law of total variance: the mean of the components' variances plus the variance of their means.
        weights = self._weights(self._mixture_distribution.probs)
        axis = self._component_axis()
        within = (weights * self._component_distribution.variance).sum(axis)
        between = (weights * (self._component_distribution.mean - self.mean.unsqueeze(axis)).pow(2)).sum(axis)
        return within + between

    def cdf(self, x):
        x = x.unsqueeze(self._component_axis())
        return (self._component_distribution.cdf(x) * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(x.unsqueeze(self._component_axis()))
        log_weights = ember.log_softmax(self._mixture_distribution.logits, -1)
        return ember.logsumexp(log_prob_x + log_weights, -1)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            sample_shape = ember.Size(sample_shape)
            axis = len(sample_shape) + len(self.batch_shape)
            which = self._mixture_distribution.sample(sample_shape)
            samples = self._component_distribution.sample(sample_shape)
            index = which.reshape(tuple(which.shape) + (1,) * (self._event_ndims + 1))
            index = index.expand(tuple(which.shape) + (1,) + tuple(self.event_shape))
            return samples.gather(axis, index).squeeze(axis)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self._mixture_distribution},\n  {self._component_distribution})")
