"""ember.distributions against torch.distributions: densities, moments,
entropies and KL divergences on the same parameters, sample shapes and
statistics, reparameterized gradients, and argument validation."""

import numpy as np
import pytest

import ember
import ember.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

from torch_oracle import E, N  # noqa: E402

R = np.random.default_rng(0)
LOC = R.standard_normal((2, 3))
SCALE = R.uniform(0.5, 2.0, (2, 3))
PROBS = R.uniform(0.05, 0.95, (2, 3))
LOGITS = R.standard_normal((2, 4))
RATE = R.uniform(0.5, 2.0, 3)
CONC = R.uniform(0.3, 4.0, (2, 3))
SPD = (lambda a: a @ a.T + 3 * np.eye(3))(R.standard_normal((3, 3)))
SPD_BATCH = np.stack([SPD, SPD + np.diag([1.0, 2.0, 0.5])])
SIMPLEX_VALUES = (lambda g: g / g.sum(-1, keepdims=True))(R.uniform(0.1, 1.0, (4, 2, 3)))


def both(make):
    """make(lib, tensor) on ember and on torch, with float64 parameters."""
    return make(ember, lambda a: ember.from_numpy(np.array(a, dtype=np.float64))), \
        make(torch, lambda a: torch.from_numpy(np.array(a, dtype=np.float64)))


FAMILIES = {
    "Normal": (lambda lib, t: lib.distributions.Normal(t(LOC), t(SCALE)), R.standard_normal((5, 2, 3))),
    "Normal_number_scale": (lambda lib, t: lib.distributions.Normal(t(LOC), 0.7), R.standard_normal((2, 3))),
    "Uniform": (lambda lib, t: lib.distributions.Uniform(t(LOC), t(LOC + SCALE)), LOC + 0.3 * SCALE),
    "Bernoulli_probs": (lambda lib, t: lib.distributions.Bernoulli(probs=t(PROBS)), R.integers(0, 2, (4, 2, 3))),
    "Bernoulli_logits": (lambda lib, t: lib.distributions.Bernoulli(logits=t(LOC)), R.integers(0, 2, (2, 3))),
    "Categorical_probs": (lambda lib, t: lib.distributions.Categorical(probs=t(np.exp(LOGITS))),
                          R.integers(0, 4, (3, 2))),
    "Categorical_logits": (lambda lib, t: lib.distributions.Categorical(logits=t(LOGITS)), R.integers(0, 4, (2,))),
    "OneHotCategorical": (lambda lib, t: lib.distributions.OneHotCategorical(logits=t(LOGITS)),
                          np.eye(4)[R.integers(0, 4, (2,))]),
    "Exponential": (lambda lib, t: lib.distributions.Exponential(t(RATE)), R.uniform(0.1, 3.0, (2, 3))),
    "Laplace": (lambda lib, t: lib.distributions.Laplace(t(LOC), t(SCALE)), R.standard_normal((2, 3))),
    "Independent_Normal": (lambda lib, t: lib.distributions.Independent(lib.distributions.Normal(t(LOC), t(SCALE)), 1),
                           R.standard_normal((4, 2, 3))),
    "Cauchy": (lambda lib, t: lib.distributions.Cauchy(t(LOC), t(SCALE)), R.standard_normal((3, 2, 3))),
    "Gumbel": (lambda lib, t: lib.distributions.Gumbel(t(LOC), t(SCALE)), R.standard_normal((2, 3))),
    "Geometric_probs": (lambda lib, t: lib.distributions.Geometric(probs=t(PROBS)), R.integers(0, 5, (2, 2, 3))),
    "Geometric_logits": (lambda lib, t: lib.distributions.Geometric(logits=t(LOC)), R.integers(0, 5, (2, 3))),
    "LogNormal": (lambda lib, t: lib.distributions.LogNormal(t(LOC), t(SCALE)), R.uniform(0.1, 3.0, (2, 3))),
    "Gamma": (lambda lib, t: lib.distributions.Gamma(t(CONC), t(SCALE)), R.uniform(0.1, 5.0, (3, 2, 3))),
    "Gamma_number_rate": (lambda lib, t: lib.distributions.Gamma(t(CONC), 2.0), R.uniform(0.1, 5.0, (2, 3))),
    "Chi2": (lambda lib, t: lib.distributions.Chi2(t(CONC * 2)), R.uniform(0.1, 5.0, (2, 3))),
    "Beta": (lambda lib, t: lib.distributions.Beta(t(CONC), t(SCALE)), R.uniform(0.01, 0.99, (3, 2, 3))),
    "Dirichlet": (lambda lib, t: lib.distributions.Dirichlet(t(CONC)), SIMPLEX_VALUES),
    "StudentT": (lambda lib, t: lib.distributions.StudentT(t(CONC * 2), t(LOC), t(SCALE)), R.standard_normal((2, 3))),
    "StudentT_df_only": (lambda lib, t: lib.distributions.StudentT(t(np.array([0.5, 1.5, 2.5, 9.0]))),
                         R.standard_normal((3, 4))),
    "MultivariateNormal_cov": (lambda lib, t: lib.distributions.MultivariateNormal(t(LOC), covariance_matrix=t(SPD)),
                               R.standard_normal((4, 2, 3))),
    "MultivariateNormal_precision": (lambda lib, t: lib.distributions.MultivariateNormal(
        t(LOC), precision_matrix=t(SPD_BATCH)), R.standard_normal((2, 3))),
    "MultivariateNormal_tril": (lambda lib, t: lib.distributions.MultivariateNormal(
        t(LOC[0]), scale_tril=t(np.linalg.cholesky(SPD_BATCH))), R.standard_normal((5, 1, 3))),
    "LowRankMultivariateNormal": (lambda lib, t: lib.distributions.LowRankMultivariateNormal(
        t(LOC), t(SPD[:, :2]), t(SCALE)), R.standard_normal((4, 2, 3))),
    "HalfNormal": (lambda lib, t: lib.distributions.HalfNormal(t(SCALE)), np.abs(R.standard_normal((4, 2, 3)))),
    "HalfCauchy": (lambda lib, t: lib.distributions.HalfCauchy(t(SCALE)), np.abs(R.standard_normal((2, 3)))),
    "Pareto": (lambda lib, t: lib.distributions.Pareto(t(SCALE), t(CONC)), SCALE + R.uniform(0.0, 3.0, (2, 3))),
    "Poisson": (lambda lib, t: lib.distributions.Poisson(t(RATE * 3)), R.integers(0, 8, (4, 3))),
    "Binomial_probs": (lambda lib, t: lib.distributions.Binomial(10, probs=t(PROBS)), R.integers(0, 11, (2, 2, 3))),
    "Binomial_logits": (lambda lib, t: lib.distributions.Binomial(t(np.full((2, 3), 7.0)), logits=t(LOC)),
                        R.integers(0, 8, (2, 3))),
    "Multinomial": (lambda lib, t: lib.distributions.Multinomial(6, logits=t(LOGITS)),
                    np.array([[1, 2, 0, 3], [0, 0, 6, 0]])),
    "Weibull": (lambda lib, t: lib.distributions.Weibull(t(SCALE), t(CONC)), R.uniform(0.1, 3.0, (2, 3))),
    "Kumaraswamy": (lambda lib, t: lib.distributions.Kumaraswamy(t(CONC), t(SCALE)), R.uniform(0.01, 0.99, (3, 2, 3))),
    "InverseGamma": (lambda lib, t: lib.distributions.InverseGamma(t(CONC), t(SCALE)), R.uniform(0.1, 5.0, (2, 3))),
    "FisherSnedecor": (lambda lib, t: lib.distributions.FisherSnedecor(t(CONC * 3), t(SCALE * 4)),
                       R.uniform(0.1, 4.0, (2, 3))),
    "NegativeBinomial_probs": (lambda lib, t: lib.distributions.NegativeBinomial(t(np.full((2, 3), 4.0)),
                                                                                probs=t(PROBS)),
                               R.integers(0, 9, (2, 2, 3))),
    "NegativeBinomial_logits": (lambda lib, t: lib.distributions.NegativeBinomial(3.0, logits=t(LOC)),
                                R.integers(0, 9, (2, 3))),
    # probabilities inside the Taylor region around 1/2 and outside it
    "ContinuousBernoulli_probs": (lambda lib, t: lib.distributions.ContinuousBernoulli(
        probs=t(np.array([0.4995, 0.2, 0.93]))), R.uniform(0.0, 1.0, (4, 3))),
    "ContinuousBernoulli_logits": (lambda lib, t: lib.distributions.ContinuousBernoulli(logits=t(LOC)),
                                   R.uniform(0.0, 1.0, (2, 3))),
}
def log_prob_like_torch(make, value):
    """The distribution make() builds on ember and on torch, checked for equal shapes and log_prob at value."""
    e, t = both(make)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    ev, tv = ember.from_numpy(np.array(value, dtype=np.float64)), torch.from_numpy(np.array(value, dtype=np.float64))
    np.testing.assert_allclose(N(e.log_prob(ev)), t.log_prob(tv).numpy(), rtol=1e-10, atol=1e-12)
    return e, t


