"""Gradients of every differentiable operator, from the operator database's
gradient cases (opdb/gradients.py). For every case:

* ``test_gradcheck``: ember.autograd.gradcheck (float64, eps=1e-6, default
  tolerances) of the op with every float64 tensor input a leaf requiring grad;
* ``test_gradgradcheck``: ember.autograd.gradgradcheck, for cases whose
  inputs hold at most 12 elements each (function form only);
* ``test_grad_like_torch``: the gradient of sum(op(x) * W) for fixed random
  weights W matches torch's (values moved through NumPy).

Nothing here is an xfail: a failing case is a gradient bug in Ember.
"""

import zlib

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember_testing import to_numpy, torch
from opdb.gradients import STRUCTURED, all_cases, grad_ops, tensors_of

# ---- the tests ------------------------------------------------------------------------------------

CASES = all_cases()
_ids = [c.id for c in CASES]
assert len(set(_ids)) == len(_ids), sorted({i for i in _ids if _ids.count(i) > 1})

GC_CASES = [pytest.param(c, id=c.id) for c in CASES if c.gc]
GG_CASES = [pytest.param(c, id=c.id) for c in CASES if c.gc is not False and c.run_gg() and c.variant != "method"]
TC_CASES = [pytest.param(c, id=c.id) for c in CASES if c.tc]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("c", GC_CASES)
def test_gradcheck(c):
    leaves = c.leaves(ember)
    f = c.function(ember)
    assert gradcheck(f, tuple(leaves), eps=c.eps, atol=c.atol, rtol=c.rtol)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("c", GG_CASES)
def test_gradgradcheck(c):
    leaves = c.leaves(ember)
    f = c.function(ember)
    assert gradgradcheck(f, tuple(leaves), eps=c.eps, atol=c.atol, rtol=c.rtol)


def _weights(case_id, shapes):
    rng = np.random.default_rng(zlib.crc32(case_id.encode()))
    return [rng.standard_normal(s) for s in shapes]


def _float_outputs(result):
    return [o for o in tensors_of(result) if o.is_floating_point()]


def _ember_grads(c):
    leaves = c.leaves(ember)
    outs = _float_outputs(c.function(ember)(*leaves))
    ws = _weights(c.id, [tuple(o.shape) for o in outs])
    terms = [(o * ember.from_numpy(w.copy())).sum() for o, w in zip(outs, ws) if o.requires_grad]
    values = [to_numpy(o.detach()).astype(np.float64) for o in outs]
    if not terms:
        return values, [np.zeros(tuple(x.shape)) for x in leaves]
    loss = terms[0]
    for t in terms[1:]:
        loss = loss + t
    grads = ember.autograd.grad([loss], leaves, allow_unused=True)
    return values, [np.zeros(tuple(x.shape)) if g is None else to_numpy(g).astype(np.float64)
                    for g, x in zip(grads, leaves)]


def _torch_grads(c):
    leaves = c.leaves(torch)
    outs = _float_outputs(c.function(torch)(*leaves))
    ws = _weights(c.id, [tuple(o.shape) for o in outs])
    terms = [(o * torch.from_numpy(w.copy())).sum() for o, w in zip(outs, ws) if o.requires_grad]
    values = [o.detach().double().numpy() for o in outs]
    if not terms:
        return values, [np.zeros(tuple(x.shape)) for x in leaves]
    grads = torch.autograd.grad([sum(terms)], leaves, allow_unused=True)
    return values, [np.zeros(tuple(x.shape)) if g is None else g.double().numpy() for g, x in zip(grads, leaves)]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("c", TC_CASES)
def test_grad_like_torch(c):
    pytest.importorskip("torch")
    t_values, t_grads = _torch_grads(c)
    e_values, e_grads = _ember_grads(c)
    assert len(e_values) == len(t_values), (len(e_values), len(t_values))
    for i, (e, t) in enumerate(zip(e_values, t_values)):
        assert e.shape == t.shape, f"output {i}: shape {e.shape} vs torch {t.shape}"
        np.testing.assert_allclose(e, t, rtol=1e-6, atol=1e-8, equal_nan=True,
                                   err_msg=f"output {i} (forward) differs from torch")
    for i, (e, t) in enumerate(zip(e_grads, t_grads)):
        assert e.shape == t.shape, f"grad of input {i}: shape {e.shape} vs torch {t.shape}"
        np.testing.assert_allclose(e, t, rtol=c.torch_rtol, atol=c.torch_atol, equal_nan=True,
                                   err_msg=f"gradient of input {i} differs from torch")


# ---- a few direct checks ------------------------------------------------------------------------


def test_every_differentiable_opinfo_is_covered():
    names = {c.op for c in CASES if c.gc}
    missing = [op.name for op in grad_ops() if op.name not in names]
    assert not missing, missing


def test_every_structured_op_has_gradgradcheck():
    ops = {c.op for c in STRUCTURED if c.gc}
    with_gg = {c.op for c in STRUCTURED if c.gc and c.run_gg()}
    assert ops - with_gg == set()


@pytest.mark.parametrize("src, dst", [("float32", "float64"), ("float64", "float32")])
def test_to_dtype_gradient_has_the_input_dtype(src, dst):
    x = ember.from_numpy(np.arange(6, dtype=src).reshape(2, 3) / 4).requires_grad_()
    y = x.to(getattr(ember, dst))
    assert y.requires_grad and y.dtype == getattr(ember, dst)
    (g,) = ember.autograd.grad([(y * 2).sum()], [x])
    assert g.dtype == x.dtype
    np.testing.assert_array_equal(to_numpy(g), np.full((2, 3), 2, dtype=src))


def test_embedding_padding_idx_row_gets_no_gradient():
    w = ember.from_numpy(np.random.default_rng(0).standard_normal((5, 2))).requires_grad_()
    idx = ember.from_numpy(np.array([0, 2, 2, 1]))
    out = ember.embedding(w, idx, 2)
    (g,) = ember.autograd.grad([out.sum()], [w])
    expected = np.zeros((5, 2))
    expected[0] = expected[1] = 1
    np.testing.assert_array_equal(to_numpy(g), expected)


def test_max_dim_indices_do_not_require_grad():
    x = ember.from_numpy(np.random.default_rng(0).standard_normal((3, 4))).requires_grad_()
    for r in (ember.max(x, 1), ember.min(x, 1), ember.sort(x), ember.topk(x, 2)):
        assert r[0].requires_grad
        assert not r[1].requires_grad
