"""KL divergences KL(p || q) between pairs of distribution types, found in a
registry by the most specific registered pair of types."""

import math

import ember
import ember.nn.functional as F

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform

_KL_REGISTRY = {}


def register_kl(type_p, type_q):
    """Decorator registering fn(p, q) as KL(p || q) for the two types."""

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn
    return decorator


def _dispatch(type_p, type_q):
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return None
    # The pair closest to the actual types (shortest distance in both method resolution orders).
    return _KL_REGISTRY[min(matches, key=lambda pq: (type_p.__mro__.index(pq[0]), type_q.__mro__.index(pq[1])))]


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shapes."""
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = t2.masked_fill(q.probs == 1, math.inf).masked_fill(p.probs == 1, 0)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill((q.probs == 0).expand_as(t), math.inf)
    t = t.masked_fill((p.probs == 0).expand_as(t), 0)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), math.inf)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * ember.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL between Independents with different reinterpreted_batch_ndims")
    result = kl_divergence(p.base_dist, q.base_dist)
    n = p.reinterpreted_batch_ndims
    return result.sum(tuple(range(-n, 0))) if n > 0 else result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    return (q.concentration * ember.log(p.rate / q.rate) + ember.lgamma(q.concentration)
            - ember.lgamma(p.concentration) + (p.concentration - q.concentration) * ember.digamma(p.concentration)
            + (q.rate - p.rate) * (p.concentration / p.rate))


def _kl_dirichlet_concentrations(alpha, beta):
    """KL(Dirichlet(alpha) || Dirichlet(beta)) over the last dimension."""
    alpha_total, beta_total = alpha.sum(-1), beta.sum(-1)
    return (ember.lgamma(alpha_total) - ember.lgamma(beta_total) - (ember.lgamma(alpha) - ember.lgamma(beta)).sum(-1)
            + ((alpha - beta) * (ember.digamma(alpha) - ember.digamma(alpha_total).unsqueeze(-1))).sum(-1))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    return _kl_dirichlet_concentrations(p.concentration, q.concentration)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    return _kl_dirichlet_concentrations(p._dirichlet.concentration, q._dirichlet.concentration)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (ember.log(p.rate) - ember.log(q.rate)) - (p.rate - q.rate)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return kl.masked_fill(p.total_count > q.total_count, math.inf)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    half_log_det_ratio = q._half_log_det() - p._half_log_det()
    batch = ember.broadcast_shapes(tuple(p._unbroadcasted_scale_tril.shape[:-2]),
                                   tuple(q._unbroadcasted_scale_tril.shape[:-2]))
    n = p.event_shape[0]
    q_tril = q._unbroadcasted_scale_tril.expand(tuple(batch) + (n, n))
    p_tril = p._unbroadcasted_scale_tril.expand(tuple(batch) + (n, n))
    trace = ember.linalg.solve_triangular(q_tril, p_tril, upper=False).pow(2).sum((-2, -1))
    mahalanobis = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    return half_log_det_ratio + 0.5 * (trace + mahalanobis - n)
