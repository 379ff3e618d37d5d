"""Random ops against torch (CPU, used only as an oracle): randperm,
bernoulli, multinomial and dropout: ranges, frequencies, seeding, errors.
"""

import re

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

from torch_oracle import N  # noqa: E402


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
