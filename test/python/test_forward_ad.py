"""ember.autograd.forward_ad against torch.autograd.forward_ad: tangents of composite functions (with
matmul, broadcasting, reductions, a parameter that also needs reverse mode), tangents of tensors no dual
reaches, and torch's errors."""

import numpy as np
import pytest

import ember
import ember.autograd.forward_ad as efw

torch = pytest.importorskip("torch")
import torch.autograd.forward_ad as tfw  # noqa: E402


def _run(lib, fw, x, t, w):
    X, T, W = lib.tensor(x), lib.tensor(t), lib.tensor(w, requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(X, T)
        y = (d.sin() * d ** 2) @ W + d.exp().sum(0, keepdim=True)
        z = (y.tanh() - y.mean()).softmax(-1)
        out = [fw.unpack_dual(v) for v in (y, z, d)]
        untouched = fw.unpack_dual(W * 2)
        z.sum().backward()  # reverse mode still works on the same graph
    return [(p.detach().numpy(), t.detach().numpy()) for p, t in out], untouched.tangent, W.grad.numpy()


def test_tangents_match_torch_and_reverse_mode_still_works():
    rng = np.random.default_rng(0)
    x, t, w = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    got, got_none, got_grad = _run(ember, efw, x, t, w)
    want, want_none, want_grad = _run(torch, tfw, x, t, w)
    for (gp, gt), (wp, wt) in zip(got, want):
        np.testing.assert_allclose(gp, wp, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(gt, wt, rtol=1e-10, atol=1e-12)
    assert got_none is None and want_none is None
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-10, atol=1e-12)


def test_outside_a_level_and_errors_as_torch():
    assert efw.unpack_dual(ember.ones(2)).tangent is None
    for lib, fw in ((ember, efw), (torch, tfw)):
        with pytest.raises(RuntimeError, match="no level exists"):
            fw.make_dual(lib.ones(2), lib.ones(2))
        with fw.dual_level():
            with pytest.raises(RuntimeError, match="different size than that of the original"):
                fw.make_dual(lib.ones(2), lib.ones(3))
            with pytest.raises(ValueError, match="Expected primal to be floating point"):
                fw.make_dual(lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64))
            with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
                with fw.dual_level():
                    pass
    with efw.dual_level():
        d = efw.make_dual(ember.ones(2), ember.ones(2))
    assert efw.unpack_dual(d * 3).tangent is None  # the level is gone
