"""The structured gradient cases of the operator database (reductions,
linear algebra, joining and indexing, views, nn functions, convolution)
run again with complex128 leaves: wherever torch differentiates the case
for complex inputs, Ember must too, with torch's values and gradients
(Wirtinger convention), and small cases pass gradcheck."""

import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck
from opdb.gradients import GG_MAX_NUMEL, STRUCTURED, tensors_of

CASES = [pytest.param(c, id=c.id) for c in STRUCTURED if c.diffs()]

# The cholesky cases factor x @ x.mT, which complex x makes symmetric but not
# Hermitian: cholesky reads one triangle, and its gradient (torch's too) is
# the one for Hermitian inputs, which finite differences of a non-Hermitian
# input do not see. They are still compared with torch.
NO_GRADCHECK = {"linalg_cholesky_ex"}


def complex_leaves(case, lib):
    leaves = []
    for d in case.diffs():
        imag = np.roll(d.values.reshape(-1), 1).reshape(d.values.shape) * 0.5 + 0.1
        t = lib.from_numpy((d.values + 1j * imag).astype(np.complex128))
        if d.view is not None and d.mode == "leaf":
            t = d.view(t).detach()
        leaves.append(t.requires_grad_())
    return leaves


def differentiable_outputs(result):
    return [o for o in tensors_of(result) if (o.is_floating_point() or o.is_complex()) and o.requires_grad]


def values_and_grads(case, lib):
    leaves = complex_leaves(case, lib)
    outs = differentiable_outputs(case.function(lib)(*leaves))
    rng = np.random.default_rng(0)
    loss, values = 0, []
    for o in outs:
        w = rng.standard_normal(tuple(o.shape)) + 1j * rng.standard_normal(tuple(o.shape))
        loss = loss + ((o * lib.from_numpy(w)).real.sum() if o.is_complex() else (o * lib.from_numpy(w.real.copy())).sum())
        values.append(o.detach().resolve_conj().numpy())
    if not outs:
        return values, []
    grads = lib.autograd.grad([loss], leaves, allow_unused=True)
    return values, [np.zeros(tuple(x.shape), np.complex128) if g is None else g.resolve_conj().numpy()
                    for g, x in zip(grads, leaves)]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", CASES)
def test_complex_case_matches_torch(case):
    try:
        t_values, t_grads = values_and_grads(case, torch)
    except (RuntimeError, TypeError, NotImplementedError, ValueError, IndexError, AttributeError) as e:
        pytest.skip(f"torch does not take complex here: {str(e).splitlines()[0][:80]}")
    e_values, e_grads = values_and_grads(case, ember)
    assert len(e_values) == len(t_values)
    for e, t in zip(e_values, t_values):
        np.testing.assert_allclose(e, t, rtol=1e-6, atol=1e-8, equal_nan=True, err_msg="forward")
    for e, t in zip(e_grads, t_grads):
        np.testing.assert_allclose(e, t, rtol=1e-6, atol=1e-8, equal_nan=True, err_msg="gradient")
    leaves = complex_leaves(case, ember)
    if t_grads and case.op not in NO_GRADCHECK and all(x.numel() <= GG_MAX_NUMEL for x in leaves):
        assert gradcheck(lambda *xs: differentiable_outputs(case.function(ember)(*xs)), tuple(leaves),
                         eps=case.eps, atol=case.atol, rtol=case.rtol)