# torch gives these no entropy (or none in closed form for a batch of different counts).
NO_ENTROPY = {"Poisson", "Binomial_logits", "FisherSnedecor", "NegativeBinomial_probs", "NegativeBinomial_logits"}
# torch's Kumaraswamy mode is NaN for every a, b > 1, and its Weibull mode raises
# a negative number to 1/k for k < 1: test_modes_where_torch_is_wrong checks ours.
TORCH_MODE_WRONG = {"Weibull", "Kumaraswamy", "ContinuousBernoulli_probs", "ContinuousBernoulli_logits"}  # (or none)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_log_prob_entropy_and_moments_match_torch(family):
    e, t = log_prob_like_torch(*FAMILIES[family])
    if family not in NO_ENTROPY:
        # torch's Multinomial takes log(n!) in float32 (lgamma of an integer tensor)
        np.testing.assert_allclose(N(e.entropy()), t.entropy().numpy(), rtol=1e-7 if family == "Multinomial" else 1e-10)
    for moment in ("mean", "mode", "variance", "stddev"):
        if (family.startswith("Multinomial") or family in TORCH_MODE_WRONG) and moment == "mode":
            continue
        np.testing.assert_allclose(N(getattr(e, moment)), getattr(t, moment).numpy(), rtol=1e-10, equal_nan=True)


@pytest.mark.parametrize("family", ["Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "Gumbel", "LogNormal",
                                    "HalfNormal", "HalfCauchy", "Pareto", "Weibull",
                                    "ContinuousBernoulli_probs", "ContinuousBernoulli_logits"])
def test_cdf_and_icdf_match_torch(family):
    make, value = FAMILIES[family]
    e, t = both(make)
    ev, tv = ember.from_numpy(np.array(value, dtype=np.float64)), torch.from_numpy(np.array(value, dtype=np.float64))
    np.testing.assert_allclose(N(e.cdf(ev)), t.cdf(tv).numpy(), rtol=1e-10, atol=1e-12)
    if family != "Laplace":
        p = np.full(e.batch_shape, 0.3)
        np.testing.assert_allclose(N(e.icdf(ember.from_numpy(p))), t.icdf(torch.from_numpy(p)).numpy(), rtol=1e-9)


KL_PAIRS = {
    "Normal": lambda lib, t, k: lib.distributions.Normal(t(LOC * k), t(SCALE * k)),
    "Bernoulli": lambda lib, t, k: lib.distributions.Bernoulli(probs=t(PROBS ** k)),
    "Categorical": lambda lib, t, k: lib.distributions.Categorical(logits=t(LOGITS * k)),
    "OneHotCategorical": lambda lib, t, k: lib.distributions.OneHotCategorical(logits=t(LOGITS * k)),
    "Uniform": lambda lib, t, k: lib.distributions.Uniform(t(LOC - k), t(LOC + SCALE + k)),
    "Exponential": lambda lib, t, k: lib.distributions.Exponential(t(RATE * k)),
    "Laplace": lambda lib, t, k: lib.distributions.Laplace(t(LOC * k), t(SCALE * k)),
    "Independent": lambda lib, t, k: lib.distributions.Independent(lib.distributions.Normal(t(LOC * k), t(SCALE)), 1),
    "Gamma": lambda lib, t, k: lib.distributions.Gamma(t(CONC * k), t(SCALE / k)),
    "Beta": lambda lib, t, k: lib.distributions.Beta(t(CONC * k), t(SCALE)),
    "Dirichlet": lambda lib, t, k: lib.distributions.Dirichlet(t(CONC ** k)),
    "Poisson": lambda lib, t, k: lib.distributions.Poisson(t(RATE * k)),
    "Binomial": lambda lib, t, k: lib.distributions.Binomial(5, probs=t(PROBS ** k)),
    "MultivariateNormal": lambda lib, t, k: lib.distributions.MultivariateNormal(
        t(LOC * k), scale_tril=t(np.linalg.cholesky(SPD_BATCH if k == 1 else SPD * k))),
}


