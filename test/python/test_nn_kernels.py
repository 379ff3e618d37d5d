"""Neural-network kernels against torch (CPU, used only as an oracle):
embedding, batch_norm, layer_norm and the softmax kernels, their gradients
and errors. Values travel torch -> NumPy -> ember.
"""

import re

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

from torch_oracle import E, N, assert_close, rand  # noqa: E402


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
    with pytest.raises(IndexError, match=re.escape("is out of bounds: must be in [0, 3)")):
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


@pytest.mark.parametrize("geometry", [
    dict(stride=1, padding=1, dilation=1, groups=1),
    dict(stride=2, padding=1, dilation=1, groups=1),
    dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2),
    dict(stride=3, padding=2, dilation=1, groups=4),
])
def test_conv2d_backward_kernel_matches_its_composite_and_torch(geometry):
    """float32 runs oneDNN's backward primitives, float64 the composite of forward convolutions."""
    g = geometry["groups"]
    x, w = ember.randn(3, 4, 9, 8), ember.randn(8, 4 // g, 3, 3)
    y = ember.conv2d(x, w, None, geometry["stride"], geometry["padding"], geometry["dilation"], g)
    grad = ember.randn(*y.shape)
    args = [list(geometry[k]) if isinstance(geometry[k], tuple) else [geometry[k]] * 2
            for k in ("stride", "padding", "dilation")]
    fast = ember._conv2d_backward(grad, x, w, *args, g, [True, True, True])
    composite = ember._conv2d_backward(grad.double(), x.double(), w.double(), *args, g, [True, True, True])
    expected = torch.ops.aten.convolution_backward(
        torch.from_numpy(grad.numpy()), torch.from_numpy(x.numpy()), torch.from_numpy(w.numpy()), [8], *args,
        False, [0, 0], g, [True, True, True])
    for mine, slow, theirs in zip(fast, composite, expected):
        assert mine.dtype == ember.float32 and mine.is_contiguous()
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(slow.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-4)


def test_conv2d_backward_output_mask_and_bad_shapes():
    x, w = ember.randn(2, 3, 5, 5), ember.randn(4, 3, 3, 3)
    dx, dw, db = ember._conv2d_backward(ember.ones(2, 4, 3, 3), x, w, [1, 1], [0, 0], [1, 1], 1, [False, True, False])
    assert dx is None and db is None and dw.shape == (4, 3, 3, 3)
    with pytest.raises(RuntimeError, match=r"grad_output has shape \[2, 4, 5, 5\], but the convolution's output "
                                           r"has shape \[2, 4, 3, 3\]"):
        ember._conv2d_backward(ember.ones(2, 4, 5, 5), x, w, [1, 1], [0, 0], [1, 1], 1, [True, True, True])
    with pytest.raises(RuntimeError, match="does not fit an input of 3 channels"):
        ember._conv2d_backward(ember.ones(2, 4, 3, 3), x, ember.randn(4, 2, 3, 3), [1, 1], [0, 0], [1, 1], 1,
                               [True, True, True])


def test_conv2d_double_backward():
    x = ember.randn(2, 3, 6, 5, dtype=ember.float64, requires_grad=True)
    w = ember.randn(4, 3, 3, 2, dtype=ember.float64, requires_grad=True)
    f = lambda x, w: F.conv2d(x, w, stride=2, padding=1)  # noqa: E731
    assert ember.autograd.gradgradcheck(f, (x, w))
    # float32 too: the first backward under create_graph is the differentiable composite.
    x32, w32 = x.detach().float().requires_grad_(), w.detach().float().requires_grad_()
    (gx,) = ember.autograd.grad(F.conv2d(x32, w32).square().sum(), x32, create_graph=True)
    gx.sum().backward()
    assert w32.grad is not None and w32.grad.shape == w32.shape


# cross_entropy with index targets runs the fused rows kernel
# (_cross_entropy_rows); its value and gradient against torch's
# log_softmax + nll_loss, over shapes, reductions, ignored rows and dtypes.
@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (64, 65), (5, 1000)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_fused_rows_match_torch(shape, reduction):
    rng = np.random.default_rng(shape[1])
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    t = rng.integers(0, shape[1], shape[0])
    t[::3] = -100
    results = []
    for lib in (ember, torch):
        xi = lib.from_numpy(x.copy()).requires_grad_()
        loss = lib.nn.functional.cross_entropy(xi, lib.from_numpy(t.copy()), reduction=reduction)
        (loss.sum() if reduction == "none" else loss).backward()
        results.append((loss.detach().numpy(), xi.grad.numpy()))
    (mine_loss, mine_grad), (theirs_loss, theirs_grad) = results
    np.testing.assert_allclose(mine_loss, theirs_loss, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(mine_grad, theirs_grad, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_cross_entropy_fused_rows_other_dtypes(dtype):
    x = np.random.default_rng(1).standard_normal((6, 9))
    t = np.array([0, 8, 3, 3, 1, 5])
    results = []
    for lib in (ember, torch):
        xi = lib.from_numpy(x.copy()).to(getattr(lib, dtype)).requires_grad_()
        loss = lib.nn.functional.cross_entropy(xi, lib.from_numpy(t.copy()))
        loss.backward()
        assert loss.dtype == getattr(lib, dtype) and xi.grad.dtype == getattr(lib, dtype)
        results.append((float(loss.detach()), xi.grad.double().numpy()))
    tol = 1e-12 if dtype == "float64" else 2e-2
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=tol)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=tol, atol=tol)


def test_cross_entropy_fused_rows_edges():
    # Infinite logits give what log_softmax + nll_loss give; every row ignored
    # gives a NaN mean; a bad target raises before anything is computed.
    x = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf], [np.inf, 0.0, 0.0]], dtype=np.float32)
    t = np.array([0, 1, 2])
    for reduction in ("none", "sum"):
        mine = F.cross_entropy(ember.from_numpy(x), ember.from_numpy(t), reduction=reduction).numpy()
        theirs = torch.nn.functional.cross_entropy(torch.from_numpy(x), torch.from_numpy(t), reduction=reduction)
        np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs.numpy()))
        np.testing.assert_allclose(mine[~np.isnan(mine)], theirs.numpy()[~np.isnan(mine)], rtol=1e-6)
    all_ignored = F.cross_entropy(ember.ones(2, 3), ember.tensor([-100, -100]))
    assert np.isnan(float(all_ignored))
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.cross_entropy(ember.ones(2, 3), ember.tensor([0, 3]))
    with pytest.raises(IndexError, match="Target -2 is out of bounds"):
        F.cross_entropy(ember.ones(2, 3), ember.tensor([-2, 0]))
    with pytest.raises(ValueError, match="Expected input batch_size"):
        F.cross_entropy(ember.ones(2, 3), ember.tensor([0, 1, 2]))
