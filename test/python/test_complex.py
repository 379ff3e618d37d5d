"""Complex tensors: the lazy conjugate and negative bits read through every
op (one fallback on the Conjugate/Negative keys), real/imag and the real
views, complex constructors, and gradients by Wirtinger calculus (checked
by finite differences on real and imaginary parts, and against torch)."""

import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck

A = np.array([1 + 2j, 3 - 4j, -0.5 + 0.25j])
B = np.array([0.5 + 1j, -2 + 0.5j, 1.5 - 1j])


def T(a, lib=ember, **kw):
    return lib.tensor(a, **kw)


def same(got, want, tol=1e-6):
    want = want.resolve_conj().resolve_neg() if isinstance(want, torch.Tensor) else want
    np.testing.assert_allclose(got.resolve_conj().resolve_neg().numpy(), np.asarray(want), rtol=tol, atol=tol)


# ---- the conjugate bit ---------------------------------------------------------------

READERS = {
    "add": lambda lib, x, y: x + y,
    "mul": lambda lib, x, y: x * y,
    "div": lambda lib, x, y: y / x,
    "exp": lambda lib, x, y: x.exp(),
    "sum": lambda lib, x, y: x.sum(),
    "cumsum": lambda lib, x, y: x.cumsum(0),
    "prod": lambda lib, x, y: x.prod(),
    "cat": lambda lib, x, y: lib.cat([x, y]),
    "stack": lambda lib, x, y: lib.stack([y, x]),
    "where": lambda lib, x, y: lib.where(lib.tensor([True, False, True]), x, y),
    "index": lambda lib, x, y: x[lib.tensor([2, 0])],
    "mm": lambda lib, x, y: x.view(3, 1) @ y.view(1, 3),
    "dot": lambda lib, x, y: lib.dot(x, y),
    "eq": lambda lib, x, y: x == y.conj(),
    "abs": lambda lib, x, y: x.abs(),
    "angle": lambda lib, x, y: x.angle(),
    "pow": lambda lib, x, y: x ** 2,
    "sgn": lambda lib, x, y: x.sgn(),
    "to": lambda lib, x, y: x.to(lib.complex128),
    "clone": lambda lib, x, y: x.clone(),
}


@pytest.mark.parametrize("name", sorted(READERS))
def test_ops_read_through_the_conjugate_bit(name):
    f = READERS[name]
    got = f(ember, T(A).conj(), T(B))
    want = f(torch, T(A, torch).conj(), T(B, torch))
    same(got, want)


def test_conj_is_a_view_that_costs_nothing():
    x = T(A)
    c = x.conj()
    assert c.is_conj() and not x.is_conj() and c.data_ptr() == x.data_ptr()
    assert c.conj().is_conj() is False
    assert c.t().is_conj() and c[1:].is_conj() and c.view(3, 1).is_conj()
    r = c.resolve_conj()
    assert not r.is_conj() and r.data_ptr() != x.data_ptr()
    same(r, np.conj(A))
    assert T([1.0, 2.0]).conj().is_conj() is False  # real tensors have no conjugate


def test_in_place_and_out_through_a_conjugate_view():
    x = T(A)
    v = x.conj()
    v.mul_(1j)  # conj(x) * i, stored back conjugated
    same(x, np.conj(np.conj(A) * 1j))
    assert v.is_conj()
    out = T(np.zeros(3, dtype=complex)).conj()
    ember.add(T(A), T(B), out=out)
    assert out.is_conj()
    same(out, A + B)
    # an input that shares memory with the written conjugate view
    y = T(A)
    y.conj().add_(y)
    same(y, np.conj(np.conj(A) + A))


def test_conj_physical():
    x = T(A)
    p = ember.conj_physical(x)
    assert not p.is_conj()
    same(p, np.conj(A))
    x.conj_physical_()
    same(x, np.conj(A))
    same(ember.conj_physical(T([1.0, -2.0])), np.array([1.0, -2.0]))


