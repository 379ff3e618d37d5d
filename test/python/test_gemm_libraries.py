"""Float GEMMs go to OpenBLAS or oneDNN by size (aten/native/cpu/Blas.cpp),
and addmm with a bias row to one oneDNN matmul: products on both sides of the
switch, every transpose, strided operands, alpha/beta and both thread counts
give NumPy's float64 result."""

import numpy as np
import pytest

import ember

# Small cubes stay on OpenBLAS; from about 100^3 (32^3 without AVX-512) they go to oneDNN.
SHAPES = [(16, 16, 16), (64, 64, 64), (128, 128, 128), (8, 512, 512), (512, 8, 512), (300, 150, 2000),
          (1024, 96, 32), (1, 700, 3000)]


def _operand(rng, rows, cols, transposed, strided):
    """A [rows, cols] float32 matrix laid out as asked: transposed storage and/or a leading dimension wider than
    the matrix (a slice of a bigger one)."""
    shape = (cols, rows) if transposed else (rows, cols)
    big = rng.standard_normal((shape[0], shape[1] + (5 if strided else 0))).astype(np.float32)
    t = ember.from_numpy(big)[:, :shape[1]]
    return (t.t() if transposed else t), (big[:, :shape[1]].T if transposed else big[:, :shape[1]])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_mm_matches_numpy_on_both_libraries(m, n, k, threads):
    rng = np.random.default_rng(m * 7 + n * 3 + k)
    before = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        for ta, tb, strided in [(False, False, False), (True, False, True), (False, True, False), (True, True, True)]:
            a, an = _operand(rng, m, k, ta, strided)
            b, bn = _operand(rng, k, n, tb, strided)
            expected = an.astype(np.float64) @ bn.astype(np.float64)
            np.testing.assert_allclose((a @ b).numpy(), expected, rtol=1e-4, atol=2e-4 * np.sqrt(k))
    finally:
        ember.set_num_threads(before)


@pytest.mark.parametrize("m,n,k", [(32, 32, 32), (256, 256, 256)])
def test_addmm_alpha_beta_and_beta_zero_ignores_nan(m, n, k):
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n), (m, n)))
    got = ember.addmm(ember.from_numpy(c), ember.from_numpy(a), ember.from_numpy(b), beta=0.5, alpha=-2.0)
    expected = 0.5 * c.astype(np.float64) - 2.0 * (a.astype(np.float64) @ b)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-4, atol=1e-3)
    # beta = 0: C's old values are never read, as in BLAS (NaN stays out).
    out = ember.full((m, n), float("nan"))
    ember.addmm(ember.full((m, n), float("nan")), ember.from_numpy(a), ember.from_numpy(b), beta=0, out=out)
    assert not ember.isnan(out).any().item()
    np.testing.assert_allclose(out.numpy(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n,k", [(2048, 256, 64), (300, 150, 2000), (16, 16, 16), (1, 700, 3000)])
def test_addmm_with_a_bias_row_matches_numpy(m, n, k, threads):
    """A float32 bias row with alpha = beta = 1 (linear's addmm) is fused into one oneDNN matmul on large
    products; every operand layout and both bias shapes give the same sums."""
    rng = np.random.default_rng(m + n + k)
    before = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        for ta, tb, strided, bias_shape in [(False, True, False, (n,)), (True, False, True, (1, n)),
                                            (False, False, True, (n,)), (True, True, False, (1, n))]:
            a, an = _operand(rng, m, k, ta, strided)
            b, bn = _operand(rng, k, n, tb, strided)
            bias = rng.standard_normal(bias_shape).astype(np.float32)
            expected = bias.astype(np.float64) + an.astype(np.float64) @ bn.astype(np.float64)
            got = ember.addmm(ember.from_numpy(bias), a, b)
            np.testing.assert_allclose(got.numpy(), expected, rtol=1e-4, atol=2e-4 * np.sqrt(k))
            out = ember.full((m, n), float("nan"))
            ember.addmm(ember.from_numpy(bias), a, b, out=out)
            np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=2e-4 * np.sqrt(k))
    finally:
        ember.set_num_threads(before)


def test_linear_with_bias_matches_numpy_and_its_gradients_flow():
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((512, 64), (256, 64), (256,)))
    X, W, B = (ember.tensor(v, requires_grad=True) for v in (x, w, b))
    y = ember.nn.functional.linear(X, W, B)
    np.testing.assert_allclose(y.detach().numpy(), x.astype(np.float64) @ w.T + b, rtol=1e-4, atol=1e-3)
    y.sum().backward()
    np.testing.assert_allclose(B.grad.numpy(), np.full(256, 512.0), rtol=1e-6)
    np.testing.assert_allclose(X.grad.numpy(), np.tile(w.astype(np.float64).sum(0), (512, 1)), rtol=1e-4, atol=1e-3)


def test_addmm_bias_row_inside_out_is_read_before_it_is_overwritten():
    """out= whose first row is the bias: the fused path must not read the bias while it writes out (torch gives
    bias + a @ b in every row)."""
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((300, 200)).astype(np.float32), rng.standard_normal((200, 256)).astype(np.float32)
    x = ember.zeros(300, 256)
    x[0] = ember.arange(256).float()
    bias = x[0].clone().numpy().astype(np.float64)
    ember.addmm(x[0], ember.from_numpy(a), ember.from_numpy(b), out=x)
    np.testing.assert_allclose(x.numpy(), bias + a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)
