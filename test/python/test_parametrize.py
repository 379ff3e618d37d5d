"""nn.utils.parametrize, parametrizations.weight_norm and the hook-based
weight_norm, against torch: structure, state_dict keys, values and
gradients, and removal."""

import numpy as np
import pytest

import ember
import ember.nn as enn
from ember.nn.utils import parametrize
from torch_oracle import E, N, torch


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(N(a), N(b), rtol=tol, atol=tol)


class Symmetric:
    """A parametrization class per library (a Module of that library)."""

    @staticmethod
    def make(lib):
        class Sym(lib.nn.Module):
            def forward(self, x):
                return x.triu() + x.triu(1).transpose(-1, -2)

            def right_inverse(self, a):
                return a.triu()

        return Sym()


def _run(lib, build):
    lib.manual_seed(0)
    model = build(lib)
    x = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    out = model(x)
    out.pow(2).sum().backward()
    return model, out


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("kind", ["weight_norm", "weight_norm_dim1", "old_weight_norm", "symmetric", "chained",
                                  "spectral_norm", "spectral_norm_3_steps"])
def test_parametrized_linear_matches_torch(kind):
    def build(lib):
        m = lib.nn.Linear(3, 3)
        if kind == "weight_norm":
            lib.nn.utils.parametrizations.weight_norm(m)
        elif kind == "weight_norm_dim1":
            lib.nn.utils.parametrizations.weight_norm(m, dim=1)
        elif kind == "old_weight_norm":
            lib.nn.utils.weight_norm(m)
        elif kind == "spectral_norm":
            lib.nn.utils.parametrizations.spectral_norm(m)
        elif kind == "spectral_norm_3_steps":
            lib.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=3, eps=1e-6)
        elif kind == "symmetric":
            lib.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric.make(lib))
        else:
            lib.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric.make(lib))
            lib.nn.utils.parametrize.register_parametrization(m, "weight", lib.nn.Tanh())
        return m

    tm, t_out = _run(torch, build)
    em, e_out = _run(ember, build)
    assert type(em).__name__ == type(tm).__name__
    assert sorted(em.state_dict()) == sorted(tm.state_dict())
    close(e_out, t_out)
    for (en, ep), (tn, tp) in zip(sorted(em.named_parameters()), sorted(tm.named_parameters())):
        assert en == tn
        close(ep, tp)
        close(ep.grad, tp.grad)


def test_assignment_goes_through_right_inverse():
    m = enn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric.make(ember))
    target = ember.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0], [3.0, 5.0, 6.0]])
    m.weight = target
    assert ember.equal(m.weight, target)
    assert ember.equal(m.parametrizations.weight.original, target.triu())


def test_original_keeps_its_identity_and_removal_restores_the_class():
    m = enn.Linear(3, 3)
    weight = m.weight
    parametrize.register_parametrization(m, "weight", Symmetric.make(ember))
    assert m.parametrizations.weight.original is weight
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert parametrize.type_before_parametrizations(m) is enn.Linear
    value = m.weight.detach().clone()
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is enn.Linear and not parametrize.is_parametrized(m)
    assert isinstance(m.weight, enn.Parameter) and ember.equal(m.weight, value)
    assert sorted(m.state_dict()) == ["bias", "weight"]


def test_cached_computes_once():
    calls = []

    class Counting(enn.Module):
        def forward(self, x):
            calls.append(1)
            return x * 2

    m = enn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Counting())
    calls.clear()
    with parametrize.cached():
        m.weight
        m.weight
    assert len(calls) == 1


def test_errors():
    m = enn.Linear(2, 2)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with name"):
        parametrize.register_parametrization(m, "nothing", enn.Identity())

    class Shrink(enn.Module):
        def forward(self, x):
            return x[:1]

    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(m, "weight", Shrink())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(m, "weight")
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        enn.utils.remove_weight_norm(m)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_old_weight_norm_removal():
    m = enn.Conv2d(2, 3, 3)
    enn.utils.weight_norm(m)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight_g", "weight_v"]
    x = ember.randn(1, 2, 5, 5)
    before = m(x)
    enn.utils.remove_weight_norm(m)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
    close(m(x), before)


@pytest.mark.parametrize("name,args,shape", [("Linear", (5, 4), (3, 5)), ("Conv2d", (2, 3, 3), (2, 2, 5, 5)),
                                             ("ConvTranspose2d", (3, 2, 3), (1, 3, 4, 4))])
def test_spectral_norm_matches_torch(name, args, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    results = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        m = lib.nn.utils.spectral_norm(getattr(lib.nn, name)(*args), n_power_iterations=2)
        outs = []
        for _ in range(3):  # power iterations advance on each training forward
            outs.append(m(lib.tensor(x)))
        outs[-1].pow(2).sum().backward()
        m.eval()
        outs.append(m(lib.tensor(x)))
        results.append((sorted(m.state_dict()), outs + [m.weight_orig.grad, m.weight_u, m.weight_v]))
    assert results[1][0] == results[0][0]
    for a, b in zip(results[1][1], results[0][1]):
        close(a, b, 2e-5)
    module = enn.utils.spectral_norm(enn.Linear(3, 2))
    enn.utils.remove_spectral_norm(module)
    assert sorted(n for n, _ in module.named_parameters()) == ["bias", "weight"]


@pytest.mark.parametrize("module", ["ConvTranspose1d", "Conv2d", "ConvTranspose3d"])
def test_spectral_norm_of_convolutions_matches_torch(module):
    results = []
    for lib in (torch, ember):
        lib.manual_seed(3)
        m = getattr(lib.nn, module)(2, 3, 2)
        lib.nn.utils.parametrizations.spectral_norm(m)
        train_weight = m.weight  # one power step
        m.eval()
        results.append((train_weight, m.weight, m.parametrizations.weight[0]._u, m.parametrizations.weight[0]._v))
    for mine, theirs in zip(results[1], results[0]):
        close(mine, theirs)


def test_spectral_norm_of_a_vector_normalizes_it():
    m = enn.Linear(3, 1)
    enn.utils.parametrizations.spectral_norm(m, "bias")
    close(m.bias.abs(), ember.ones(1))
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nothing'"):
        enn.utils.parametrizations.spectral_norm(m, "nothing")

