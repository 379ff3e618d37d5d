"""ember.special: every torch.special name, the values torch and SciPy give
at the edges (infinities, NaN, poles, tails), out=, and gradients against
torch. Grid values against SciPy are the operator database's
(opdb/structured.py, special.*)."""

import math

import numpy as np
import pytest
import scipy.special as sp
import torch

import ember


def test_every_torch_special_name_exists():
    names = [n for n in dir(torch.special) if not n.startswith("_") and callable(getattr(torch.special, n))]
    missing = [n for n in names if n not in ("Tensor",) and not hasattr(ember.special, n)]
    assert missing == []


EDGES = np.array([-math.inf, -50.0, -1.0, -0.0, 0.0, 1e-300, 0.5, 50.0, 800.0, math.inf, math.nan])


@pytest.mark.parametrize("name, ref", [
    ("erfcx", sp.erfcx), ("ndtr", sp.ndtr), ("log_ndtr", sp.log_ndtr),
    ("i0e", sp.i0e), ("i1e", sp.i1e), ("bessel_j0", sp.j0), ("bessel_j1", sp.j1),
    ("scaled_modified_bessel_k0", sp.k0e), ("scaled_modified_bessel_k1", sp.k1e), ("entr", sp.entr),
])
def test_edge_values_match_scipy(name, ref):
    got = getattr(ember.special, name)(ember.tensor(EDGES, dtype=ember.float64)).numpy()
    with np.errstate(all="ignore"):
        want = ref(EDGES)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_lgamma_edges_match_torch():
    got = ember.special.gammaln(ember.tensor(EDGES, dtype=ember.float64)).numpy()
    want = torch.special.gammaln(torch.tensor(EDGES)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


def test_poles_and_domains():
    assert ember.special.digamma(ember.tensor([0.0])).item() == -math.inf
    assert math.isnan(ember.special.digamma(ember.tensor([-2.0])).item())
    assert ember.special.bessel_y0(ember.tensor([0.0])).item() == -math.inf
    assert math.isnan(ember.special.bessel_y1(ember.tensor([-1.0])).item())
    assert ember.special.modified_bessel_k0(ember.tensor([0.0])).item() == math.inf
    assert ember.special.ndtri(ember.tensor([0.0, 1.0])).tolist() == [-math.inf, math.inf]
    assert math.isnan(ember.special.ndtri(ember.tensor([1.5])).item())
    assert ember.special.zeta(ember.tensor([1.0]), ember.tensor([2.0])).item() == math.inf
    assert ember.special.gammainc(ember.tensor([0.0]), ember.tensor([1.0])).item() == 1.0
    assert ember.special.xlog1py(ember.tensor([0.0]), ember.tensor([-1.0])).item() == 0.0
    assert ember.special.chebyshev_polynomial_t(ember.tensor([0.3]), ember.tensor([-1.0])).item() == 0.0


def test_tails_are_accurate():
    # far in the tails, where naive formulas underflow or cancel
    np.testing.assert_allclose(ember.special.log_ndtr(ember.tensor([-40.0], dtype=ember.float64)).numpy(),
                               sp.log_ndtr([-40.0]), rtol=1e-13)
    np.testing.assert_allclose(ember.special.ndtri(ember.tensor([1e-300], dtype=ember.float64)).numpy(),
                               sp.ndtri([1e-300]), rtol=1e-13)
    np.testing.assert_allclose(ember.special.erfcx(ember.tensor([1e5], dtype=ember.float64)).numpy(),
                               sp.erfcx([1e5]), rtol=1e-13)
    np.testing.assert_allclose(ember.special.airy_ai(ember.tensor([-30.0, 5.0], dtype=ember.float64)).numpy(),
                               sp.airy([-30.0, 5.0])[0], rtol=1e-10)


def test_aliases_out_and_scalars():
    x = ember.tensor([0.5, 1.5, 2.5])
    assert ember.special.expit(x).tolist() == ember.sigmoid(x).tolist()
    assert ember.special.psi(x).tolist() == ember.digamma(x).tolist() == x.digamma().tolist()
    assert ember.special.gammaln(x).tolist() == ember.lgamma(x).tolist()
    out = ember.empty(0)
    assert ember.special.i0e(x, out=out) is out and out.shape == (3,)
    np.testing.assert_allclose(ember.special.zeta(2.0, x).numpy(), sp.zeta(2.0, x.numpy()), rtol=1e-6)
    np.testing.assert_allclose(ember.special.hermite_polynomial_h(x, 3).numpy(),
                               sp.eval_hermite(3, x.numpy().astype(float)), rtol=1e-6)
    y = x.clone()
    y.lgamma_()
    np.testing.assert_allclose(y.numpy(), sp.gammaln(x.numpy()), rtol=1e-6)
    with pytest.raises(RuntimeError, match="All elements must be greater than"):
        ember.special.multigammaln(ember.tensor([0.5]), 3)
    with pytest.raises(RuntimeError, match="does not support negative n"):
        ember.special.polygamma(-1, x)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        ember.special.i0e(ember.tensor([1j]))


GRADIENTS = ["gammaln", "digamma", "i0", "i0e", "i1", "i1e", "erfcx", "ndtr", "ndtri", "log_ndtr", "entr"]


@pytest.mark.parametrize("name", GRADIENTS)
def test_gradients_match_torch(name):
    x = np.array([0.15, 0.4, 0.7, 0.95]) if name == "ndtri" else np.array([-1.3, -0.2, 0.4, 2.5])
    if name in ("gammaln", "digamma", "entr"):
        x = np.abs(x) + 0.3
    e = ember.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    getattr(ember.special, name)(e).sum().backward()
    getattr(torch.special, name)(t).sum().backward()
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_binary_gradients_match_torch():
    a, x = np.array([0.5, 2.0, 3.5]), np.array([0.3, 1.7, 4.0])
    results = []
    for lib in (ember, torch):
        xs = lib.tensor(x, requires_grad=True)
        ys = lib.tensor(a, requires_grad=True)
        (lib.special.gammainc(lib.tensor(a), xs) + lib.special.xlog1py(ys, xs) + lib.polygamma(2, xs)
         + lib.special.multigammaln(xs + 2, 2)).sum().backward()
        results.append((xs.grad.numpy(), ys.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-8)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8)


def test_polygamma_and_zeta_of_huge_orders_return_at_once():
    # the zeta series was shifted up to s: polygamma(2**63 - 1, x) ran for ever (found by the fuzzer)
    x = ember.tensor([0.5, 2.0, -1.5, 3.7], dtype=ember.float64)
    assert not ember.polygamma(2 ** 63 - 1, x).isfinite().any()  # n! overflows: inf (or inf * 0)
    import scipy.special as sp
    def zeta(s, q):
        return ember.special.zeta(ember.tensor([s], dtype=ember.float64), ember.tensor([q], dtype=ember.float64)).item()
    for s, q in ((70.0, 0.3), (100.0, 50.0), (200.0, -3.5), (80.0, -2.5), (1e6, 1.5)):
        np.testing.assert_allclose(zeta(s, q), sp.zeta(s, q), rtol=1e-12)
    assert zeta(1e12, -1e10 - 0.5) == math.inf  # (-0.5)^-s; SciPy itself does not return on this one