@pytest.mark.parametrize("family", list(KL_PAIRS))
def test_kl_divergence_matches_torch(family):
    make = KL_PAIRS[family]
    (ep, tp), (eq, tq) = both(lambda lib, t: make(lib, t, 1.0)), both(lambda lib, t: make(lib, t, 1.5))
    np.testing.assert_allclose(N(D.kl_divergence(ep, eq)), TD.kl_divergence(tp, tq).numpy(), rtol=1e-10)
    np.testing.assert_allclose(N(D.kl_divergence(ep, ep)), 0, atol=1e-12)


def test_kl_of_an_unregistered_pair_raises():
    with pytest.raises(NotImplementedError, match="Normal.*Bernoulli"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.5))


def test_sample_shapes_and_statistics():
    ember.manual_seed(0)
    normal = D.Normal(ember.tensor([1.0, -2.0]), ember.tensor([0.5, 2.0]))
    draws = normal.sample((20000,))
    assert tuple(draws.shape) == (20000, 2) and not draws.requires_grad
    np.testing.assert_allclose(N(draws.mean(0)), [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose(N(draws.std(0)), [0.5, 2.0], rtol=0.03)
    categorical = D.Categorical(probs=ember.tensor([0.1, 0.2, 0.7]))
    counts = ember.bincount(categorical.sample((30000,)), minlength=3).double() / 30000
    np.testing.assert_allclose(N(counts), [0.1, 0.2, 0.7], atol=0.015)
    assert tuple(D.Categorical(logits=ember.zeros(4, 5)).sample((2, 3)).shape) == (2, 3, 4)
    bern = D.Bernoulli(probs=ember.full((3,), 0.25)).sample((20000,))
    np.testing.assert_allclose(N(bern.mean(0)), 0.25, atol=0.015)
    assert tuple(D.OneHotCategorical(logits=ember.zeros(2, 5)).sample((3,)).shape) == (3, 2, 5)
    u = D.Uniform(2.0, 3.0).sample((1000,))
    assert bool(((u >= 2) & (u < 3)).all())
    expo = D.Exponential(ember.tensor([2.0])).sample((20000,))
    np.testing.assert_allclose(N(expo.mean()), 0.5, rtol=0.03)
    lap = D.Laplace(ember.tensor([1.0]), ember.tensor([2.0])).sample((20000,))
    np.testing.assert_allclose(N(lap.var()), 8.0, rtol=0.06)


def test_rsample_carries_gradients_to_the_parameters():
    loc = ember.tensor([0.5, -1.0], requires_grad=True)
    scale = ember.tensor([1.5, 0.5], requires_grad=True)
    ember.manual_seed(1)
    draws = D.Normal(loc, scale).rsample((4,))
    draws.sum().backward()
    np.testing.assert_allclose(N(loc.grad), [4.0, 4.0])
    noise = (draws.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(N(scale.grad), N(noise.sum(0)), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="Categorical does not support reparameterized"):
        D.Categorical(logits=ember.zeros(3)).rsample()


def test_a_vae_style_loss_has_torch_gradients():
    mu_np, logvar_np = R.standard_normal((3, 2)), R.standard_normal((3, 2))
    grads = []
    for lib in (ember, torch):
        mu = lib.tensor(mu_np, requires_grad=True)
        logvar = lib.tensor(logvar_np, requires_grad=True)
        q = lib.distributions.Normal(mu, (0.5 * logvar).exp())
        p = lib.distributions.Normal(lib.zeros_like(mu), lib.ones_like(mu))
        lib.distributions.kl_divergence(q, p).sum().backward()
        grads.append((mu.grad.numpy(), logvar.grad.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)


@pytest.mark.parametrize("bad", [
    lambda lib: lib.distributions.Normal(lib.tensor([0.0]), lib.tensor([-1.0])),
    lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([1.5])),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor([[-0.1, 1.1]])),
    lambda lib: lib.distributions.Exponential(lib.tensor([0.0])),
    lambda lib: lib.distributions.Normal(lib.tensor([0.0]), lib.tensor([1.0])).log_prob(lib.tensor([float("nan")])),
    lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.5])).log_prob(lib.tensor([0.5])),
    lambda lib: lib.distributions.Categorical(logits=lib.zeros(3)).log_prob(lib.tensor(3)),
])
def test_invalid_arguments_raise_value_error_like_torch(bad):
    with pytest.raises(ValueError):
        bad(torch)
    with pytest.raises(ValueError, match="Expected"):
        bad(ember)


def test_validation_can_be_turned_off_and_bad_forms_are_refused():
    D.Normal(ember.tensor([0.0]), ember.tensor([-1.0]), validate_args=False)
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Categorical(probs=ember.ones(2), logits=ember.ones(2))
    assert "Normal(loc: " in repr(D.Normal(0.0, 1.0))


@pytest.mark.parametrize("family", ["Cauchy", "Gumbel", "Geometric_probs", "LogNormal", "Gamma", "Chi2", "Beta",
                                    "Dirichlet", "StudentT", "Poisson", "Binomial_probs", "MultivariateNormal_cov",
                                    "LowRankMultivariateNormal", "HalfNormal", "HalfCauchy", "Pareto", "Weibull",
                                    "Kumaraswamy", "InverseGamma", "FisherSnedecor", "ContinuousBernoulli_probs"])
def test_samples_for_a_seed_match_torch(family):
    make, _ = FAMILIES[family]
    e, t = both(make)
    ember.manual_seed(3)
    torch.manual_seed(3)
    np.testing.assert_allclose(N(e.sample((4,))), t.sample((4,)).numpy(), rtol=1e-12)


