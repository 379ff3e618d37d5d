"""Helpers for tests that use torch as an oracle: tensors travel torch ->
NumPy -> ember, so Ember never imports torch itself."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def E(t, requires_grad=False):
    """torch tensor -> ember tensor (through NumPy)."""
    out = ember.tensor(t.detach().resolve_conj().numpy().copy())
    if requires_grad:
        out.requires_grad_(True)
    return out


def N(t):
    if isinstance(t, ember.Tensor):
        return np.array(t.detach().resolve_conj().numpy(), copy=True)
    return t.detach().resolve_conj().numpy()


def assert_close(actual, expected, rtol=1e-6, atol=1e-9, msg=""):
    a, e = N(actual), N(expected)
    assert a.shape == e.shape, f"{msg}: shape {a.shape} != {e.shape}"
    assert a.dtype == e.dtype, f"{msg}: dtype {a.dtype} != {e.dtype}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=msg, equal_nan=True)


def rand(*shape, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype)


def leaf(*shape, seed=0):
    return E(rand(*shape, seed=seed), requires_grad=True)
