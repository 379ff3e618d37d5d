"""Autocast: every op of the policy table that Ember has gives torch's output
dtype under CPU autocast (bfloat16 and float16, from float32, lower-precision
and mixed inputs); the cast cache, nesting, threads and the decorator; and a
model trained under autocast + GradScaler converges like float32."""

import threading

import numpy as np
import pytest

import ember
from ember import _C
from ember.amp import _python_ops

torch = pytest.importorskip("torch")


def _int(lib, values):
    return lib.tensor(values)


# op (a table name) -> function(lib, x) making the call, where x(shape) gives a
# floating input of the dtype under test and _int an index tensor.
def _pd(lib, x, n=3):
    """A well-conditioned matrix (positive-definite in its lower triangle)."""
    return lib.eye(n) * 4 + x(n, n) * 0.1


SAMPLES = {
    "linalg_cholesky": lambda lib, x: lib.linalg.cholesky(_pd(lib, x)),
    "linalg_cholesky_ex": lambda lib, x: lib.linalg.cholesky_ex(_pd(lib, x)),
    "cholesky": lambda lib, x: lib.cholesky(_pd(lib, x)),
    "cholesky_inverse": lambda lib, x: lib.cholesky_inverse(_pd(lib, x).tril()),
    "cholesky_solve": lambda lib, x: lib.cholesky_solve(x(3, 2), _pd(lib, x).tril()),
    "linalg_cond": lambda lib, x: lib.linalg.cond(_pd(lib, x)),
    "linalg_cond.p_str": lambda lib, x: lib.linalg.cond(_pd(lib, x), "fro"),
    "linalg_eig": lambda lib, x: lib.linalg.eig(x(3, 3)),
    "linalg_eigh": lambda lib, x: lib.linalg.eigh(x(3, 3)),
    "linalg_eigvals": lambda lib, x: lib.linalg.eigvals(x(3, 3)),
    "linalg_eigvalsh": lambda lib, x: lib.linalg.eigvalsh(x(3, 3)),
    "linalg_householder_product": lambda lib, x: lib.linalg.householder_product(x(4, 3), x(2)),
    "orgqr": lambda lib, x: lib.orgqr(x(4, 3), x(2)),
    "linalg_inv": lambda lib, x: lib.linalg.inv(_pd(lib, x)),
    "linalg_inv_ex": lambda lib, x: lib.linalg.inv_ex(_pd(lib, x)),
    "inverse": lambda lib, x: lib.inverse(_pd(lib, x)),
    "linalg_lstsq": lambda lib, x: lib.linalg.lstsq(x(4, 3), x(4, 2)),
    "linalg_matrix_rank": lambda lib, x: lib.linalg.matrix_rank(x(3, 3)),
    "linalg_matrix_rank.atol_rtol_float": lambda lib, x: lib.linalg.matrix_rank(x(3, 3), atol=0.1, rtol=0.0),
    "linalg_matrix_rank.atol_rtol_tensor": lambda lib, x: lib.linalg.matrix_rank(x(3, 3), atol=lib.tensor(0.1)),
    "linalg_matrix_rank.tol_tensor": lambda lib, x: lib.linalg.matrix_rank(x(3, 3), tol=lib.tensor(0.1)),
    "linalg_qr": lambda lib, x: lib.linalg.qr(x(4, 3)),
    "qr": lambda lib, x: lib.qr(x(4, 3)),
    "linalg_solve": lambda lib, x: lib.linalg.solve(_pd(lib, x), x(3, 2)),
    "linalg_svd": lambda lib, x: lib.linalg.svd(x(4, 3)),
    "svd": lambda lib, x: lib.svd(x(4, 3)),
    "linalg_svdvals": lambda lib, x: lib.linalg.svdvals(x(4, 3)),
    "linalg_tensorinv": lambda lib, x: lib.linalg.tensorinv(_pd(lib, x, 4).reshape(2, 2, 2, 2), ind=2),
    "linalg_tensorsolve": lambda lib, x: lib.linalg.tensorsolve(_pd(lib, x, 4).reshape(2, 2, 4), x(2, 2)),
    "linalg_vecdot": lambda lib, x: lib.linalg.vecdot(x(3), x(3)),
    "pinverse": lambda lib, x: lib.pinverse(x(4, 3)),
    "stft": lambda lib, x: lib.stft(x(64), 16, window=lib.hann_window(16), return_complex=True),
    "stft.center": lambda lib, x: lib.stft(x(64), 16, center=True, pad_mode="constant", return_complex=True),
    "lu_solve": lambda lib, x: lib.lu_solve(x(3, 2), *lib.linalg.lu_factor(_pd(lib, x))),
    "triangular_solve": lambda lib, x: lib.triangular_solve(x(3, 2), _pd(lib, x).triu()),
    "fft_fft": lambda lib, x: lib.fft.fft(x(8)),
    "fft_ifft": lambda lib, x: lib.fft.ifft(x(8)),
    "fft_fft2": lambda lib, x: lib.fft.fft2(x(4, 4)),
    "fft_ifft2": lambda lib, x: lib.fft.ifft2(x(4, 4)),
    "fft_fftn": lambda lib, x: lib.fft.fftn(x(2, 4)),
    "fft_ifftn": lambda lib, x: lib.fft.ifftn(x(2, 4)),
    "fft_rfft": lambda lib, x: lib.fft.rfft(x(8)),
    "fft_irfft": lambda lib, x: lib.fft.irfft(x(5)),
    "fft_rfft2": lambda lib, x: lib.fft.rfft2(x(4, 4)),
    "fft_irfft2": lambda lib, x: lib.fft.irfft2(x(4, 3)),
    "fft_rfftn": lambda lib, x: lib.fft.rfftn(x(2, 4)),
    "fft_irfftn": lambda lib, x: lib.fft.irfftn(x(2, 3)),
    "fft_hfft": lambda lib, x: lib.fft.hfft(x(5)),
    "fft_ihfft": lambda lib, x: lib.fft.ihfft(x(8)),
    "polar": lambda lib, x: lib.polar(x(3), x(3)),
    "view_as_complex": lambda lib, x: lib.view_as_complex(x(3, 2)),
    "mm": lambda lib, x: lib.mm(x(3, 4), x(4, 2)),
    "bmm": lambda lib, x: lib.bmm(x(2, 3, 4), x(2, 4, 2)),
    "matmul": lambda lib, x: lib.matmul(x(3, 4), x(4)),
    "addmm": lambda lib, x: lib.addmm(x(2), x(3, 4), x(4, 2)),
    "addbmm": lambda lib, x: lib.addbmm(x(3, 2), x(2, 3, 4), x(2, 4, 2)),
    "baddbmm": lambda lib, x: lib.baddbmm(x(2, 3, 2), x(2, 3, 4), x(2, 4, 2)),
    "linear": lambda lib, x: lib.nn.functional.linear(x(3, 4), x(2, 4), x(2)),
    "prelu": lambda lib, x: lib.nn.functional.prelu(x(2, 3, 4), x(3)),
    "conv1d": lambda lib, x: lib.nn.functional.conv1d(x(1, 2, 8), x(3, 2, 3), x(3)),
    "conv1d.padding": lambda lib, x: lib.nn.functional.conv1d(x(1, 2, 8), x(3, 2, 3), padding="same"),
    "conv2d": lambda lib, x: lib.nn.functional.conv2d(x(1, 2, 6, 6), x(3, 2, 3, 3), x(3)),
    "conv2d.padding": lambda lib, x: lib.nn.functional.conv2d(x(1, 2, 6, 6), x(3, 2, 3, 3), padding="same"),
    "conv3d": lambda lib, x: lib.nn.functional.conv3d(x(1, 2, 4, 4, 4), x(3, 2, 3, 3, 3)),
    "conv3d.padding": lambda lib, x: lib.nn.functional.conv3d(x(1, 2, 4, 4, 4), x(3, 2, 3, 3, 3), padding="same"),
    "conv_transpose1d": lambda lib, x: lib.nn.functional.conv_transpose1d(x(1, 2, 5), x(2, 3, 3)),
    "conv_transpose2d.input": lambda lib, x: lib.nn.functional.conv_transpose2d(x(1, 2, 5, 5), x(2, 3, 3, 3)),
    "conv_transpose3d.input": lambda lib, x: lib.nn.functional.conv_transpose3d(x(1, 2, 3, 3, 3), x(2, 3, 2, 2, 2)),
    "scaled_dot_product_attention": lambda lib, x: lib.nn.functional.scaled_dot_product_attention(
        x(1, 2, 3, 4), x(1, 2, 3, 4), x(1, 2, 3, 4)),
    "prod": lambda lib, x: lib.prod(x(3, 4)),
    "prod.dim_int": lambda lib, x: lib.prod(x(3, 4), 1),
    "cdist": lambda lib, x: lib.cdist(x(3, 4), x(2, 4)),
    "trace": lambda lib, x: lib.trace(x(3, 3)),
    "quantile": lambda lib, x: lib.quantile(x(8).float(), _float(lib, [0.25, 0.5]).to(x(1).dtype)),
    "quantile.scalar": lambda lib, x: lib.quantile(x(8), 0.5),
    "nanquantile": lambda lib, x: lib.nanquantile(x(8).float(), _float(lib, [0.5]).to(x(1).dtype)),
    "nanquantile.scalar": lambda lib, x: lib.nanquantile(x(8), 0.5),
    "cross_entropy_loss": lambda lib, x: lib.nn.functional.cross_entropy(x(4, 5), _int(lib, [0, 1, 2, 3])),
    "nll_loss": lambda lib, x: lib.nn.functional.nll_loss(x(4, 5), _int(lib, [0, 1, 2, 3])),
    "mse_loss": lambda lib, x: lib.nn.functional.mse_loss(x(3, 4), x(3, 4)),
    "l1_loss": lambda lib, x: lib.nn.functional.l1_loss(x(3, 4), x(3, 4)),
    "smooth_l1_loss": lambda lib, x: lib.nn.functional.smooth_l1_loss(x(3, 4), x(3, 4)),
    "huber_loss": lambda lib, x: lib.nn.functional.huber_loss(x(3, 4), x(3, 4)),
    "kl_div": lambda lib, x: lib.nn.functional.kl_div(x(3, 4), x(3, 4), reduction="batchmean"),
    "poisson_nll_loss": lambda lib, x: lib.nn.functional.poisson_nll_loss(x(3, 4), x(3, 4)),
    "cosine_embedding_loss": lambda lib, x: lib.nn.functional.cosine_embedding_loss(
        x(3, 4), x(3, 4), _int(lib, [1, -1, 1])),
    "hinge_embedding_loss": lambda lib, x: lib.nn.functional.hinge_embedding_loss(x(3, 4), x(3, 4).sign()),
    "margin_ranking_loss": lambda lib, x: lib.nn.functional.margin_ranking_loss(x(4), x(4), x(4).sign()),
    "soft_margin_loss": lambda lib, x: lib.nn.functional.soft_margin_loss(x(3, 4), x(3, 4).sign()),
    "triplet_margin_loss": lambda lib, x: lib.nn.functional.triplet_margin_loss(x(3, 4), x(3, 4), x(3, 4)),
    "multi_margin_loss": lambda lib, x: lib.nn.functional.multi_margin_loss(x(3, 4), _int(lib, [0, 1, 3])),
    "multilabel_margin_loss": lambda lib, x: lib.nn.functional.multilabel_margin_loss(
        x(2, 4), _int(lib, [[0, 1, -1, 0], [2, -1, 0, 0]])),
    "binary_cross_entropy_with_logits": lambda lib, x: lib.nn.functional.binary_cross_entropy_with_logits(
        x(3, 4), x(3, 4).sigmoid()),
    "binary_cross_entropy": lambda lib, x: lib.nn.functional.binary_cross_entropy(x(3, 4).sigmoid(),
                                                                                  x(3, 4).sigmoid()),
    "ctc_loss.IntList": lambda lib, x: lib.nn.functional.ctc_loss(
        x(6, 1, 4).log_softmax(2), _int(lib, [[1, 2]]), [6], [2]),
    "ctc_loss.Tensor": lambda lib, x: lib.nn.functional.ctc_loss(
        x(6, 1, 4).log_softmax(2), _int(lib, [[1, 2]]), _int(lib, [6]), _int(lib, [2])),
    "avg_pool3d": lambda lib, x: lib.nn.functional.avg_pool3d(x(1, 1, 4, 4, 4), 2),
    "max_pool3d": lambda lib, x: lib.nn.functional.max_pool3d(x(1, 1, 4, 4, 4), 2),
    "adaptive_avg_pool3d": lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x(1, 1, 4, 4, 4), 2),
    "adaptive_max_pool3d": lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x(1, 1, 4, 4, 4), 2),
    "fractional_max_pool2d": lambda lib, x: lib.nn.functional.fractional_max_pool2d(
        x(1, 1, 6, 6), 2, output_size=3, _random_samples=lib.full((1, 1, 2), 0.5).to(x(1).dtype)),
    "fractional_max_pool3d": lambda lib, x: lib.nn.functional.fractional_max_pool3d(
        x(1, 1, 6, 6, 6), 2, output_size=3, _random_samples=lib.full((1, 1, 3), 0.5).to(x(1).dtype)),
    "max_unpool2d": lambda lib, x: lib.nn.functional.max_unpool2d(x(1, 1, 2, 2), _int(lib, [[[[0, 3], [8, 15]]]]),
                                                                  2),
    "max_unpool3d": lambda lib, x: lib.nn.functional.max_unpool3d(x(1, 1, 1, 1, 1), _int(lib, [[[[[5]]]]]), 2),
    "reflection_pad1d": lambda lib, x: lib.nn.functional.pad(x(1, 2, 5), (1, 2), mode="reflect"),
    "reflection_pad2d": lambda lib, x: lib.nn.functional.pad(x(1, 2, 5, 5), (1, 2, 1, 1), mode="reflect"),
    "replication_pad1d": lambda lib, x: lib.nn.functional.pad(x(1, 2, 5), (1, 2), mode="replicate"),
    "replication_pad2d": lambda lib, x: lib.nn.functional.pad(x(1, 2, 5, 5), (1, 2, 1, 1), mode="replicate"),
    "replication_pad3d": lambda lib, x: lib.nn.functional.pad(x(1, 1, 3, 3, 3), (1, 1, 1, 1, 1, 1),
                                                              mode="replicate"),
    "grid_sampler": lambda lib, x: lib.nn.functional.grid_sample(x(1, 2, 4, 4), x(1, 3, 3, 2).tanh(),
                                                                 align_corners=False),
    "cat": lambda lib, x: lib.cat([x(2, 3), x(1, 3)]),
    "stack": lambda lib, x: lib.stack([x(2, 3), x(2, 3)]),
    "index_copy": lambda lib, x: x(4, 3).index_copy(0, _int(lib, [0, 2]), x(2, 3)),
}