def test_tanh_squashed_gaussian_policy_as_in_soft_actor_critic():
    """TransformedDistribution(Normal, [TanhTransform(cache_size=1), AffineTransform]): rsample,
    log_prob of its own sample (the cached pre-tanh value), and their gradients."""
    results = []
    for lib in (ember, torch):
        D = lib.distributions
        mu = lib.tensor(LOC, requires_grad=True)
        log_std = lib.tensor(np.log(SCALE), requires_grad=True)
        dist = D.TransformedDistribution(D.Normal(mu, log_std.exp()),
                                         [D.TanhTransform(cache_size=1), D.AffineTransform(0.5, 2.0)])
        lib.manual_seed(0)
        action = dist.rsample()
        log_prob = dist.log_prob(action)
        (action.sum() + log_prob.sum()).backward()
        results.append([N(action.detach()) if lib is ember else action.detach().numpy(),
                        N(log_prob.detach()) if lib is ember else log_prob.detach().numpy(),
                        N(mu.grad) if lib is ember else mu.grad.numpy(),
                        N(log_std.grad) if lib is ember else log_std.grad.numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    transform = ember.distributions.SigmoidTransform()
    x = ember.tensor([-2.0, 0.0, 3.0], dtype=ember.float64)
    np.testing.assert_allclose(N(transform.inv(transform(x))), N(x), rtol=1e-12)
    expected = torch.distributions.SigmoidTransform().log_abs_det_jacobian(torch.tensor([-2.0, 0.0, 3.0],
                                                                                       dtype=torch.float64), None)
    np.testing.assert_allclose(N(transform.log_abs_det_jacobian(x, None)), expected.numpy(), rtol=1e-12)


GAMMA_SHAPES = np.array([1e-3, 0.05, 0.3, 0.999, 1.0, 2.5, 7.0, 150.0, 9999.0, 2e4, 1e6])


def test_standard_gamma_gradient_is_the_derivative_of_the_quantile():
    """d x / d alpha at a fixed quantile u = P(alpha, x), against a central difference of SciPy's
    inverse of P, for draws all over each shape's distribution (tails included)."""
    import scipy.special as sp
    quantiles = np.array([1e-9, 1e-4, 0.02, 0.3, 0.5, 0.8, 0.99, 1 - 1e-7])
    alpha = np.repeat(GAMMA_SHAPES, len(quantiles))
    u = np.tile(quantiles, len(GAMMA_SHAPES))
    x = sp.gammaincinv(alpha, u)
    keep = x > 1e-290  # SciPy's inverse flushes the deepest tails of tiny shapes to 0
    alpha, u, x = alpha[keep], u[keep], x[keep]
    step = 1e-6 * alpha
    expected = (sp.gammaincinv(alpha + step, u) - sp.gammaincinv(alpha - step, u)) / (2 * step)
    got = N(ember._standard_gamma_grad(ember.from_numpy(alpha), ember.from_numpy(x)))
    np.testing.assert_allclose(got, expected, rtol=2e-5)
    normal32 = x > 1e-30
    got32 = N(ember._standard_gamma_grad(ember.from_numpy(alpha[normal32]).float(),
                                         ember.from_numpy(x[normal32]).float()))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, expected[normal32], rtol=1e-3)
    # torch's fitted approximation agrees to its accuracy (it is 3% off at alpha = 1e-3, u = 0.99)
    reference = torch._standard_gamma_grad(torch.from_numpy(alpha), torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, reference, rtol=0.05)


def test_standard_gamma_edges_and_errors_match_torch():
    # (Shapes that are not positive draw nothing here; torch's draws for them differ but give the same value.)
    for edge in [0.0, -1.0, float("nan"), float("inf"), 1e-30, 1e30, 1e-3]:
        for dtype in ("float32", "float64"):
            ember.manual_seed(0)
            torch.manual_seed(0)
            got = ember._standard_gamma(ember.tensor([edge], dtype=getattr(ember, dtype)))
            np.testing.assert_array_equal(N(got), torch._standard_gamma(torch.tensor([edge], dtype=getattr(torch, dtype))))
    grads = ember._standard_gamma_grad(ember.tensor([1.0, 2.0, -1.0, float("nan")]),
                                       ember.tensor([0.0, float("inf"), 1.0, 1.0]))
    np.testing.assert_array_equal(N(grads), [0.0, np.nan, np.nan, np.nan])
    for dtype in (ember.int64, ember.float16, ember.bfloat16):
        with pytest.raises(NotImplementedError, match="_standard_gamma is only implemented for float32 and float64"):
            ember._standard_gamma(ember.ones(2, dtype=dtype))
    with pytest.raises(RuntimeError, match="_standard_gamma_grad"):
        ember._standard_gamma_grad(ember.ones(2), ember.ones(3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_draws_follow_the_gamma_distribution(dtype):
    import scipy.stats as st
    ember.manual_seed(5)
    # (below about 0.1, float32 draws pile up at the smallest normal float, where they are clamped)
    for alpha in (0.01 if dtype == "float64" else 0.1, 0.4, 1.0, 3.0, 80.0):
        draws = N(ember._standard_gamma(ember.full((4000,), alpha, dtype=getattr(ember, dtype)))).astype(np.float64)
        assert st.kstest(draws, st.gamma(alpha).cdf).pvalue > 1e-3, alpha


def test_pathwise_gradients_of_gamma_beta_and_dirichlet_samples_are_unbiased():
    """Averaged over many draws, the gradient of the sample mean is the gradient of the true mean."""
    ember.manual_seed(11)
    n = 40000
    concentration = ember.tensor([0.4, 2.0, 9.0], dtype=ember.float64, requires_grad=True)
    rate = ember.tensor([1.0, 0.5, 3.0], dtype=ember.float64, requires_grad=True)
    D.Gamma(concentration, rate).rsample((n,)).mean(0).sum().backward()
    np.testing.assert_allclose(N(concentration.grad), 1 / N(rate.detach()), rtol=0.04)
    np.testing.assert_allclose(N(rate.grad), -N(concentration.detach()) / N(rate.detach()) ** 2, rtol=0.04)

    alpha = ember.tensor([0.7, 1.5, 4.0], dtype=ember.float64, requires_grad=True)
    D.Dirichlet(alpha).rsample((n,))[:, 0].mean().backward()
    a = N(alpha.detach())
    total = a.sum()
    np.testing.assert_allclose(N(alpha.grad), [(total - a[0]) / total ** 2, -a[0] / total ** 2, -a[0] / total ** 2],
                               rtol=0.06)

    c1 = ember.tensor(2.0, dtype=ember.float64, requires_grad=True)
    c0 = ember.tensor(3.0, dtype=ember.float64, requires_grad=True)
    D.Beta(c1, c0).rsample((n,)).mean().backward()
    np.testing.assert_allclose([N(c1.grad), N(c0.grad)], [3 / 25, -2 / 25], rtol=0.06)


def test_sampled_moments_of_the_new_families():
    ember.manual_seed(2)
    n = 40000
    mvn = D.MultivariateNormal(ember.tensor([1.0, -1.0, 0.5], dtype=ember.float64),
                               covariance_matrix=ember.from_numpy(SPD))
    draws = N(mvn.sample((n,)))
    np.testing.assert_allclose(np.cov(draws.T), SPD, atol=0.12 * np.abs(SPD).max())
    student = N(D.StudentT(ember.tensor(5.0), 1.0, 2.0).sample((n,)))
    np.testing.assert_allclose(student.var(), 4 * 5 / 3, rtol=0.1)
    poisson = N(D.Poisson(ember.tensor([0.5, 30.0])).sample((n,)))
    np.testing.assert_allclose(poisson.mean(0), [0.5, 30.0], rtol=0.03)
    counts = N(D.Multinomial(10, probs=ember.tensor([0.2, 0.3, 0.5])).sample((n,)))
    assert counts.shape == (n, 3) and (counts.sum(-1) == 10).all()
    np.testing.assert_allclose(counts.mean(0), [2.0, 3.0, 5.0], rtol=0.03)
    beta = N(D.Beta(ember.tensor([0.5, 5.0]), ember.tensor([0.5, 1.0])).sample((n,)))
    assert ((beta > 0) & (beta < 1)).all()
    np.testing.assert_allclose(beta.mean(0), [0.5, 5 / 6], rtol=0.03)


@pytest.mark.parametrize("bad", [
    lambda lib: lib.distributions.Gamma(lib.tensor([0.0]), lib.tensor([1.0])),
    lambda lib: lib.distributions.Beta(lib.tensor([1.0]), lib.tensor([-1.0])),
    lambda lib: lib.distributions.Dirichlet(lib.tensor([1.0, 0.0])),
    lambda lib: lib.distributions.Poisson(lib.tensor([-1.0])),
    lambda lib: lib.distributions.Binomial(lib.tensor([2.5]), probs=lib.tensor([0.5])),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), covariance_matrix=lib.tensor([[1.0, 2.0],
                                                                                                 [2.0, 1.0]])),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0], [0.0, 1.0]])),
    lambda lib: lib.distributions.Gamma(lib.tensor([1.0]), lib.tensor([1.0])).log_prob(lib.tensor([-1.0])),
    lambda lib: lib.distributions.Dirichlet(lib.ones(3)).log_prob(lib.tensor([0.5, 0.5, 0.5])),
    lambda lib: lib.distributions.Binomial(3, probs=lib.tensor([0.5])).log_prob(lib.tensor([4.0])),
])
def test_new_families_refuse_invalid_arguments_like_torch(bad):
    with pytest.raises(ValueError):
        bad(torch)
    with pytest.raises(ValueError, match="Expected"):
        bad(ember)


