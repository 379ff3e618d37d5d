"""KL divergences KL(p || q) between pairs of distribution types, found in a
registry by the most specific registered pair of types."""

import math

import ember
import ember.nn.functional as F

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import _EULER_GAMMA, Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
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


def _kl_gaussians(p_loc, p_tril, q_loc, q_tril):
    """KL between Gaussians given by their means and lower Cholesky factors of the covariance."""
    n = p_loc.shape[-1]
    batch = ember.broadcast_shapes(tuple(p_tril.shape[:-2]), tuple(q_tril.shape[:-2]))
    q_tril_b = q_tril.expand(tuple(batch) + (n, n))
    p_tril_b = p_tril.expand(tuple(batch) + (n, n))
    half_log_det_ratio = (q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                          - p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    trace = ember.linalg.solve_triangular(q_tril_b, p_tril_b, upper=False).pow(2).sum((-2, -1))
    mahalanobis = _batch_mahalanobis(q_tril, q_loc - p_loc)
    return half_log_det_ratio + 0.5 * (trace + mahalanobis - n)


def _gaussian_parts(d):
    """(loc, lower Cholesky factor of the covariance) of a MultivariateNormal or LowRankMultivariateNormal."""
    if isinstance(d, MultivariateNormal):
        return d.loc, d._unbroadcasted_scale_tril
    return d.loc, ember.linalg.cholesky(d.covariance_matrix)


@register_kl(MultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_gaussian_gaussian(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {type(p).__name__} and {type(q).__name__} with different "
                         "event shapes cannot be computed")
    return _kl_gaussians(*_gaussian_parts(p), *_gaussian_parts(q))


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return (((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log())


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    return 0.5 * (var_ratio - 1 - var_ratio.log())


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # E_p[k] = (1 - p) / p failures before the first success.
    return -p.entropy() - ember.log1p(-q.probs) * (1 - p.probs) / p.probs - ember.log(q.probs)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # E_p[exp(-(x - loc_q) / scale_q)] = exp((loc_q - loc_p) / scale_q) Gamma(1 + scale_p / scale_q).
    ratio = p.scale / q.scale
    return (ember.log(q.scale / p.scale) - 1 - _EULER_GAMMA * (1 - ratio) + (p.loc - q.loc) / q.scale
            + ember.exp((q.loc - p.loc) / q.scale + ember.lgamma(1 + ratio)))


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    # Finite only when p's support [scale_p, inf) lies in q's.
    kl = (ember.log(p.alpha / q.alpha) + q.alpha * ember.log(p.scale / q.scale) + (q.alpha - p.alpha) / p.alpha)
    return kl.masked_fill(p.scale < q.scale, math.inf)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    mean = p.mean
    return (p._log_normalizer() - q._log_normalizer() + mean * (p.logits - q.logits)
            + ember.log1p(-p.probs) - ember.log1p(-q.probs))


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # The same bijections on both sides leave the divergence of the bases unchanged.
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions is only known for the same transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions with different event shapes")
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_exponential_family_exponential_family(p, q):
    """The Bregman divergence of the log-normalizer A between the natural parameters:
    A(eta_q) - A(eta_p) - <eta_q - eta_p, grad A(eta_p)>, the gradient by autograd."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_etas = [eta.detach().requires_grad_() for eta in p._natural_params]
    q_etas = q._natural_params
    with ember.enable_grad():
        p_normalizer = p._log_normalizer(*p_etas)
        grads = ember.autograd.grad(p_normalizer.sum(), p_etas, create_graph=True)
    result = q._log_normalizer(*q_etas) - p_normalizer
    for p_eta, q_eta, grad in zip(p_etas, q_etas, grads):
        result = result - ((q_eta - p_eta) * grad).reshape(*p.batch_shape, -1).sum(-1)
    return result


from . import kl_cross  # noqa: E402,F401  (registers the pairs of different families)