def test_matmul_reads_conjugate_transposes_without_copies():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 4)) + 1j * rng.standard_normal((5, 4))
    b = rng.standard_normal((6, 4)) + 1j * rng.standard_normal((6, 4))
    A, B = T(a), T(b)
    log = ember._C._OperatorLog()
    with log:
        product = A @ B.mH
    assert not {"copy_", "clone", "resolve_conj", "contiguous"} & set(log.names)
    same(product, a @ b.conj().T, 1e-12)
    same(A.conj() @ B.mT, a.conj() @ b.T, 1e-12)
    same(ember.addmm(T(np.ones((5, 6), dtype=complex)).conj(), A, B.mH), 1 + a @ b.conj().T, 1e-12)
    out = ember.zeros(5, 6, dtype=ember.complex128).conj()
    ember.mm(A, B.mH, out=out)
    assert out.is_conj()
    same(out, a @ b.conj().T, 1e-12)
    neg = A.conj().imag  # a negative view: read through the fallback
    same(neg @ ember.ones(4, 2, dtype=ember.float64), -a.imag @ np.ones((4, 2)), 1e-12)


# ---- real, imag and the negative bit ------------------------------------------------

def test_real_and_imag_are_writable_views():
    x = T(A)
    assert x.real.data_ptr() == x.data_ptr() and x.real.dtype == ember.float64
    same(x.real, A.real)
    same(x.imag, A.imag)
    x.real.fill_(7)
    x.imag = T([1.0, 2.0, 3.0])
    same(x, 7 + 1j * np.array([1.0, 2.0, 3.0]))
    r = T([1.0, 2.0])
    assert r.real is not None and ember.real(r).data_ptr() == r.data_ptr()
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        r.imag


def test_imag_of_a_conjugate_is_a_negative_view():
    x = T(A)
    im = x.conj().imag
    assert im.is_neg() and not im.is_conj()
    same(im, -A.imag)
    same(im + 1, -A.imag + 1)
    same(im.resolve_neg(), -A.imag)
    im.fill_(5)  # Im(conj(x)) = 5 means Im(x) = -5
    same(x.imag, np.full(3, -5.0))
    assert ember._C._neg_view(T([1.0, 2.0])).is_neg()
    same(ember._C._neg_view(T([1.0, 2.0])) * 2, np.array([-2.0, -4.0]))


def test_view_as_real_and_complex():
    x = T(A.astype(np.complex64))
    r = ember.view_as_real(x)
    assert r.shape == (3, 2) and r.dtype == ember.float32 and r.data_ptr() == x.data_ptr()
    same(r, np.stack([A.real, A.imag], -1))
    back = ember.view_as_complex(r)
    assert back.dtype == ember.complex64 and back.data_ptr() == x.data_ptr()
    with pytest.raises(RuntimeError, match="unresolved conjugated tensors"):
        ember.view_as_real(x.conj())
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        ember.view_as_complex(ember.randn(3, 3))
    with pytest.raises(RuntimeError, match="stride 1"):
        ember.view_as_complex(ember.randn(2, 3).t())
    with pytest.raises(RuntimeError, match="only supported for complex tensors"):
        ember.view_as_real(ember.randn(2))


def test_complex_polar_angle_match_torch():
    re, im = np.array([1.0, -2.0, 0.0]), np.array([0.5, 0.0, -3.0])
    same(ember.complex(T(re), T(im)), torch.complex(T(re, torch), T(im, torch)))
    same(ember.polar(T(re), T(im)), torch.polar(T(re, torch), T(im, torch)))
    for a in (A, re, np.array([-1, 0, 2]), np.array([np.nan, -0.0, -np.inf])):
        same(ember.angle(T(a)), torch.angle(T(a, torch)))
        assert str(ember.angle(T(a)).dtype).split(".")[-1] == str(torch.angle(T(a, torch)).dtype).split(".")[-1]
    with pytest.raises(RuntimeError, match="Expected object of scalar type"):
        ember.complex(T(re), T(im, dtype=ember.float32))
    with pytest.raises(RuntimeError, match="Float or Double"):
        ember.complex(T([1, 2]), T([1, 2]))


def test_promotion_with_complex():
    z = T(A.astype(np.complex64))
    assert (z + T([1.0, 2.0, 3.0], dtype=ember.float64)).dtype == ember.complex128
    assert (z * T([1, 2, 3])).dtype == ember.complex64
    assert (z * 2.5).dtype == ember.complex64
    assert (T([1.0, 2.0]) * 1j).dtype == ember.complex64


# ---- gradients ----------------------------------------------------------------------