def test_multivariate_normal_forms_agree_and_refuse_bad_calls():
    loc = ember.zeros(3, dtype=ember.float64)
    cov = ember.from_numpy(SPD)
    by_cov = D.MultivariateNormal(loc, covariance_matrix=cov)
    by_precision = D.MultivariateNormal(loc, precision_matrix=ember.linalg.inv(cov))
    np.testing.assert_allclose(N(by_precision.covariance_matrix), SPD, rtol=1e-10)
    np.testing.assert_allclose(N(by_cov.precision_matrix), np.linalg.inv(SPD), rtol=1e-10)
    np.testing.assert_allclose(N(by_cov.scale_tril), np.linalg.cholesky(SPD), rtol=1e-12)
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix"):
        D.MultivariateNormal(loc, covariance_matrix=cov, scale_tril=cov)
    with pytest.raises(ValueError, match="at least one-dimensional"):
        D.MultivariateNormal(ember.tensor(0.0), covariance_matrix=cov)


MIXTURES = {
    "univariate": lambda lib, t: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(logits=t(LOGITS[:, :3])), lib.distributions.Normal(t(LOC), t(SCALE))),
    "shared_weights_multivariate": lambda lib, t: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(logits=t(LOGITS[0, :2])),
        lib.distributions.Independent(lib.distributions.Normal(t(LOC[:, :2]), t(SCALE[:, :2])), 1)),
    "gamma_components": lambda lib, t: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(probs=t(PROBS)), lib.distributions.Gamma(t(CONC), t(SCALE))),
}


@pytest.mark.parametrize("name", list(MIXTURES))
def test_mixture_same_family_matches_torch(name):
    e, t = both(MIXTURES[name])
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    ts = t.sample((5,))
    np.testing.assert_allclose(N(e.log_prob(ember.from_numpy(ts.numpy()))), t.log_prob(ts).numpy(), rtol=1e-10)
    for moment in ("mean", "variance"):
        np.testing.assert_allclose(N(getattr(e, moment)), getattr(t, moment).numpy(), rtol=1e-10)
    if name != "shared_weights_multivariate":
        np.testing.assert_allclose(N(e.cdf(ember.from_numpy(ts.numpy()))), t.cdf(ts).numpy(), rtol=1e-10)
    assert tuple(e.sample((7,)).shape) == (7,) + tuple(ts.shape[1:])
    expanded_e, expanded_t = e.expand((4,) + tuple(e.batch_shape)), t.expand((4,) + tuple(t.batch_shape))
    ts = expanded_t.sample()
    np.testing.assert_allclose(N(expanded_e.log_prob(ember.from_numpy(ts.numpy()))), expanded_t.log_prob(ts).numpy(),
                               rtol=1e-10)


def test_mixture_samples_follow_the_mixture():
    ember.manual_seed(0)
    mixture = D.MixtureSameFamily(D.Categorical(probs=ember.tensor([0.25, 0.75])),
                                  D.Normal(ember.tensor([-3.0, 3.0]), ember.tensor([0.5, 0.5])))
    x = mixture.sample((20000,))
    assert abs((x > 0).double().mean().item() - 0.75) < 0.02
    assert abs(x.mean().item() - mixture.mean.item()) < 0.06
    assert abs(x.var().item() - mixture.variance.item()) < 0.2
    with pytest.raises(ValueError, match="does not equal"):
        D.MixtureSameFamily(D.Categorical(logits=ember.zeros(3)), D.Normal(ember.zeros(2), ember.ones(2)))
    with pytest.raises(ValueError, match="instance of ember.distributions.Categorical"):
        D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(ember.zeros(2), ember.ones(2)))


