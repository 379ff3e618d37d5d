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



def _orthogonal_linear(lib, shape, orthogonal_map, use_trivialization, weight):
    """Linear(in, out) with the given weight (out x in, or a batch of them through a buffer) made orthogonal."""
    lib.manual_seed(7)
    m = lib.nn.Linear(shape[-1], shape[-2], bias=False)
    with lib.no_grad():
        m.weight = lib.nn.Parameter(lib.tensor(weight))
    lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    return m


@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_matches_torch(orthogonal_map, shape, use_trivialization):
    rng = np.random.default_rng(sum(shape))
    weight = rng.standard_normal(shape)
    if not use_trivialization:
        if orthogonal_map != "householder" and not (orthogonal_map is None and shape[0] != shape[1]):
            with pytest.raises(NotImplementedError, match="use_trivialization=False"):
                _orthogonal_linear(ember, shape, orthogonal_map, False, weight)
            return
    x = rng.standard_normal((2, shape[-1]))
    results = []
    for lib in (torch, ember):
        m = _orthogonal_linear(lib, shape, orthogonal_map, use_trivialization, weight)
        out = m(lib.tensor(x))
        (out * lib.tensor(np.arange(out.numel()).reshape(out.shape) / 7.0)).sum().backward()
        original = m.parametrizations.weight.original
        results.append((m.weight.detach(), out.detach(), original.detach(), original.grad, sorted(m.state_dict())))
    (tw, tout, torig, tgrad, tkeys), (ew, eout, eorig, egrad, ekeys) = results
    assert ekeys == tkeys
    q = N(ew)
    gram = q.T @ q if shape[0] >= shape[1] else q @ q.T
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-12)
    np.testing.assert_allclose(N(ew), tw.numpy(), atol=1e-10)
    np.testing.assert_allclose(N(eout), tout.numpy(), atol=1e-10)
    # (without trivialization torch leaves R above the diagonal of the original, which the map never reads)
    keep = np.tril if not use_trivialization and shape[0] >= shape[1] else np.triu if not use_trivialization else np.asarray
    np.testing.assert_allclose(keep(N(eorig)), keep(torig.numpy()), atol=1e-10)
    np.testing.assert_allclose(N(egrad), tgrad.numpy(), atol=1e-9)


def test_orthogonal_weight_stays_orthogonal_while_training_and_accepts_assignment():
    ember.manual_seed(0)
    m = enn.utils.parametrizations.orthogonal(enn.Linear(6, 6, bias=False))
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    x, target = ember.randn(8, 6), ember.randn(8, 6)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = (m(x) - target).pow(2).sum()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    q = N(m.weight.detach()).astype(np.float64)
    np.testing.assert_allclose(q.T @ q, np.eye(6), atol=1e-5)
    target = ember.linalg.qr(ember.randn(6, 6))[0]
    with ember.no_grad():
        m.weight = target
    close(m.weight, target)
    m = enn.utils.parametrizations.orthogonal(enn.Linear(3, 5, bias=False), orthogonal_map="householder",
                                              use_trivialization=False)
    target = ember.linalg.qr(ember.randn(5, 3, dtype=ember.float64))[0]
    with ember.no_grad():
        m.weight = target.float()
    close(m.weight, target.float())


def test_orthogonal_of_complex_and_batched_weights():
    w = ember.randn(2, 4, 4, dtype=ember.complex128)
    m = enn.Module()
    m.register_buffer("w", w)
    enn.utils.parametrizations.orthogonal(m, "w")
    q = N(m.w)
    np.testing.assert_allclose(np.conj(np.swapaxes(q, -1, -2)) @ q, np.broadcast_to(np.eye(4), (2, 4, 4)), atol=1e-12)


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions"):
        enn.utils.parametrizations.orthogonal(enn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        enn.utils.parametrizations.orthogonal(enn.Linear(3, 3), orthogonal_map="qr")
    m = enn.Module()
    m.register_buffer("w", ember.randn(4, 3, dtype=ember.complex64))
    with pytest.raises(ValueError, match="householder parametrization does not support complex"):
        enn.utils.parametrizations.orthogonal(m, "w", orthogonal_map="householder")
    m = enn.utils.parametrizations.orthogonal(enn.Linear(3, 3))
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
        m.weight = ember.eye(4)
