"""Recently added native ops against torch (CPU, used only as an oracle).

Covers addcmul/addcdiv, lerp, erfinv, the isnan/isinf family, tril/triu,
flip/roll/repeat/constant_pad_nd, randperm/bernoulli, and the embedding and
batch_norm functional forms. Values travel torch -> NumPy -> ember.
"""

import math
import re

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


# ---- helpers -------------------------------------------------------------------


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


# ---- addcmul / addcdiv ---------------------------------------------------------

BCAST = [((3, 4), (3, 4), (3, 4)), ((3, 1), (1, 4), (4,)), ((4,), (2, 3, 4), (3, 1))]


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("shapes", BCAST, ids=str)
@pytest.mark.parametrize("value", [1, 0.5, -2.0])
def test_addc_values(op, shapes, value):
    a, b, c = (rand(*s, seed=i) for i, s in enumerate(shapes))
    if op == "addcdiv":
        c = c.abs() + 0.5
    expected = getattr(torch, op)(a, b, c, value=value)
    assert_close(getattr(ember, op)(E(a), E(b), E(c), value=value), expected, rtol=1e-12)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_addc_inplace_and_out(op):
    a, b, c = rand(3, 4, seed=1), rand(3, 4, seed=2), rand(4, seed=3).abs() + 0.5
    expected = getattr(torch, op)(a, b, c, value=0.25)
    x = E(a)
    r = getattr(x, op + "_")(E(b), E(c), value=0.25)
    assert r is x
    assert_close(x, expected, rtol=1e-12)
    out = ember.empty((3, 4), dtype=ember.float64)
    r = getattr(ember, op)(E(a), E(b), E(c), value=0.25, out=out)
    assert r is out
    assert_close(out, expected, rtol=1e-12)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_addc_gradcheck(op):
    c = leaf(3, 1, seed=3)
    with ember.no_grad():
        c.abs_().add_(0.5)
    assert gradcheck(lambda a, b, c: getattr(ember, op)(a, b, c, value=0.7), (leaf(3, 4), leaf(1, 4, seed=2), c))


def test_addcdiv_integer_raises():
    msg = "Integer division with addcdiv is no longer supported"
    with pytest.raises(RuntimeError, match=msg):
        torch.addcdiv(torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([1, 2]))
    with pytest.raises(RuntimeError, match=msg):
        ember.addcdiv(ember.tensor([1, 2]), ember.tensor([3, 4]), ember.tensor([1, 2]))


