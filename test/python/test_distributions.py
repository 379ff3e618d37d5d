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
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_log_prob_entropy_and_moments_match_torch(family):
    make, value = FAMILIES[family]
    e, t = both(make)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    ev, tv = ember.from_numpy(np.array(value, dtype=np.float64)), torch.from_numpy(np.array(value, dtype=np.float64))
    np.testing.assert_allclose(N(e.log_prob(ev)), t.log_prob(tv).numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(N(e.entropy()), t.entropy().numpy(), rtol=1e-10)
    for moment in ("mean", "variance", "stddev"):
        np.testing.assert_allclose(N(getattr(e, moment)), getattr(t, moment).numpy(), rtol=1e-10, equal_nan=True)


@pytest.mark.parametrize("family", ["Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "Gumbel", "LogNormal"])
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


@pytest.mark.parametrize("family", ["Cauchy", "Gumbel", "Geometric_probs", "LogNormal"])
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