# Ops outside the CPU policy: autocast leaves their dtypes alone.
UNTOUCHED = {
    "add": lambda lib, x: x(3) + x(3),
    "exp": lambda lib, x: lib.exp(x(3)),
    "sum": lambda lib, x: x(3, 4).sum(),
    "softmax": lambda lib, x: lib.softmax(x(3, 4), 1),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x(3, 4), (4,)),
    "group_norm": lambda lib, x: lib.nn.functional.group_norm(x(2, 4, 3), 2),
    "relu": lambda lib, x: lib.relu(x(3)),
    "interpolate": lambda lib, x: lib.nn.functional.interpolate(x(1, 1, 4, 4), scale_factor=2, mode="bilinear"),
    "mm_out": lambda lib, x: lib.mm(x(2, 2), x(2, 2), out=lib.empty(2, 2, dtype=x(1).dtype)),
}


def _float(lib, values):
    return lib.tensor(values)


def _maker(lib, dtype, seed):
    generator = np.random.default_rng(seed)

    def x(*shape):
        return lib.tensor(generator.uniform(0.1, 1.0, size=shape).astype(np.float32)).to(dtype)
    return x


def _dtypes(result):
    if isinstance(result, (tuple, list)):
        return tuple(str(r.dtype).split(".")[-1] for r in result if hasattr(r, "dtype"))
    return (str(result.dtype).split(".")[-1],)