# ---- lerp ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("weight", [0.0, 0.3, 1.0, 1.7, "tensor"])
def test_lerp_values(dtype, weight):
    s, e = rand(3, 4, dtype=dtype, seed=1), rand(4, dtype=dtype, seed=2)
    w = torch.rand(3, 1, dtype=dtype, generator=torch.Generator().manual_seed(3)) if weight == "tensor" else weight
    ew = E(w) if weight == "tensor" else w
    expected = torch.lerp(s, e, w)
    tol = 1e-6 if dtype == torch.float32 else 1e-12
    assert_close(ember.lerp(E(s), E(e), ew), expected, rtol=tol, atol=tol)
    x = E(s)
    assert x.lerp_(E(e), ew) is x
    assert_close(x, expected, rtol=tol, atol=tol)
    out = ember.empty((3, 4), dtype=x.dtype)
    assert ember.lerp(E(s), E(e), ew, out=out) is out
    assert_close(out, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("tensor_weight", [False, True])
def test_lerp_gradcheck(tensor_weight):
    w = leaf(3, 1, seed=5) if tensor_weight else 0.3
    inputs = (leaf(3, 4), leaf(3, 4, seed=1)) + ((w,) if tensor_weight else ())
    assert gradcheck(lambda s, e, *w_: ember.lerp(s, e, w_[0] if w_ else w), inputs)


def test_lerp_dtype_mismatch():
    msg = "expected dtype float for `end` but got dtype double"
    with pytest.raises(RuntimeError, match=msg):
        torch.lerp(torch.ones(2), torch.ones(2, dtype=torch.float64), 0.5)
    with pytest.raises(RuntimeError, match=msg):
        ember.lerp(ember.ones(2), ember.ones(2, dtype=ember.float64), 0.5)


# ---- erfinv --------------------------------------------------------------------

ERFINV_X = [-1.0, -0.999999, -0.9999, -0.99, -0.5, -1e-8, 0.0, 1e-8, 0.3, 0.9, 0.99, 0.9999, 0.999999, 1.0, 1.5, -2.0]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_erfinv_values(dtype):
    x = torch.tensor(ERFINV_X, dtype=dtype)
    expected = torch.erfinv(x)
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    got = ember.erfinv(E(x))
    assert_close(got, expected, rtol=tol, atol=tol)
    g = N(got)
    assert g[0] == -math.inf and g[13] == math.inf
    assert np.isnan(g[-1]) and np.isnan(g[-2])
    y = E(x)
    assert y.erfinv_() is y
    assert_close(y, expected, rtol=tol, atol=tol)


def test_erfinv_random_roundtrip():
    x = torch.rand(1000, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 1.98 - 0.99
    assert_close(ember.erfinv(E(x)), torch.erfinv(x), rtol=1e-12, atol=1e-14)


def test_erfinv_gradcheck():
    x = E(torch.tensor([-0.9, -0.4, 0.0, 0.25, 0.8], dtype=torch.float64), requires_grad=True)
    assert gradcheck(ember.erfinv, (x,))


# ---- isnan / isinf / isfinite / isposinf / isneginf ----------------------------

INF, NAN = math.inf, math.nan
CLASSIFY_INPUTS = {
    "float32": torch.tensor([0.0, -1.5, INF, -INF, NAN, 1e38, -0.0]),
    "float64": torch.tensor([0.0, -1.5, INF, -INF, NAN, 1e308, 5e-324], dtype=torch.float64),
    "int64": torch.tensor([0, -3, 7, 2**40]),
    "int32": torch.tensor([0, -3, 7], dtype=torch.int32),
    "uint8": torch.tensor([0, 255], dtype=torch.uint8),
    "bool": torch.tensor([True, False]),
    "complex64": torch.tensor([complex(1, 2), complex(INF, 0), complex(0, -INF), complex(NAN, 1), complex(1, NAN)],
                              dtype=torch.complex64),
    "complex128": torch.tensor([complex(1, 2), complex(INF, NAN), complex(-INF, 1), complex(0, 0)],
                               dtype=torch.complex128),
}


@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite", "isposinf", "isneginf"])
@pytest.mark.parametrize("dname", list(CLASSIFY_INPUTS))
def test_classify(op, dname):
    x = CLASSIFY_INPUTS[dname]
    if op in ("isposinf", "isneginf") and x.is_complex():
        with pytest.raises(RuntimeError, match="does not support complex inputs"):
            getattr(torch, op)(x)
        with pytest.raises(RuntimeError, match="does not support complex inputs"):
            getattr(ember, op)(E(x))
        return
    got = getattr(ember, op)(E(x))
    assert got.dtype == ember.bool
    np.testing.assert_array_equal(N(got), getattr(torch, op)(x).numpy())


# ---- tril / triu ---------------------------------------------------------------


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("shape", [(4, 5), (5, 3), (2, 3, 4)], ids=str)
@pytest.mark.parametrize("diagonal", [0, 1, 2, -1, -3, 10, -10])
def test_tri_values(op, shape, diagonal):
    x = rand(*shape)
    expected = getattr(torch, op)(x, diagonal=diagonal)
    assert_close(getattr(ember, op)(E(x), diagonal=diagonal), expected)
    y = E(x)
    assert getattr(y, op + "_")(diagonal=diagonal) is y
    assert_close(y, expected)
    out = ember.empty(shape, dtype=ember.float64)
    assert getattr(ember, op)(E(x), diagonal=diagonal, out=out) is out
    assert_close(out, expected)


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("diagonal", [0, 1, -1])
def test_tri_gradcheck(op, diagonal):
    assert gradcheck(lambda t: getattr(ember, op)(t, diagonal=diagonal), (leaf(2, 3, 4),))


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_tri_1d_raises(op):
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        getattr(torch, op)(torch.ones(3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        getattr(ember, op)(ember.ones(3))


# ---- flip / roll / repeat / constant_pad_nd ------------------------------------

FLIP = [(0,), (1,), (0, 2), (-1,), (-1, -3), (0, 1, 2)]
ROLL = [(1, 0), (-2, 1), ((1, 2), (0, 2)), ((-1, 3), (-1, -2)), (5, None), (-3, None), ((2,), (1,))]
REPEAT = [(1, 1, 1), (2, 1, 3), (2, 1, 1, 2), (3, 2, 2, 1, 1), (1, 0, 1)]
PAD = [((1, 1), 0.0), ((2, 0, 1, 3), 1.5), ((-1, 1), 0.0), ((1, -2, -1, 2), -3.0), ((0, 0, 0, 0, 1, 1), 2.0)]


@pytest.mark.parametrize("dims", FLIP, ids=str)
def test_flip(dims):
    x = rand(2, 3, 4)
    assert_close(ember.flip(E(x), dims), torch.flip(x, dims))
    assert gradcheck(lambda t: ember.flip(t, dims), (leaf(2, 3, 2),))


def _roll(mod, t, shifts, dims):
    return mod.roll(t, shifts) if dims is None else mod.roll(t, shifts, dims)


@pytest.mark.parametrize("shifts,dims", ROLL, ids=str)
def test_roll(shifts, dims):
    x = rand(3, 4, 5)
    assert_close(_roll(ember, E(x), shifts, dims), _roll(torch, x, shifts, dims))
    assert gradcheck(lambda t: _roll(ember, t, shifts, dims), (leaf(3, 2, 2),))


@pytest.mark.parametrize("repeats", REPEAT, ids=str)
def test_repeat(repeats):
    x = rand(2, 1, 3)
    assert_close(E(x).repeat(*repeats), x.repeat(*repeats))
    assert_close(E(x).repeat(repeats), x.repeat(repeats))
    assert gradcheck(lambda t: t.repeat(*repeats), (leaf(2, 1, 2),))


@pytest.mark.parametrize("pad,value", PAD, ids=str)
def test_constant_pad_nd(pad, value):
    x = rand(3, 4, 5)
    assert_close(ember.constant_pad_nd(E(x), pad, value), torch.constant_pad_nd(x, pad, value))
    assert gradcheck(lambda t: ember.constant_pad_nd(t, pad, value), (leaf(3, 3, 4),))


# ---- randperm / bernoulli ------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 7, 100])
def test_randperm_is_permutation(n):
    p = ember.randperm(n)
    assert p.dtype == ember.int64
    assert tuple(p.shape) == (n,)
    assert sorted(N(p).tolist()) == list(range(n))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_randperm_dtype(dtype):
    p = ember.randperm(20, dtype=getattr(ember, dtype))
    assert p.dtype == getattr(ember, dtype)
    assert sorted(N(p).tolist()) == list(range(20))


@pytest.mark.parametrize("n,dtype", [(256, "uint8"), (128, "int8"), (2049, "float16")])
def test_randperm_dtype_limit_fits(n, dtype):
    p = ember.randperm(n, dtype=getattr(ember, dtype))
    assert sorted(N(p).astype(np.int64).tolist()) == list(range(n))


@pytest.mark.parametrize("n,dtype", [(257, "uint8"), (129, "int8"), (40000, "int16"), (3000, "float16")])
def test_randperm_dtype_overflow_raises(n, dtype):
    with pytest.raises(RuntimeError):
        torch.randperm(n, dtype=getattr(torch, dtype))
    with pytest.raises(RuntimeError, match="n cannot be greater than 2049 for Half" if dtype == "float16" else "fit"):
        ember.randperm(n, dtype=getattr(ember, dtype))


@pytest.mark.parametrize("p", [1.5, -0.1])
def test_bernoulli_bad_p_raises(p):
    with pytest.raises(RuntimeError):
        torch.bernoulli(torch.tensor([p]))
    with pytest.raises(RuntimeError):
        ember.bernoulli(ember.tensor([p]))


def test_manual_seed_reproducible():
    ember.manual_seed(1234)
    a, pa = N(ember.randperm(50)), N(ember.bernoulli(ember.full((64,), 0.5)))
    ember.manual_seed(1234)
    b, pb = N(ember.randperm(50)), N(ember.bernoulli(ember.full((64,), 0.5)))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(pa, pb)
    ember.manual_seed(4321)
    assert not np.array_equal(a, N(ember.randperm(50)))


def test_bernoulli_tensor_p():
    ember.manual_seed(0)
    p = ember.tensor([0.0, 0.1, 0.5, 0.9, 1.0], dtype=ember.float64)
    samples = N(ember.bernoulli(p.expand(20000, 5).contiguous()))
    assert samples.dtype == np.float64
    assert set(np.unique(samples).tolist()) <= {0.0, 1.0}
    np.testing.assert_allclose(samples.mean(axis=0), N(p), atol=0.02)
    assert samples[:, 0].max() == 0.0 and samples[:, 4].min() == 1.0


def test_bernoulli_inplace_scalar():
    ember.manual_seed(0)
    x = ember.empty((40000,), dtype=ember.float32)
    assert x.bernoulli_(0.3) is x
    v = N(x)
    assert set(np.unique(v).tolist()) <= {0.0, 1.0}
    assert abs(v.mean() - 0.3) < 0.02


# ---- embedding -----------------------------------------------------------------


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("scale_grad_by_freq", [False, True])
def test_embedding_grad(padding_idx, scale_grad_by_freq):
    w = rand(6, 3)
    idx = torch.tensor([[0, 2, 2, 5], [1, 2, 0, 5]])
    upstream = rand(2, 4, 3, seed=7)
    tw = w.clone().requires_grad_(True)
    tout = TF.embedding(idx, tw, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)
    tout.backward(upstream)
    ew = E(w, requires_grad=True)
    eout = F.embedding(E(idx), ew, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)
    assert_close(eout, tout.detach())
    eout.backward(E(upstream))
    assert_close(ew.grad, tw.grad, rtol=1e-12)
    if padding_idx is not None:
        assert np.all(N(ew.grad)[padding_idx] == 0)


# ---- batch_norm ----------------------------------------------------------------


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 2)], ids=str)
@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_batch_norm_running_stats(shape, momentum):
    x = rand(*shape) * 2 + 1
    rm, rv = rand(3, seed=1), rand(3, seed=2).abs() + 0.5
    weight, bias = rand(3, seed=3), rand(3, seed=4)
    trm, trv = rm.clone(), rv.clone()
    tx = x.clone().requires_grad_(True)
    tw, tb = weight.clone().requires_grad_(True), bias.clone().requires_grad_(True)
    tout = TF.batch_norm(tx, trm, trv, tw, tb, training=True, momentum=momentum, eps=1e-5)
    erm, erv = E(rm), E(rv)
    ex, ewt, eb = E(x, True), E(weight, True), E(bias, True)
    eout = F.batch_norm(ex, erm, erv, ewt, eb, training=True, momentum=momentum, eps=1e-5)
    assert_close(eout, tout.detach(), rtol=1e-10, atol=1e-12)
    assert_close(erm, trm, rtol=1e-12)
    assert_close(erv, trv, rtol=1e-12)
    for s in (erm, erv):
        assert s.grad_fn is None
        assert s.requires_grad is False
    upstream = rand(*shape, seed=9)
    tout.backward(upstream)
    eout.backward(E(upstream))
    for e, t in ((ex, tx), (ewt, tw), (eb, tb)):
        assert_close(e.grad, t.grad, rtol=1e-8, atol=1e-10)


# ---- multinomial ----------------------------------------------------------------


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_frequencies(replacement):
    # Category frequencies of the first draw follow the (unnormalized) weights.
    ember.manual_seed(0)
    weights = ember.tensor([1.0, 0.0, 3.0, 4.0])
    draws = ember.multinomial(weights.expand(20000, 4), 2 if not replacement else 1, replacement)
    first = N(draws[:, 0])
    freq = np.bincount(first, minlength=4) / first.size
    np.testing.assert_allclose(freq, [0.125, 0.0, 0.375, 0.5], atol=0.015)
    assert draws.dtype == ember.int64


def test_multinomial_without_replacement_is_sequential_draws():
    # P(second = j | first = i) = w_j / (1 - w_i): compare against the exact law.
    ember.manual_seed(1)
    w = np.array([0.5, 0.3, 0.2])
    draws = N(ember.multinomial(ember.tensor(w).expand(30000, 3), 2))
    assert (draws[:, 0] != draws[:, 1]).all()
    pairs = np.zeros((3, 3))
    np.add.at(pairs, (draws[:, 0], draws[:, 1]), 1)
    exact = np.array([[w[i] * w[j] / (1 - w[i]) if i != j else 0 for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(pairs / len(draws), exact, atol=0.012)


def test_multinomial_shapes_and_out():
    assert ember.multinomial(ember.ones(5), 3).shape == (3,)
    assert ember.multinomial(ember.ones(2, 5), 7, replacement=True).shape == (2, 7)
    out = ember.empty(0, dtype=ember.int64)
    ember.multinomial(ember.ones(4), 4, out=out)
    assert sorted(N(out).tolist()) == [0, 1, 2, 3]
    assert ember.ones(3).multinomial(1).shape == (1,)


@pytest.mark.parametrize(
    "probs,n,replacement,message",
    [
        ([[[1.0]]], 1, True, "prob_dist must be 1 or 2 dim"),
        ([1.0, 2.0], 0, True, "cannot sample n_sample <= 0 samples"),
        ([1.0, 2.0], 3, False, "cannot sample n_sample > prob_dist.size"),
        ([1.0, -1.0], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
        ([0.0, 0.0], 1, True, "sum of probabilities <= 0"),
    ],
)
def test_multinomial_errors_match_torch(probs, n, replacement, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        torch.multinomial(torch.tensor(probs), n, replacement)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        ember.multinomial(ember.tensor(probs), n, replacement)


def test_multinomial_without_replacement_takes_zero_weights_last():
    # Like torch: no error when the positive categories run out; the rest follow.
    draws = N(ember.multinomial(ember.tensor([[0.0, 2.0, 0.0, 1.0]]).expand(50, 4), 3))
    assert set(draws[:, :2].flatten().tolist()) == {1, 3}
    assert set(draws[:, 2].tolist()) <= {0, 2}
    assert len(N(torch.multinomial(torch.tensor([0.0, 2.0, 0.0, 1.0]), 3))) == 3


# ---- dropout ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_keeps_expected_fraction_and_scales(dtype, p):
    ember.manual_seed(0)
    x = ember.ones(300, 301, dtype=getattr(ember, dtype))
    out, mask = ember.native_dropout(x, p, True)
    kept = N(mask)
    assert abs(kept.mean() - (1 - p)) < 0.01
    values = N(out.double())
    np.testing.assert_allclose(values[kept], 1 / (1 - p), rtol=1e-2)
    assert (values[~kept] == 0).all()


def test_dropout_gradient_uses_the_same_mask():
    x = ember.randn(64, 65, dtype=ember.float64, requires_grad=True)
    y = F.dropout(x, 0.3, training=True)
    y.backward(ember.ones_like(y))
    expected = (N(y.detach()) != 0) / 0.7
    np.testing.assert_allclose(N(x.grad), expected)


def test_dropout_gradcheck_and_gradgradcheck():
    x = ember.randn(4, 5, dtype=ember.float64, requires_grad=True)

    def f(x):
        ember.manual_seed(7)  # the same mask at every evaluation
        return ember.native_dropout(x, 0.4, True)[0]

    assert gradcheck(f, (x,))
    assert ember.autograd.gradgradcheck(f, (x,))


def test_dropout_eval_p0_p1_and_errors_like_torch():
    x = ember.randn(3, 4)
    assert F.dropout(x, 0.5, training=False) is x
    np.testing.assert_array_equal(N(F.dropout(x, 1.0)), np.zeros((3, 4), np.float32))
    out, mask = ember.native_dropout(x, 0.5, False)
    np.testing.assert_array_equal(N(out), N(x))
    assert N(mask).all()
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        TF.dropout(torch.randn(3), 1.5)


def test_dropout_is_reproducible_under_manual_seed():
    ember.manual_seed(5)
    a = N(F.dropout(ember.ones(1000), 0.5))
    ember.manual_seed(5)
    b = N(F.dropout(ember.ones(1000), 0.5))
    np.testing.assert_array_equal(a, b)


# ---- layer_norm ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,normalized", [((4, 5, 6), (6,)), ((3, 4, 5), (4, 5)), ((7,), (7,)), ((2, 300), (300,))])
@pytest.mark.parametrize("affine", [True, False])
def test_native_layer_norm_matches_torch(dtype, shape, normalized, affine):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype) * 3 + 1
    w = rng.standard_normal(normalized).astype(dtype) if affine else None
    b = rng.standard_normal(normalized).astype(dtype) if affine else None
    wrap = lambda a, lib: None if a is None else (ember.tensor(a) if lib is ember else torch.tensor(a))  # noqa: E731
    got = ember.native_layer_norm(ember.tensor(x), list(normalized), wrap(w, ember), wrap(b, ember), 1e-5)
    want = torch.ops.aten.native_layer_norm(torch.tensor(x), list(normalized), wrap(w, torch), wrap(b, torch), 1e-5)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for g, t in zip(got, want):
        assert tuple(g.shape) == tuple(t.shape)
        np.testing.assert_allclose(N(g), t.numpy(), rtol=tol, atol=tol)
    dy = rng.standard_normal(shape).astype(dtype)
    mask = [True, affine, affine]
    got_b = ember.native_layer_norm_backward(ember.tensor(dy), ember.tensor(x), list(normalized), got[1], got[2],
                                             wrap(w, ember), wrap(b, ember), mask)
    want_b = torch.ops.aten.native_layer_norm_backward(torch.tensor(dy), torch.tensor(x), list(normalized), want[1],
                                                       want[2], wrap(w, torch), wrap(b, torch), mask)
    for g, t in zip(got_b, want_b):
        assert (g is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(N(g), t.numpy(), rtol=10 * tol, atol=10 * tol)


def test_layer_norm_output_mask_skips_gradients():
    x, w, b = ember.randn(3, 4), ember.randn(4), ember.randn(4)
    _, mean, rstd = ember.native_layer_norm(x, [4], w, b, 1e-5)
    dx, dw, db = ember.native_layer_norm_backward(ember.ones(3, 4), x, [4], mean, rstd, w, b, [False, True, False])
    assert dx is None and db is None and dw.shape == (4,)


def test_layer_norm_double_backward():
    x = ember.randn(3, 4, 5, dtype=ember.float64, requires_grad=True)
    w = ember.randn(4, 5, dtype=ember.float64, requires_grad=True)
    b = ember.randn(4, 5, dtype=ember.float64, requires_grad=True)
    f = lambda x, w, b: F.layer_norm(x, [4, 5], w, b)  # noqa: E731
    assert gradcheck(f, (x, w, b))
    assert ember.autograd.gradgradcheck(f, (x, w, b))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_layer_norm_reduced_precision_keeps_float_statistics(dtype):
    x = ember.randn(4, 64).to(getattr(ember, dtype))
    out, mean, rstd = ember.native_layer_norm(x, [64], None, None, 1e-5)
    assert out.dtype == x.dtype and mean.dtype == ember.float32
    want = TF.layer_norm(torch.tensor(N(x.float())), [64]).numpy()
    np.testing.assert_allclose(N(out.float()), want, atol=0.05)


@pytest.mark.parametrize(
    "shape,normalized,weight,message",
    [
        ((2, 3), [3], (4,), "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and "
                            "normalized_shape = [3]"),
        ((2, 3), [4], None, "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"),
        ((2, 3), [], None, "Expected normalized_shape to be at least 1-dimensional"),
    ],
)
def test_layer_norm_errors_match_torch(shape, normalized, weight, message):
    for lib in (torch, ember):
        w = None if weight is None else lib.randn(*weight)
        with pytest.raises(RuntimeError, match=re.escape(message)):
            lib.nn.functional.layer_norm(lib.randn(*shape), normalized, w)


# ---- softmax kernels ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_backward_data_matches_torch(dtype, dim):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 70, 3)).astype(np.float32)
    g = rng.standard_normal((5, 70, 3)).astype(np.float32)
    te = lambda a: ember.tensor(a).to(getattr(ember, dtype))  # noqa: E731
    tt = lambda a: torch.tensor(a).to(getattr(torch, dtype))  # noqa: E731
    tol = 1e-2 if dtype == "bfloat16" else 1e-5
    for log in (False, True):
        fwd_e, fwd_t = (ember.log_softmax, torch.log_softmax) if log else (ember.softmax, torch.softmax)
        bwd_e = ember._log_softmax_backward_data if log else ember._softmax_backward_data
        bwd_t = torch._log_softmax_backward_data if log else torch._softmax_backward_data
        ye, yt = fwd_e(te(x), dim), fwd_t(tt(x), dim)
        got = bwd_e(te(g), ye, dim, getattr(ember, dtype))
        want = bwd_t(tt(g), yt, dim, getattr(torch, dtype))
        np.testing.assert_allclose(N(got.float()), want.float().numpy(), rtol=tol, atol=tol)


def test_safe_softmax_zeroes_fully_masked_rows_like_torch():
    x = np.array([[-np.inf] * 3, [1.0, 2.0, 3.0], [-np.inf, 0.0, -np.inf]], dtype=np.float32)
    got = ember._safe_softmax(ember.tensor(x), -1)
    np.testing.assert_allclose(N(got), torch._safe_softmax(torch.tensor(x), -1).numpy(), rtol=1e-6)
    assert np.isnan(N(ember.softmax(ember.tensor(x), -1))[0]).all()  # plain softmax: NaN, as torch


def test_safe_softmax_gradient_and_double_backward():
    x = ember.randn(3, 5, dtype=ember.float64, requires_grad=True)
    mask = ember.tensor([[False] * 5, [True] * 5, [False, True, False, True, False]])
    f = lambda x: ember._safe_softmax(x.masked_fill(mask, float("-inf")), 1)  # noqa: E731
    assert gradcheck(f, (x,))
    assert ember.autograd.gradgradcheck(f, (x,))
    f(x).sum().backward()
    assert (N(x.grad)[1] == 0).all()


# ---- nll_loss kernels ----------------------------------------------------------------


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("shape", [(6, 5), (5,)])  # aten's nll_loss_forward takes 1-D or 2-D
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_forward_backward_match_torch(reduction, shape, weighted):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    classes = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    target = rng.integers(0, classes, tshape)
    if target.size > 1:
        target.flat[1] = -100  # ignored
    w = rng.random(classes) + 0.5 if weighted else None
    we, wt = (ember.tensor(w), torch.tensor(w)) if weighted else (None, None)
    out_e, tw_e = ember.nll_loss_forward(ember.tensor(x), ember.tensor(target), we, reduction, -100)
    out_t, tw_t = torch.ops.aten.nll_loss_forward(torch.tensor(x), torch.tensor(target), wt, reduction, -100)
    np.testing.assert_allclose(N(out_e), out_t.numpy(), rtol=1e-12)
    np.testing.assert_allclose(N(tw_e), tw_t.numpy(), rtol=1e-12)
    g = rng.standard_normal(out_t.shape)
    gi_e = ember.nll_loss_backward(ember.tensor(g), ember.tensor(x), ember.tensor(target), we, reduction, -100, tw_e)
    gi_t = torch.ops.aten.nll_loss_backward(torch.tensor(g), torch.tensor(x), torch.tensor(target), wt, reduction,
                                            -100, tw_t)
    np.testing.assert_allclose(N(gi_e), gi_t.numpy(), rtol=1e-12)


def test_cross_entropy_double_backward():
    x = ember.randn(4, 5, dtype=ember.float64, requires_grad=True)
    target = ember.tensor([1, 0, 4, 2])
    w = ember.rand(5, dtype=ember.float64) + 0.5
    f = lambda x: F.cross_entropy(x, target, weight=w)  # noqa: E731
    assert gradcheck(f, (x,))
    assert ember.autograd.gradgradcheck(f, (x,))


def test_nll_loss_target_out_of_bounds():
    with pytest.raises(IndexError, match=re.escape("Target out of bounds: must be in [0, 3)")):
        F.nll_loss(ember.randn(2, 3), ember.tensor([0, 3]))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_spatial_matches_torch(reduction):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 5, 2, 4))
    target = rng.integers(0, 5, (3, 2, 4))
    target[0, 1, 2] = -100
    w = rng.random(5) + 0.5
    xe = ember.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    le = F.nll_loss(xe, ember.tensor(target), ember.tensor(w), reduction=reduction)
    lt = TF.nll_loss(xt, torch.tensor(target), torch.tensor(w), reduction=reduction)
    np.testing.assert_allclose(N(le.detach()), lt.detach().numpy(), rtol=1e-12)
    le.sum().backward()
    lt.sum().backward()
    np.testing.assert_allclose(N(xe.grad), xt.grad.numpy(), rtol=1e-12)


# ---- fused Adam step ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("decoupled,maximize,weight_decay", [(False, False, 0.0), (False, True, 0.1), (True, False, 0.1)])
def test_adam_step_matches_the_operator_by_operator_update(dtype, decoupled, maximize, weight_decay):
    rng = np.random.default_rng(4)
    p, g, m, v = (rng.standard_normal((33, 7)).astype(dtype) for _ in range(4))
    v = np.abs(v)
    lr, b1, b2, eps, step = 1e-2, 0.9, 0.99, 1e-8, 3.0
    pe, me, ve = ember.tensor(p), ember.tensor(m), ember.tensor(v)
    ember._adam_step_(pe, ember.tensor(g), me, ve, step, lr, b1, b2, weight_decay, eps, maximize, decoupled)
    gg = -g if maximize else g
    if decoupled:
        p = p * (1 - lr * weight_decay)
    else:
        gg = gg + weight_decay * p
    m = m + (1 - b1) * (gg - m)
    v = v * b2 + (1 - b2) * gg * gg
    p = p - lr / (1 - b1**step) * m / (np.sqrt(v) / np.sqrt(1 - b2**step) + eps)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for got, want in ((pe, p), (me, m), (ve, v)):
        np.testing.assert_allclose(N(got), want, rtol=tol, atol=tol)
    assert pe._version == me._version == ve._version == 1


def test_adam_step_rejects_mismatched_state():
    p = ember.zeros(4)
    with pytest.raises(RuntimeError, match=re.escape("exp_avg must be a contiguous Float tensor of size [4], got Float of size [5]")):
        ember._adam_step_(p, ember.zeros(4), ember.zeros(5), ember.zeros(4), 1.0, 0.1, 0.9, 0.99, 0.0, 1e-8, False,
                          False)


# ---- copy kernels ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(37, 53), (2, 300), (300, 2), (64, 64)])
def test_transposed_and_broadcast_copies(dtype, shape):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shape) * 10
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dtype)
    x = ember.tensor(a)
    np.testing.assert_array_equal(N(x.t().contiguous()), a.T)
    np.testing.assert_array_equal(N(x[:, :1].expand(*shape).contiguous()), np.broadcast_to(a[:, :1], shape))
    if dtype.startswith("complex"):
        np.testing.assert_array_equal(N(x.conj().t().contiguous().resolve_conj()), a.conj().T)


def test_gelu_keeps_relative_accuracy_in_the_negative_tail():
    # gelu(x) = x Phi(x); for x << 0, Phi(x) is tiny and must stay accurate relatively.
    xs = np.linspace(-9, 6, 3001).astype(np.float32)
    ref = np.array([x * 0.5 * math.erfc(-x / math.sqrt(2)) for x in xs.astype(np.float64)])
    got = N(F.gelu(ember.tensor(xs))).astype(np.float64)
    nonzero = ref != 0
    np.testing.assert_allclose(got[nonzero], ref[nonzero], rtol=1e-5)  # z * z rounds in float
    grad = N(ember.gelu_backward(ember.ones(len(xs)), ember.tensor(xs))).astype(np.float64)
    ref_grad = [0.5 * math.erfc(-x / math.sqrt(2)) + x * math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
                for x in xs.astype(np.float64)]
    np.testing.assert_allclose(grad, ref_grad, atol=3e-7)


def test_import_ember_does_not_load_numpy():
    # NumPy's own BLAS threads would otherwise start beside Ember's pool.
    import os
    import subprocess
    import sys

    code = "import sys, ember; assert 'numpy' not in sys.modules, 'numpy was imported'"
    package_root = os.path.dirname(os.path.dirname(ember.__file__))
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, PYTHONPATH=package_root))