GRAD_FUNCTIONS = {
    "abs": lambda x: x.abs(),
    "angle": lambda x: x.angle(),
    "sgn": lambda x: x.sgn(),
    "mul_conj": lambda x: x * x.conj(),
    "div": lambda x: (x + 3) / (x * x),
    "exp_log": lambda x: x.exp() + (x + 4).log(),
    "sin_tanh": lambda x: x.sin() * x.tanh(),
    "real_imag": lambda x: x.real * 2 + x.imag ** 2,
    "conj_imag": lambda x: x.conj().imag * x.real,
    "view_as_real": lambda x: ember.view_as_real(x * 2) ** 2,
    "sum_prod": lambda x: x.sum() * x.prod(),
    "matmul": lambda x: x.view(3, 1) @ x.conj().view(1, 3),
    "pow": lambda x: x ** 3,
    "sqrt": lambda x: (x + 5).sqrt(),
    "reciprocal": lambda x: (x + 2).reciprocal(),
    "conj_physical": lambda x: ember.conj_physical(x) * x,
}


@pytest.mark.parametrize("name", sorted(GRAD_FUNCTIONS))
def test_complex_gradients_match_finite_differences(name):
    x = T(A, requires_grad=True)
    assert gradcheck(GRAD_FUNCTIONS[name], (x,))


@pytest.mark.parametrize("name", sorted(GRAD_FUNCTIONS))
def test_complex_gradients_match_torch(name):
    e = T(A, requires_grad=True)
    t = T(A, torch, requires_grad=True)
    f = GRAD_FUNCTIONS[name]
    tf = {"view_as_real": lambda x: torch.view_as_real(x * 2) ** 2,
          "conj_physical": lambda x: torch.conj_physical(x) * x}.get(name, f)
    f(e).abs().sum().backward()
    tf(t).abs().sum().backward()
    same(e.grad, t.grad, 1e-8)


def test_real_to_complex_gradients_are_real():
    re = T([1.0, -2.0], dtype=ember.float64, requires_grad=True)
    im = T([0.5, 3.0], dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda a, b: ember.complex(a, b) ** 2, (re, im))
    assert gradcheck(lambda a, b: ember.polar(a, b) * (1 + 2j), (re, im))
    x = T([1.0, 2.0], requires_grad=True)
    (x * (1 + 1j)).abs().sum().backward()
    assert x.grad.dtype == ember.float32


def test_complex_forms_of_real_first_ops_match_torch():
    # ops torch takes complex for that first had real kernels only
    x = np.array([[1 + 1j, 2 - 1j, 0.5j], [np.nan + 1j, complex(np.inf, 2), complex(1, -np.inf)]])
    s = np.array([[1 + 1j, 2], [3j, 1], [2, 2j]])
    idx = [0, 2, 0]
    for reduce in ("prod", "mean"):
        got = ember.ones(3, 2, dtype=ember.complex128).index_reduce(0, ember.tensor(idx), ember.tensor(s), reduce)
        want = torch.ones(3, 2, dtype=torch.complex128).index_reduce(0, torch.tensor(idx), torch.tensor(s), reduce)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="index_reduce\\(\\): amax is not implemented for 'ComplexDouble'"):
        ember.ones(3, dtype=ember.complex128).index_reduce(0, ember.tensor([0]), ember.ones(1, dtype=ember.complex128),
                                                           "amax")
    for kwargs in ({}, {"nan": 1.5, "posinf": 2.5, "neginf": -3.5}):
        np.testing.assert_array_equal(ember.nan_to_num(ember.tensor(x), **kwargs).numpy(),
                                      torch.nan_to_num(torch.tensor(x), **kwargs).numpy())
    finite = x[0]
    np.testing.assert_allclose(ember.logcumsumexp(ember.tensor(s), 0).numpy(),
                               torch.logcumsumexp(torch.tensor(s), 0).numpy(), rtol=1e-12)
    leaf = ember.tensor(finite, requires_grad=True)
    assert gradcheck(lambda t: ember.logcumsumexp(t, 0), (leaf,))
    t_leaf = torch.tensor(finite, requires_grad=True)
    ember.logcumsumexp(leaf, 0).abs().sum().backward()
    torch.logcumsumexp(t_leaf, 0).abs().sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), t_leaf.grad.resolve_conj().numpy(), rtol=1e-10)