def _run(lib, sample, input_dtype_name, autocast_dtype_name):
    x = _maker(lib, getattr(lib, input_dtype_name), seed=0)
    with lib.autocast("cpu", dtype=getattr(lib, autocast_dtype_name)):
        return _dtypes(sample(lib, x))


@pytest.mark.parametrize("autocast_dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("input_dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("op", sorted(SAMPLES) + sorted(UNTOUCHED))
def test_output_dtype_matches_torch(op, input_dtype, autocast_dtype):
    sample = SAMPLES.get(op) or UNTOUCHED[op]
    try:
        expected = _run(torch, sample, input_dtype, autocast_dtype)
    except RuntimeError as e:  # torch refuses to promote bfloat16 and float16 together ("prioritize")
        assert "prioritize" in str(e)
        expected = ("float32",)
    assert _run(ember, sample, input_dtype, autocast_dtype) == expected


@pytest.mark.parametrize("op", ["cat", "stack", "index_copy", "mm", "mse_loss", "addmm"])
def test_mixed_input_dtypes_match_torch(op):
    """Half the inputs float32, half bfloat16 (and float64 left alone)."""
    def mixed(lib):
        made = [0]

        def x(*shape):
            made[0] += 1
            dtype = lib.float32 if made[0] % 2 else lib.bfloat16
            return _maker(lib, dtype, seed=made[0])(*shape)
        with lib.autocast("cpu"):
            return _dtypes(SAMPLES[op](lib, x))
    assert mixed(ember) == mixed(torch)
    with ember.autocast("cpu"):
        assert ember.mm(ember.ones(2, 2, dtype=ember.float64), ember.ones(2, 2, dtype=ember.float64)).dtype == \
            ember.float64


def test_every_table_op_is_served_or_known_missing():
    """Each row names a dispatcher op or a Python function that takes its
    policy; the rest are ops Ember has not got at all yet (linalg, fft...)."""
    schemas = {str(s).split("(")[0].replace("aten::", "") for s in _C._schemas()}
    rows = _C._autocast_policy_table()
    served = schemas | _python_ops.python_ops
    served |= {op.split(".")[0] for op in served}
    # an overload another function of the same name serves (F.conv1d takes padding="same" too)
    unserved = sorted(op for op, _, _ in rows if op not in served and op.split(".")[0] not in served)
    for op in unserved:
        base = op.split(".")[0].lstrip("_")
        assert not hasattr(ember, base) and not hasattr(ember.nn.functional, base), op
    cpu_rows = [op for op, cpu, _ in rows if cpu != "none" and op not in unserved]
    # every CPU row Ember serves is checked against torch above
    assert sorted(set(cpu_rows) - set(SAMPLES)) == []


def test_policies_by_device():
    assert _C._autocast_policy("mm", "cpu") == "lower_precision_fp"
    assert _C._autocast_policy("exp", "cpu") == "none" and _C._autocast_policy("exp", "cuda") == "fp32"
    assert _C._autocast_policy("binary_cross_entropy", "cuda") == "banned"
    with pytest.raises(RuntimeError, match="binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast"):
        _C._autocast_check_not_banned("binary_cross_entropy", "cuda")
    _C._autocast_check_not_banned("binary_cross_entropy", "cpu")


def test_explicit_dtype_is_respected():
    with ember.autocast("cpu"):
        assert ember.prod(ember.ones(3, dtype=ember.bfloat16), dtype=ember.bfloat16).dtype == ember.bfloat16
        assert ember.prod(ember.ones(3, dtype=ember.bfloat16)).dtype == ember.float32


def test_cache_holds_weight_casts_for_the_outermost_region():
    weight = ember.randn(4, 4, requires_grad=True)
    x = ember.randn(2, 4)
    with ember.autocast("cpu"):
        first = ember.mm(x, weight)
        assert _C._autocast_cache_stats() == (1, 0)
        with ember.autocast("cpu"):  # nested: same cache
            ember.mm(x, weight)
        assert _C._autocast_cache_stats() == (1, 1)
        ember.mm(x, x.t())  # not a leaf that requires grad: never cached
        assert _C._autocast_cache_stats() == (1, 1)
    assert _C._autocast_cache_stats() == (0, 0)
    first.sum().backward()
    assert weight.grad.dtype == ember.float32 and weight.grad.shape == (4, 4)
    with ember.autocast("cpu", cache_enabled=False):
        ember.mm(x, weight)
        assert _C._autocast_cache_stats() == (0, 0)


def test_weight_grads_match_torch():
    rng = np.random.default_rng(1)
    w, b, x = (rng.standard_normal(s).astype(np.float32) for s in [(3, 5), (3,), (4, 5)])
    grads = []
    for lib in (ember, torch):
        weight, bias = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
        with lib.autocast("cpu"):
            y = lib.nn.functional.linear(lib.tensor(x), weight, bias)
            loss = lib.nn.functional.mse_loss(y, lib.zeros(4, 3))
        assert (y.dtype, loss.dtype) == (lib.bfloat16, lib.float32)
        loss.backward()
        grads.append((loss.item(), weight.grad.numpy(), bias.grad.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=2e-2)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=3e-2, atol=3e-2)
    np.testing.assert_allclose(grads[0][2], grads[1][2], rtol=3e-2, atol=3e-2)


def test_nesting_disabled_inside_and_restored():
    x = ember.ones(2, 2)
    with ember.autocast("cpu"):
        with ember.autocast("cpu", enabled=False):
            assert not ember.is_autocast_enabled("cpu")
            assert ember.mm(x, x).dtype == ember.float32
        with ember.autocast("cpu", dtype=ember.float16):
            assert ember.mm(x, x).dtype == ember.float16
        assert ember.mm(x, x).dtype == ember.bfloat16 and ember.get_autocast_dtype("cpu") == ember.bfloat16
    assert not ember.is_autocast_enabled("cpu") and ember.mm(x, x).dtype == ember.float32


def test_state_is_per_thread():
    seen = []
    with ember.autocast("cpu"):
        thread = threading.Thread(target=lambda: seen.append(
            (ember.is_autocast_enabled("cpu"), ember.mm(ember.ones(2, 2), ember.ones(2, 2)).dtype)))
        thread.start()
        thread.join()
    assert seen == [(False, ember.float32)]


def test_decorator_and_unsupported_dtype():
    @ember.autocast("cpu")
    def forward(a):
        return a @ a

    assert forward(ember.ones(2, 2)).dtype == ember.bfloat16
    assert not ember.is_autocast_enabled("cpu")
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtype of torch.bfloat16, torch.float16"):
        region = ember.autocast("cpu", dtype=ember.float64)
    with region:
        assert not ember.is_autocast_enabled("cpu")
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'meta'"):
        ember.autocast("meta")
    assert ember.cpu.amp.autocast()._enabled


def test_exceptions_leave_no_state_behind():
    with pytest.raises(ValueError):
        with ember.autocast("cpu"):
            ember.mm(ember.ones(2, 2, requires_grad=True), ember.ones(2, 2))
            raise ValueError
    assert not ember.is_autocast_enabled("cpu") and _C._autocast_cache_stats() == (0, 0)


def test_custom_fwd_casts_inputs():
    class Double(ember.autograd.Function):
        @staticmethod
        @ember.amp.custom_fwd(device_type="cpu", cast_inputs=ember.float32)
        def forward(ctx, a):
            ctx.inner_enabled = ember.is_autocast_enabled("cpu")
            return a @ a

        @staticmethod
        @ember.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            return grad

    with ember.autocast("cpu"):
        out = Double.apply(ember.ones(2, 2, dtype=ember.bfloat16))
    assert out.dtype == ember.float32


def _train(lib, use_autocast):
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((128, 8)).astype(np.float32))
    y = lib.tensor((rng.standard_normal((128, 8)) @ rng.standard_normal((8, 1)) > 0).reshape(-1).astype(np.int64))
    model = lib.nn.Sequential(lib.nn.Linear(8, 32), lib.nn.ReLU(), lib.nn.Linear(32, 2))
    optimizer = lib.optim.AdamW(model.parameters(), lr=1e-2)
    scaler = lib.amp.GradScaler("cpu", enabled=use_autocast)
    for _ in range(150):
        optimizer.zero_grad()
        with lib.autocast("cpu", enabled=use_autocast):
            loss = lib.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
    return loss.item()