def test_large_blocks_are_reused_with_correct_contents():
    # Freed large buffers are cached and handed out again: results must not see old data.
    for i in range(5):
        z = ember.zeros(1 << 20)
        assert float(z.abs().sum()) == 0.0
        f = ember.full((1 << 20,), float(i))
        assert float(f.sum()) == float(i) * (1 << 20)
        del z, f


# ---- batch_norm kernels ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (6, 4), (2, 3, 7)])
@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_forward_backward_match_torch(dtype, shape, training):
    rng = np.random.default_rng(6)
    c = shape[1]
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
    w, b = rng.standard_normal(c).astype(dtype), rng.standard_normal(c).astype(dtype)
    rm, rv = rng.standard_normal(c).astype(dtype), (rng.random(c) + 0.5).astype(dtype)
    stats_e = (None, None) if training else (ember.tensor(rm), ember.tensor(rv))
    stats_t = (None, None) if training else (torch.tensor(rm), torch.tensor(rv))
    got = ember.native_batch_norm(ember.tensor(x), ember.tensor(w), ember.tensor(b), *stats_e, training, 0.1, 1e-5)
    want = torch.ops.aten.native_batch_norm(torch.tensor(x), torch.tensor(w), torch.tensor(b), *stats_t, training,
                                            0.1, 1e-5)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(N(got[0]), want[0].numpy(), rtol=tol, atol=tol)
    if training:
        np.testing.assert_allclose(N(got[1]), want[1].numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(N(got[2]), want[2].numpy(), rtol=tol, atol=tol)
    dy = rng.standard_normal(shape).astype(dtype)
    got_b = ember.native_batch_norm_backward(ember.tensor(dy), ember.tensor(x), ember.tensor(w), *stats_e, got[1],
                                             got[2], training, 1e-5, [True, True, True])
    want_b = torch.ops.aten.native_batch_norm_backward(torch.tensor(dy), torch.tensor(x), torch.tensor(w), *stats_t,
                                                       want[1], want[2], training, 1e-5, [True, True, True])
    for g, t in zip(got_b, want_b):
        np.testing.assert_allclose(N(g), t.numpy(), rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_double_backward(training):
    x = ember.randn(4, 3, 2, dtype=ember.float64, requires_grad=True)
    w = ember.randn(3, dtype=ember.float64, requires_grad=True)
    b = ember.randn(3, dtype=ember.float64, requires_grad=True)
    rm, rv = ember.randn(3, dtype=ember.float64), ember.rand(3, dtype=ember.float64) + 0.5
    f = lambda x, w, b: F.batch_norm(x, rm.clone(), rv.clone(), w, b, training=training)  # noqa: E731
    assert gradcheck(f, (x, w, b))
    assert ember.autograd.gradgradcheck(f, (x, w, b))


def test_batch_norm_backward_after_running_stats_update():
    # The running statistics change during forward; backward must not trip the version check on them.
    bn = ember.nn.BatchNorm2d(3)
    x = ember.randn(4, 3, 5, 5, requires_grad=True)
    bn(x).sum().backward()
    bn(x).sum().backward()
    assert x.grad is not None and bn.weight.grad is not None
    assert int(bn.num_batches_tracked) == 2
