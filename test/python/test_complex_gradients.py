"""Every differentiable pointwise op of the operator database that takes
complex128: gradcheck on complex inputs (real and imaginary parts perturbed)
and the gradient compared with torch's, Wirtinger convention."""

import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck
from opdb import pointwise as oi
from opdb.gradients import NONDIFFERENTIABLE

# Ops whose complex samples sit on a branch cut or pole for some values, or that
# torch cannot differentiate for complex inputs.
SKIP = {"sgn", "angle"}  # checked with their own inputs in test_complex.py
SKIP_PREFIX = ("__r", "where")  # reflected operators; where takes a condition first (selection: no formula to check)

OPS = [op for op in oi.OPS
       if "complex128" in op.dtypes and op.aten not in NONDIFFERENTIABLE and op.kind in ("unary", "binary")
       and op.name not in SKIP and not op.name.startswith(SKIP_PREFIX)]


def inputs(op, seed):
    """Complex values inside the op's real domain, with small imaginary parts (off branch cuts)."""
    lo, hi = op.domain
    rng = np.random.default_rng(seed)
    real = lo + (hi - lo) * rng.uniform(0.3, 0.7, 3)
    return real + 1j * rng.uniform(0.1, 0.3, 3)


def call(op, lib, *args):
    out = op(lib, *args)
    return out


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_complex_gradients(op):
    arrays = [inputs(op, 0)] + ([inputs(op, 1) if op.other_domain is None else
                                 (np.mean(op.other_domain) + 0.2 + 0.1j) * np.ones(3)] if op.kind == "binary" else [])
    leaves = [ember.tensor(a, requires_grad=True) for a in arrays]
    assert gradcheck(lambda *xs: call(op, ember, *xs), tuple(leaves), atol=1e-5, rtol=1e-4)
    t_leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    call(op, ember, *leaves).abs().sum().backward()
    try:
        call(op, torch, *t_leaves).abs().sum().backward()
    except RuntimeError as e:  # torch refuses some (silu); Ember's passed gradcheck above
        assert "does not support automatic differentiation" in str(e)
        return
    for e, t in zip(leaves, t_leaves):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-9)