def test_training_under_autocast_and_grad_scaler_converges_like_float32():
    mixed, full = _train(ember, True), _train(ember, False)
    assert mixed < 0.15 and full < 0.15
    assert abs(mixed - _train(torch, True)) < 0.05


def test_fused_unscale_and_scale_update_match_torch():
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal((33, 7)).astype(np.float32), rng.standard_normal(100).astype(np.float32),
              rng.standard_normal((5, 4)).astype(np.float32)]
    with_inf = arrays[1].copy()
    with_inf[17] = np.inf
    results = []
    for lib in (ember, torch):
        runs = []
        for second in (arrays[1], with_inf):
            grads = [lib.tensor(arrays[0]), lib.tensor(second).to(lib.bfloat16), lib.tensor(arrays[2]).t(),
                     lib.tensor(arrays[2]).double()]
            found, inv = lib.zeros(()), lib.full((), 0.25)
            versions = [g._version for g in grads]
            lib._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
            if lib is ember:  # torch leaves the versions as they were; Ember records the writes
                assert all(g._version > v for g, v in zip(grads, versions))
            runs.append([g.double().numpy() for g in grads] + [found.item()])
        scale, tracker = lib.full((), 65536.0), lib.zeros((), dtype=lib.int32)
        history = []
        for overflow in (0.0, 0.0, 0.0, 1.0, 0.0):
            lib._amp_update_scale_(scale, tracker, lib.full((), overflow), 2.0, 0.5, 2)
            history.append((scale.item(), tracker.item()))
        results.append((runs, history))
    (e_runs, e_history), (t_runs, t_history) = results
    assert e_history == t_history
    for e, t in zip(e_runs, t_runs):
        assert e[-1] == t[-1]
        for a, b in zip(e[:-1], t[:-1]):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    assert e_runs[0][-1] == 0.0 and e_runs[1][-1] == 1.0


@pytest.mark.parametrize("device,key", [("cpu", "AutocastCPU"), ("cuda", "AutocastCUDA")])
def test_table_names_the_ops_torch_autocasts(device, key):
    """The table's rows for a device are exactly the ops torch 2.13 registers
    an autocast kernel for (CPU's policies are checked op by op above)."""
    names = torch._C._dispatch_get_all_op_names()
    torch_ops = {n.replace("aten::", "") for n in names if torch._C._dispatch_has_kernel_for_dispatch_key(n, key)}
    column = 1 if device == "cpu" else 2
    ours = {row[0] for row in _C._autocast_policy_table() if row[column] != "none"}
    assert ours == torch_ops
