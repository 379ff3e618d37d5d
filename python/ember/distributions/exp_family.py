"""Exponential families: the base class for densities h(x) exp(<eta, T(x)> - A(eta))."""

import ember

from .distribution import Distribution


class ExponentialFamily(Distribution):
    """A subclass gives its natural parameters eta (``_natural_params``), its
    log-normalizer A (``_log_normalizer(*eta)``) and E[log h(X)]
    (``_mean_carrier_measure``); the entropy then follows without a formula of
    its own: H = A(eta) - <eta, grad A(eta)> - E[log h(X)], the gradient taken by
    autograd (so the entropy is differentiable in the parameters too)."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        etas = [eta.detach().requires_grad_() for eta in self._natural_params]
        with ember.enable_grad():
            log_normalizer = self._log_normalizer(*etas)
            grads = ember.autograd.grad(log_normalizer.sum(), etas, create_graph=True)
        result = log_normalizer - self._mean_carrier_measure
        for eta, grad in zip(etas, grads):
            result = result - (eta * grad).reshape(*self.batch_shape, -1).sum(-1)
        return result