RELAXED = {
    "RelaxedBernoulli_probs": (lambda lib, t: lib.distributions.RelaxedBernoulli(t(0.7), probs=t(PROBS)),
                               R.uniform(0.05, 0.95, (2, 3))),
    "RelaxedBernoulli_logits": (lambda lib, t: lib.distributions.RelaxedBernoulli(t(1.3), logits=t(LOC)),
                                R.uniform(0.05, 0.95, (4, 2, 3))),
    "RelaxedOneHotCategorical": (lambda lib, t: lib.distributions.RelaxedOneHotCategorical(t(0.5), logits=t(LOGITS)),
                                 (lambda g: g / g.sum(-1, keepdims=True))(R.uniform(0.1, 1.0, (3, 2, 4)))),
    "LogitRelaxedBernoulli": (lambda lib, t: lib.distributions.relaxed_bernoulli.LogitRelaxedBernoulli(
        t(0.4), probs=t(PROBS)),
                              R.standard_normal((2, 3))),
    "ExpRelaxedCategorical": (lambda lib, t: lib.distributions.relaxed_categorical.ExpRelaxedCategorical(
        t(2.0), probs=t(np.exp(LOGITS))),
                              np.log((lambda g: g / g.sum(-1, keepdims=True))(R.uniform(0.1, 1.0, (2, 4))))),
}


@pytest.mark.parametrize("family", list(RELAXED))
def test_relaxed_distributions_match_torch(family):
    e, t = log_prob_like_torch(*RELAXED[family])
    # Same seed, same draws: rand is torch's stream.
    ember.manual_seed(5)
    torch.manual_seed(5)
    np.testing.assert_allclose(N(e.rsample((3,))), t.rsample((3,)).numpy(), rtol=1e-10)
    expanded = e.expand((5,) + tuple(e.batch_shape))
    assert tuple(expanded.rsample().shape) == (5,) + tuple(e.batch_shape) + tuple(e.event_shape)


def test_relaxed_samples_are_differentiable_and_sharpen_as_temperature_falls():
    logits = ember.tensor([0.5, -1.0, 2.0], requires_grad=True)
    sample = D.RelaxedOneHotCategorical(ember.tensor(0.5), logits=logits).rsample((64,))
    (sample[:, 2]).sum().backward()
    assert logits.grad is not None and bool(ember.isfinite(logits.grad).all())
    ember.manual_seed(0)
    cold = D.RelaxedOneHotCategorical(ember.tensor(0.01), logits=logits.detach()).sample((2000,))
    assert cold.max(-1).values.mean().item() > 0.99  # nearly one-hot
    frequency = (cold.argmax(-1) == 2).double().mean().item()
    assert abs(frequency - ember.softmax(logits.detach(), 0)[2].item()) < 0.04


@pytest.mark.parametrize("family", ["Normal", "Categorical_logits", "Independent_Normal", "MultivariateNormal_cov",
                                    "LogNormal", "Gamma", "Dirichlet", "Bernoulli_probs", "Beta", "Poisson",
                                    "LowRankMultivariateNormal"])
def test_expand_matches_torch(family):
    make, _ = FAMILIES[family]
    e, t = both(make)
    shape = (3,) + tuple(t.batch_shape)
    ee, tt = e.expand(shape), t.expand(shape)
    assert tuple(ee.batch_shape) == tuple(tt.batch_shape) and tuple(ee.event_shape) == tuple(tt.event_shape)
    value = tt.sample()
    np.testing.assert_allclose(N(ee.log_prob(ember.from_numpy(value.numpy()))), tt.log_prob(value).numpy(),
                               rtol=1e-10, atol=1e-12)
    assert tuple(ee.sample().shape) == tuple(value.shape)
    assert tuple(e.batch_shape) == tuple(t.batch_shape)  # the original is left alone


def test_von_mises_density_moments_and_samples():
    scipy_stats = pytest.importorskip("scipy.stats")
    scipy_special = pytest.importorskip("scipy.special")
    loc, concentration = np.array([0.5, -2.0, 3.0]), np.array([2.0, 0.1, 50.0])
    e, t = both(lambda lib, to: lib.distributions.VonMises(to(loc), to(concentration)))
    values = np.array([[0.3, -1.0, 3.1], [2.0, 0.0, -3.1]])
    exact = scipy_stats.vonmises.logpdf(values, concentration, loc=loc)
    np.testing.assert_allclose(N(e.log_prob(ember.from_numpy(values))), exact, rtol=1e-12)
    # torch's log I0 is a polynomial fit, off by up to 3e-7 (SciPy above is exact).
    np.testing.assert_allclose(N(e.log_prob(ember.from_numpy(values))), t.log_prob(torch.from_numpy(values)).numpy(),
                               atol=1e-6)
    np.testing.assert_allclose(N(e.variance), 1 - scipy_special.i1e(concentration) / scipy_special.i0e(concentration),
                               rtol=1e-12)
    np.testing.assert_allclose(N(e.variance), t.variance.numpy(), atol=1e-6)
    np.testing.assert_allclose(N(e.mean), loc)
    ember.manual_seed(0)
    draws = N(e.sample((20000,)))
    assert draws.shape == (20000, 3) and draws.min() >= -np.pi and draws.max() < np.pi
    resultant = np.hypot(np.cos(draws).mean(0), np.sin(draws).mean(0))
    np.testing.assert_allclose(resultant, 1 - N(e.variance), atol=0.015)
    direction = np.arctan2(np.sin(draws).mean(0), np.cos(draws).mean(0))
    assert abs(direction[0] - 0.5) < 0.03 and abs(direction[2] - 3.0) < 0.01
    assert tuple(e.expand((4, 3)).sample().shape) == (4, 3)


