"""KL(p || q) between distributions of different families, as torch registers them.

Each is -H(p) - E_p[log q(X)]: infinite where p puts mass outside q's support, otherwise the cross
term needs only a few facts about p (its support, mean and variance, E[log X], E[log(1 - X)], or
E[exp(-t X)]), so the facts are listed per family of p and the cross terms per family of q."""

import math

import ember

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import _EULER_GAMMA, Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform

_INF = math.inf


def _xlogx(x):
    return ember.xlogy(x, x)


# ---- facts about p ---------------------------------------------------------------------------

def _support(p):
    """(lowest, highest) value p can take."""
    if isinstance(p, (Beta, ContinuousBernoulli)):
        return 0.0, 1.0
    if isinstance(p, (Exponential, Gamma)):
        return 0.0, _INF
    if isinstance(p, Pareto):
        return p.scale, _INF
    if isinstance(p, Uniform):
        return p.low, p.high
    return -_INF, _INF


def _mean_log(p):
    """E[log X] for p on the positive reals."""
    if isinstance(p, Beta):
        return ember.digamma(p.concentration1) - ember.digamma(p.concentration1 + p.concentration0)
    if isinstance(p, Exponential):
        return -_EULER_GAMMA - p.rate.log()
    if isinstance(p, Gamma):
        return ember.digamma(p.concentration) - p.rate.log()
    if isinstance(p, Pareto):
        return p.scale.log() + 1 / p.alpha
    if isinstance(p, Uniform):
        return (_xlogx(p.high) - _xlogx(p.low)) / (p.high - p.low) - 1
    raise NotImplementedError(f"E[log X] of {type(p).__name__}")


def _mean_log1m(p):
    """E[log(1 - X)] for p on [0, 1]."""
    if isinstance(p, Beta):
        return ember.digamma(p.concentration0) - ember.digamma(p.concentration1 + p.concentration0)
    if isinstance(p, Uniform):
        return (_xlogx(1 - p.low) - _xlogx(1 - p.high)) / (p.high - p.low) - 1
    raise NotImplementedError(f"E[log(1 - X)] of {type(p).__name__}")


def _laplace_transform(p, t):
    """E[exp(-t X)] for t > 0."""
    if isinstance(p, Exponential):
        return p.rate / (p.rate + t)
    if isinstance(p, Gamma):
        return (p.rate / (p.rate + t)).pow(p.concentration)
    if isinstance(p, Normal):
        return ember.exp(-t * p.loc + 0.5 * (t * p.scale).pow(2))
    if isinstance(p, Uniform):
        return (ember.exp(-t * p.low) - ember.exp(-t * p.high)) / (t * (p.high - p.low))
    raise NotImplementedError(f"E[exp(-tX)] of {type(p).__name__}")


# ---- E_p[log q(X)] per family of q, with where it is finite --------------------------------------

def _within(p, low, high):
    """Where p's support lies in [low, high]."""
    p_low, p_high = _support(p)
    return ember.as_tensor(p_low >= low) & ember.as_tensor(p_high <= high)


def _cross_normal(p, q):
    second_moment = p.variance + (p.mean - q.loc).pow(2)
    return -q.scale.log() - 0.5 * math.log(2 * math.pi) - second_moment / (2 * q.scale.pow(2)), True


def _cross_exponential(p, q):
    return q.rate.log() - q.rate * p.mean, _within(p, 0.0, _INF)


def _cross_gamma(p, q):
    a, b = q.concentration, q.rate
    return a * b.log() - ember.lgamma(a) + (a - 1) * _mean_log(p) - b * p.mean, _within(p, 0.0, _INF)


def _cross_uniform(p, q):
    return -(q.high - q.low).log(), _within(p, q.low, q.high)


def _cross_beta(p, q):
    a, b = q.concentration1, q.concentration0
    log_beta = ember.lgamma(a) + ember.lgamma(b) - ember.lgamma(a + b)
    return (a - 1) * _mean_log(p) + (b - 1) * _mean_log1m(p) - log_beta, _within(p, 0.0, 1.0)


def _cross_continuous_bernoulli(p, q):
    mean = p.mean
    return (q._log_normalizer() + mean * q.probs.log() + (1 - mean) * ember.log1p(-q.probs),
            _within(p, 0.0, 1.0))


def _cross_pareto(p, q):
    a, scale = q.alpha, q.scale
    return a.log() + a * scale.log() - (a + 1) * _mean_log(p), _within(p, scale, _INF)


def _cross_gumbel(p, q):
    # log q(x) = -log scale - z - exp(-z), z = (x - loc) / scale.
    t = 1 / q.scale
    tail = ember.exp(q.loc * t) * _laplace_transform(p, t)
    return -q.scale.log() - (p.mean - q.loc) * t - tail, True


def _cross_laplace(p, q):
    # E|X - loc| for a normal X: the folded normal's mean.
    d = p.loc - q.loc
    mean_abs = (p.scale * math.sqrt(2 / math.pi) * ember.exp(-d.pow(2) / (2 * p.scale.pow(2)))
                + d * ember.erf(d / (p.scale * math.sqrt(2))))
    return -(2 * q.scale).log() - mean_abs / q.scale, True


_CROSS = {Normal: _cross_normal, Exponential: _cross_exponential, Gamma: _cross_gamma, Uniform: _cross_uniform,
          Beta: _cross_beta, ContinuousBernoulli: _cross_continuous_bernoulli, Pareto: _cross_pareto,
          Gumbel: _cross_gumbel, Laplace: _cross_laplace}


def _kl_by_cross_entropy(p, q):
    finite = _within(p, *_support(q))
    shape = ember.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape))
    if not bool(finite.any()):
        return ember.full(shape, _INF)
    cross, valid = _CROSS[type(q)](p, q)
    kl = (-p.entropy() - cross).expand(shape)
    if valid is True:
        return kl
    return ember.where(valid, kl, ember.full_like(kl, _INF))


# torch's pairs of different families.
_PAIRS = {
    Beta: (ContinuousBernoulli, Exponential, Gamma, Normal, Pareto, Uniform),
    ContinuousBernoulli: (Exponential, Normal, Pareto, Uniform),
    Exponential: (Beta, ContinuousBernoulli, Gamma, Gumbel, Normal, Pareto, Uniform),
    Gamma: (Beta, ContinuousBernoulli, Exponential, Gumbel, Normal, Pareto, Uniform),
    Gumbel: (Beta, ContinuousBernoulli, Exponential, Gamma, Normal, Pareto, Uniform),
    Laplace: (Beta, ContinuousBernoulli, Exponential, Gamma, Normal, Pareto, Uniform),
    Normal: (Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel, Laplace, Pareto, Uniform),
    Pareto: (Beta, ContinuousBernoulli, Exponential, Gamma, Normal, Uniform),
    Uniform: (Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel, Normal, Pareto),
}
for _p, _qs in _PAIRS.items():
    for _q in _qs:
        register_kl(_p, _q)(_kl_by_cross_entropy)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    # Poisson(0) = exp(-rate), Poisson(1) = rate exp(-rate).
    return _xlogx(1 - p.probs) + _xlogx(p.probs) + q.rate - p.probs * q.rate.log()


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_bounded(p, q):
    # A Poisson reaches every count; Bernoulli and Binomial stop at total_count.
    return ember.full(ember.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape)), _INF)
