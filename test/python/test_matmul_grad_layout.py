"""Gradients of mm/addmm/linear take each operand's own layout (as torch): linear's weight gets a
contiguous gradient without a transposing copy, and the values equal torch's, real and complex."""

import numpy as np
import pytest

import ember
from torch_oracle import E, N, assert_close

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_linear_weight_gradient_is_contiguous_and_equals_torchs(dtype):
    g = torch.Generator().manual_seed(0)
    tdtype = getattr(torch, dtype)
    x, w, b = (torch.randn(*s, generator=g, dtype=tdtype) for s in ((6, 5), (4, 5), (4,)))
    tw, tb = w.clone().requires_grad_(), b.clone().requires_grad_()
    tx = x.clone().requires_grad_()
    torch.nn.functional.linear(tx, tw, tb).abs().sum().backward()
    ex, ew, eb = (E(t, requires_grad=True) for t in (x, w, b))
    ember.nn.functional.linear(ex, ew, eb).abs().sum().backward()
    assert ew.grad.is_contiguous() and ex.grad.is_contiguous()
    assert tuple(ew.grad.stride()) == tuple(tw.grad.stride())
    for got, want in ((ex.grad, tx.grad), (ew.grad, tw.grad), (eb.grad, tb.grad)):
        assert_close(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", ["rows", "columns"])
@pytest.mark.parametrize("op", ["mm", "addmm"])
def test_mm_gradients_follow_each_operands_layout(op, layout):
    g = torch.Generator().manual_seed(1)
    a, b, c = (torch.randn(*s, generator=g, dtype=torch.complex128) for s in ((3, 4), (4, 5), (3, 5)))
    if layout == "columns":  # operands stored column by column (transposes of contiguous matrices)
        ta, tb = (t.t().contiguous().t().requires_grad_() for t in (a, b))
        ea, eb = (E(t.t().contiguous()).t().detach().requires_grad_() for t in (a, b))
    else:
        ta, tb = a.clone().requires_grad_(), b.clone().requires_grad_()
        ea, eb = E(a, requires_grad=True), E(b, requires_grad=True)
    assert tuple(ea.stride()) == tuple(ta.stride())
    if op == "mm":
        out_t, out_e = ta.mm(tb), ea.mm(eb)
    else:
        out_t, out_e = torch.addmm(c, ta, tb, alpha=0.5), ember.addmm(E(c), ea, eb, alpha=0.5)
    out_t.abs().sum().backward()
    out_e.abs().sum().backward()
    for got, want in ((ea.grad, ta.grad), (eb.grad, tb.grad)):
        assert tuple(got.stride()) == tuple(want.stride())
        assert_close(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(N(out_e), out_t.detach().numpy(), rtol=1e-12)