def test_low_rank_normal_matrices_match_torch():
    e, t = both(FAMILIES["LowRankMultivariateNormal"][0])
    for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
        np.testing.assert_allclose(N(getattr(e, name)), getattr(t, name).numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices"):
        D.LowRankMultivariateNormal(ember.zeros(3), ember.zeros(2, 1), ember.ones(3))


def test_modes_where_torch_is_wrong():
    """The grid maximum of the density, where torch's formulas give NaN (Kumaraswamy) or 1 (Weibull, k = 0.5)."""
    grid = ember.linspace(1e-4, 1 - 1e-4, 99991, dtype=ember.float64).unsqueeze(-1)
    k = D.Kumaraswamy(ember.tensor([2.0, 5.0, 1.0], dtype=ember.float64), ember.tensor([3.0, 1.5, 4.0], dtype=ember.float64))
    best = N(grid[k.log_prob(grid).argmax(0), 0])
    np.testing.assert_allclose(N(k.mode), best, atol=2e-4)  # (the grid starts at 1e-4)
    np.testing.assert_allclose(N(k.mode), [np.sqrt(1 / 5), (4 / 6.5) ** 0.2, 0.0], rtol=1e-12)
    assert np.isnan(N(D.Kumaraswamy(ember.tensor([0.5]), ember.tensor([2.0])).mode)).all()
    w = D.Weibull(ember.tensor([1.0, 2.0], dtype=ember.float64), ember.tensor([0.5, 3.0], dtype=ember.float64))
    np.testing.assert_allclose(N(w.mode), [0.0, 2 * (2 / 3) ** (1 / 3)], rtol=1e-12)
    cb = D.ContinuousBernoulli(probs=ember.tensor([0.2, 0.5, 0.7]))  # torch has none: monotone densities
    np.testing.assert_array_equal(N(cb.mode), [0.0, np.nan, 1.0])


def test_negative_binomial_and_straight_through_samples():
    ember.manual_seed(5)
    nb = D.NegativeBinomial(ember.tensor([4.0, 0.0]), probs=ember.tensor([0.3, 0.6]))
    draws = N(nb.sample((40000,)))
    np.testing.assert_allclose(draws[:, 0].mean(), 4 * 0.3 / 0.7, rtol=0.03)
    np.testing.assert_allclose(draws[:, 0].var(), 4 * 0.3 / 0.7 ** 2, rtol=0.06)
    assert (draws[:, 1] == 0).all() and nb.log_prob(ember.tensor([0.0, 0.0]))[1].item() == 0.0
    logits = ember.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    st = D.OneHotCategoricalStraightThrough(logits=logits)
    draw = st.rsample((5,))
    assert ((draw.detach() == 0) | (draw.detach() == 1)).all() and (draw.detach().sum(-1) == 1).all()
    (draw * ember.tensor([1.0, 2.0, 3.0])).sum().backward()  # the gradient of the probabilities, 5 times
    probs = ember.softmax(logits.detach(), -1)
    c = ember.tensor([1.0, 2.0, 3.0])
    np.testing.assert_allclose(N(logits.grad), N(5 * probs * (c - (probs * c).sum())), rtol=1e-6)


@pytest.mark.parametrize("name", ["PowerTransform", "SoftplusTransform", "AbsTransform",
                                  "CumulativeDistributionTransform"])
def test_more_transforms_match_torch(name):
    x_np = R.uniform(0.2, 3.0, (2, 3))
    make = {
        "PowerTransform": lambda lib, t: lib.distributions.PowerTransform(t(CONC)),
        "SoftplusTransform": lambda lib, t: lib.distributions.SoftplusTransform(),
        "AbsTransform": lambda lib, t: lib.distributions.AbsTransform(),
        "CumulativeDistributionTransform": lambda lib, t: lib.distributions.CumulativeDistributionTransform(
            lib.distributions.Exponential(t(RATE))),
    }[name]
    e, t = both(make)
    ex, tx = ember.from_numpy(x_np), torch.from_numpy(x_np)
    ey, ty = e(ex), t(tx)
    np.testing.assert_allclose(N(ey), ty.numpy(), rtol=1e-12)
    np.testing.assert_allclose(N(e.inv(ey)), t.inv(ty).numpy(), rtol=1e-10)
    if name != "AbsTransform":  # not bijective: no Jacobian
        np.testing.assert_allclose(N(e.log_abs_det_jacobian(ex, ey)), t.log_abs_det_jacobian(tx, ty).numpy(),
                                   rtol=1e-10, atol=1e-12)
        # and a density through it
        ed = D.TransformedDistribution(D.Gamma(ember.from_numpy(CONC), 1.0), [e])
        td = TD.TransformedDistribution(TD.Gamma(torch.from_numpy(CONC), 1.0), [t])
        v = np.array(N(ed.sample()))
        np.testing.assert_allclose(N(ed.log_prob(ember.from_numpy(v))), td.log_prob(torch.from_numpy(v)).numpy(),
                                   rtol=1e-9, atol=1e-12)


def test_generalized_pareto_matches_torch_in_float32():
    """torch's GeneralizedPareto fails in float64 (isclose against a float32 zero): compared in float32."""
    # concentrations -0.5 (bounded support), 0 (the exponential) and 0.3 (a heavy tail)
    params = [p.astype(np.float32) for p in (LOC, SCALE, np.array([-0.5, 0.0, 0.3]))]
    e = D.GeneralizedPareto(*[ember.from_numpy(p) for p in params])
    t = TD.GeneralizedPareto(*[torch.from_numpy(p) for p in params])
    v = (LOC + SCALE * R.uniform(0.0, 1.9, (2, 3))).astype(np.float32)
    ev, tv = ember.from_numpy(v), torch.from_numpy(v)
    for method in ("log_prob", "cdf", "log_survival_function"):
        np.testing.assert_allclose(N(getattr(e, method)(ev)), getattr(t, method)(tv).numpy(), rtol=2e-5, atol=1e-6)
    p = ember.full((2, 3), 0.3)
    np.testing.assert_allclose(N(e.icdf(p)), t.icdf(torch.full((2, 3), 0.3)).numpy(), rtol=1e-5)
    for moment in ("mean", "mode", "variance"):
        np.testing.assert_allclose(N(getattr(e, moment)), getattr(t, moment).numpy(), rtol=1e-5, equal_nan=True)
    np.testing.assert_allclose(N(e.entropy()), t.entropy().numpy(), rtol=1e-6)
    ember.manual_seed(3)
    torch.manual_seed(3)
    np.testing.assert_allclose(N(e.sample((4,))), t.sample((4,)).numpy(), rtol=1e-5)
    assert N(e.support.check(ember.from_numpy(LOC.astype(np.float32) + 10 * SCALE.astype(np.float32))))[:, 0].tolist() \
        == [False, False]  # past loc - scale / c for c = -0.5


def test_stick_breaking_and_logistic_normal_match_torch():
    x_np = R.standard_normal((2, 3))
    e, t = D.StickBreakingTransform(), TD.StickBreakingTransform()
    ex, tx = ember.from_numpy(x_np), torch.from_numpy(x_np)
    ey, ty = e(ex), t(tx)
    assert tuple(ey.shape) == (2, 4) and np.allclose(N(ey).sum(-1), 1.0)
    np.testing.assert_allclose(N(ey), ty.numpy(), rtol=1e-12)
    np.testing.assert_allclose(N(e.inv(ey)), t.inv(ty).numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(N(e.log_abs_det_jacobian(ex, ey)), t.log_abs_det_jacobian(tx, ty).numpy(), rtol=1e-10)
    assert e.forward_shape((5, 3)) == (5, 4) and e.inv.forward_shape((5, 4)) == (5, 3)
    for lib in (D, TD):  # a composition's event dims: as many as any of its parts needs
        c = lib.ComposeTransform([lib.ExpTransform(), lib.StickBreakingTransform(), lib.ExpTransform()])
        assert (c.domain.event_dim, c.codomain.event_dim, c.inv.domain.event_dim) == (1, 1, 1)
    # the distribution: a [2]-batch of 4-simplices from 3 normals each; and one without a batch
    for loc, scale in ((LOC, SCALE), (LOC[0], 0.5)):
        e_d, t_d = both(lambda lib, t, loc=loc, scale=scale: lib.distributions.LogisticNormal(
            t(loc), t(scale) if isinstance(scale, np.ndarray) else scale))
        assert tuple(e_d.batch_shape) == tuple(t_d.batch_shape) and tuple(e_d.event_shape) == tuple(t_d.event_shape)
        value = R.uniform(0.1, 1.0, (5, *loc.shape[:-1], 4))
        value = value / value.sum(-1, keepdims=True)  # points of the 4-simplex
        np.testing.assert_allclose(N(e_d.log_prob(ember.from_numpy(value))), t_d.log_prob(torch.from_numpy(value)).numpy(),
                                   rtol=1e-9)
        ember.manual_seed(4)
        torch.manual_seed(4)
        np.testing.assert_allclose(N(e_d.sample((3,))), t_d.sample((3,)).numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["Independent", "Reshape", "Softmax", "LowerCholesky", "PositiveDefinite"])
def test_event_transforms_match_torch(name):
    make = {
        "Independent": lambda lib: lib.distributions.IndependentTransform(lib.distributions.ExpTransform(), 1),
        "Reshape": lambda lib: lib.distributions.ReshapeTransform((3, 3), (9,)),
        "Softmax": lambda lib: lib.distributions.SoftmaxTransform(),
        "LowerCholesky": lambda lib: lib.distributions.LowerCholeskyTransform(),
        "PositiveDefinite": lambda lib: lib.distributions.PositiveDefiniteTransform(),
    }[name]
    e, t = make(ember), make(torch)
    x_np = R.standard_normal((2, 3, 3))
    ex, tx = ember.from_numpy(x_np), torch.from_numpy(x_np)
    ey, ty = e(ex), t(tx)
    np.testing.assert_allclose(N(ey), ty.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(N(e.inv(ey)), t.inv(ty).numpy(), rtol=1e-9, atol=1e-12)
    assert (e.domain.event_dim, e.codomain.event_dim) == (t.domain.event_dim, t.codomain.event_dim)
    assert tuple(e.forward_shape((4, 3, 3))) == tuple(t.forward_shape((4, 3, 3)))
    if name in ("Independent", "Reshape"):
        np.testing.assert_allclose(N(e.log_abs_det_jacobian(ex, ey)), t.log_abs_det_jacobian(tx, ty).numpy(),
                                   rtol=1e-12)
    if name == "Reshape":
        # a 9-vector normal read as 3x3 matrices: the density is the base's
        ed = D.TransformedDistribution(D.Normal(ember.zeros(9, dtype=ember.float64), 1.0), [e.inv])
        td = TD.TransformedDistribution(TD.Normal(torch.zeros(9, dtype=torch.float64), 1.0), [t.inv])
        assert tuple(ed.event_shape) == tuple(td.event_shape) == (3, 3)
        np.testing.assert_allclose(N(ed.log_prob(ex)), td.log_prob(tx).numpy(), rtol=1e-12)


def test_exponential_family_entropy_from_the_log_normalizer():
    """A user's exponential family: the exponential distribution (eta = -rate, A = -log(-eta), h = 1) and the
    normal (eta = (mu / s^2, -1 / (2 s^2)), A = -eta1^2 / (4 eta2) - log(-2 eta2) / 2, E log h = -log(2 pi) / 2)."""

    class MyExponential(D.ExponentialFamily):
        def __init__(self, rate):
            self.rate = rate
            super().__init__(rate.shape)

        @property
        def _natural_params(self):
            return (-self.rate,)

        def _log_normalizer(self, eta):
            return -(-eta).log()

        @property
        def _mean_carrier_measure(self):
            return 0

    class MyNormal(MyExponential):
        def __init__(self, loc, scale):
            self.loc, self.scale = loc, scale
            D.ExponentialFamily.__init__(self, loc.shape)

        @property
        def _natural_params(self):
            return self.loc / self.scale.pow(2), -0.5 / self.scale.pow(2)

        def _log_normalizer(self, eta1, eta2):
            return -eta1.pow(2) / (4 * eta2) - 0.5 * (-2 * eta2).log()

        @property
        def _mean_carrier_measure(self):
            return -0.5 * np.log(2 * np.pi)  # E[log h] for h(x) = (2 pi)^(-1/2)

    rate = ember.from_numpy(RATE)
    np.testing.assert_allclose(N(MyExponential(rate).entropy()), N(D.Exponential(rate).entropy()), rtol=1e-12)
    loc, scale = ember.from_numpy(LOC), ember.from_numpy(SCALE)
    np.testing.assert_allclose(N(MyNormal(loc, scale).entropy()), N(D.Normal(loc, scale).entropy()), rtol=1e-12)
