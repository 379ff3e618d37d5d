"""bfloat16 and float16 matrix products and convolutions (what autocast runs
them in) against torch: oneDNN's 16-bit kernels where the CPU has them, the
float32 path between two conversions where it has not (run here in a child
process with oneDNN held to AVX2)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

DTYPES = ["bfloat16", "float16"]


def _pair(array, dtype):
    return ember.tensor(array).to(getattr(ember, dtype)), torch.tensor(array).to(getattr(torch, dtype))


def _close(e, t, rtol):
    expected = t.float().detach().numpy()
    np.testing.assert_allclose(e.float().detach().numpy(), expected, rtol=rtol,
                               atol=rtol * max(1.0, float(np.abs(expected).max())))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("transpose_a,transpose_b", [(False, False), (True, False), (False, True)])
def test_mm_and_addmm(dtype, transpose_a, transpose_b):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((53, 37) if transpose_a else (37, 53)).astype(np.float32)
    b = rng.standard_normal((29, 53) if transpose_b else (53, 29)).astype(np.float32)
    bias = rng.standard_normal(29).astype(np.float32)
    (ea, ta), (eb, tb), (ebias, tbias) = _pair(a, dtype), _pair(b, dtype), _pair(bias, dtype)
    if transpose_a:
        ea, ta = ea.t(), ta.t()
    if transpose_b:
        eb, tb = eb.t(), tb.t()
    _close(ember.mm(ea, eb), torch.mm(ta, tb), 1e-2)
    _close(ember.addmm(ebias, ea, eb), torch.addmm(tbias, ta, tb), 1e-2)
    _close(ember.addmm(ebias, ea, eb, beta=0.5, alpha=2.0), torch.addmm(tbias, ta, tb, beta=0.5, alpha=2.0), 1e-2)
    full = rng.standard_normal((37, 29)).astype(np.float32)
    (efull, tfull) = _pair(full, dtype)
    _close(ember.addmm(efull, ea, eb, beta=-1.0), torch.addmm(tfull, ta, tb, beta=-1.0), 1e-2)
    _close(ember.nn.functional.linear(ea, eb.t(), ebias), torch.nn.functional.linear(ta, tb.t(), tbias), 1e-2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bmm_and_batched_matmul(dtype):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 9, 7)).astype(np.float32)
    b = rng.standard_normal((6, 7, 5)).astype(np.float32)
    (ea, ta), (eb, tb) = _pair(a, dtype), _pair(b, dtype)
    _close(ember.bmm(ea, eb), torch.bmm(ta, tb), 1e-2)
    _close(ember.bmm(ea.transpose(1, 2).contiguous().transpose(1, 2), eb), torch.bmm(ta, tb), 1e-2)
    _close(ember.bmm(ea, eb.transpose(1, 2).contiguous().transpose(1, 2)), torch.bmm(ta, tb), 1e-2)
    _close(ea[::2] @ eb[::2], ta[::2] @ tb[::2], 1e-2)  # batch strides beyond one matrix
    _close(ea @ eb[0], ta @ tb[0], 1e-2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 16, 10, 10, 32, 3, 1, 1, 1), (2, 8, 9, 9, 8, 3, 2, 1, 2),
                                   (1, 3, 12, 12, 16, 5, 1, 2, 1)])
def test_conv2d_forward_and_backward(dtype, shape):
    n, c, h, w, oc, k, stride, padding, groups = shape
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((n, c, h, w)), rng.standard_normal((oc, c // groups, k, k)) * 0.2,
              rng.standard_normal(oc)]
    results = []
    for lib in (ember, torch):
        x, weight, bias = (lib.tensor(a.astype(np.float32)).to(getattr(lib, dtype)).requires_grad_() for a in arrays)
        y = lib.nn.functional.conv2d(x, weight, bias, stride=stride, padding=padding, groups=groups)
        assert y.dtype == getattr(lib, dtype)
        (y.float() ** 2).sum().backward()
        results.append((y, x.grad, weight.grad, bias.grad))
    for e, t in zip(*results):
        assert e.dtype == ember.float32 or str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        _close(e, t, 2e-2)


def test_bias_of_another_dtype_is_refused_like_torch():
    x = ember.ones(1, 2, 5, 5, dtype=ember.bfloat16)
    weight = ember.ones(3, 2, 3, 3, dtype=ember.bfloat16)
    with pytest.raises(RuntimeError, match=r"Input type \(BFloat16\) and bias type \(Float\) should be the same"):
        ember.nn.functional.conv2d(x, weight, ember.ones(3))


def test_without_16_bit_kernels_the_results_are_the_same():
    script = """
import numpy as np, ember
rng = np.random.default_rng(0)
a, b, bias = rng.standard_normal((33, 20)), rng.standard_normal((20, 17)), rng.standard_normal(17)
x, w = rng.standard_normal((2, 4, 7, 7)), rng.standard_normal((6, 4, 3, 3))
def t(v, d):
    return ember.tensor(v.astype(np.float32)).to(d)
for d in (ember.bfloat16, ember.float16):
    xg, wg = t(x, d).requires_grad_(), t(w, d).requires_grad_()
    y = ember.nn.functional.conv2d(xg, wg, padding=1)
    (y.float() ** 2).sum().backward()
    for value in (ember.addmm(t(bias, d), t(a, d), t(b, d)), ember.bmm(t(a, d)[None], t(b, d)[None])[0], y,
                  xg.grad, wg.grad):
        print(d, value.dtype, repr(value.detach().float().numpy().round(6).tolist()))
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    outputs = []
    for isa in (None, "AVX2"):
        run_env = dict(env)
        if isa:
            run_env["ONEDNN_MAX_CPU_ISA"] = isa
        done = subprocess.run([sys.executable, "-c", script], env=run_env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append([line for line in done.stdout.splitlines()])
    for fast, slow in zip(*outputs):
        fast_values = np.array(eval(fast.split(" ", 2)[2]))
        slow_values = np.array(eval(slow.split(" ", 2)[2]))
        assert fast.split(" ", 2)[:2] == slow.split(" ", 2)[:2]
        np.testing.assert_allclose(fast_values, slow_values, rtol=2e-2, atol=2e-2 * np.abs(slow_values).max())


# ---- what autocast leaves in 16 bits: elementwise ops, softmax, norms, sums --------------


def _grads(lib, dtype, arrays, forward):
    tensors = [lib.tensor(a).to(getattr(lib, dtype)).requires_grad_() for a in arrays]
    out = forward(lib, *tensors)
    # A fixed weighting: a loss like sum(y^2) cancels in some gradients (layer
    # norm's), leaving only rounding noise to compare.
    weighting = np.cos(np.arange(max(out.numel(), 1))).reshape(tuple(out.shape)).astype(np.float32)
    (out.float() * lib.tensor(weighting)).sum().backward()
    return [out] + [t.grad for t in tensors]


ELEMENTWISE = {
    "exp": lambda lib, x: lib.exp(x),
    "tanh": lambda lib, x: lib.tanh(x),
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "erf": lambda lib, x: lib.erf(x),
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "gelu_tanh": lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"),
    "gelu_strided": lambda lib, x: lib.nn.functional.gelu(x.t()),
    "softmax": lambda lib, x: lib.softmax(x, -1),
    "log_softmax": lambda lib, x: lib.log_softmax(x, -1),
    "softmax_dim0": lambda lib, x: lib.softmax(x, 0),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, (x.shape[-1],)),
    "sum": lambda lib, x: x.sum(),
    "sum_dim0": lambda lib, x: x.sum(0),
    "sum_dim1": lambda lib, x: x.sum(1),
    "mean_strided": lambda lib, x: x[:, ::3].mean(1),
    "add_relu": lambda lib, x: lib.relu(x + x.t()),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(ELEMENTWISE))
def test_sixteen_bit_kernels_forward_and_backward(op, dtype):
    x = np.random.default_rng(3).standard_normal((67, 67)).astype(np.float32) * 2
    for e, t in zip(_grads(ember, dtype, [x], ELEMENTWISE[op]), _grads(torch, dtype, [x], ELEMENTWISE[op])):
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        _close(e, t, 2e-2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3, 5, 7), (8, 16, 33, 33), (2, 4, 1000)])
def test_batch_norm_of_16_bit_input_with_float32_parameters(dtype, shape):
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape).astype(np.float32) * 2 + 1
    w, b = rng.standard_normal(shape[1]).astype(np.float32), rng.standard_normal(shape[1]).astype(np.float32)
    results = []
    for lib in (ember, torch):
        inputs = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
        weight, bias = lib.tensor(w).requires_grad_(), lib.tensor(b).requires_grad_()
        mean, var = lib.zeros(shape[1]), lib.ones(shape[1])
        y = lib.nn.functional.batch_norm(inputs, mean, var, weight, bias, training=True)
        (y.float() ** 3).sum().backward()
        evaluated = lib.nn.functional.batch_norm(inputs, mean, var, weight, bias, training=False)
        results.append((y, inputs.grad, weight.grad, bias.grad, mean, var, evaluated))
    for e, t in zip(*results):
        _close(e, t, 2e-2)


def test_conversions_round_like_torch():
    special = np.array([0.0, -0.0, 1.0, 1.00390625, 1.0039063, 1.01171875, -3.3e38, 3.4e38, 1e-40, np.inf, -np.inf,
                        np.nan], dtype=np.float32)
    values = np.concatenate([special, np.random.default_rng(5).standard_normal(5000).astype(np.float32) * 100])
    for dtype in DTYPES:
        e = ember.tensor(values).to(getattr(ember, dtype))
        t = torch.tensor(values).to(getattr(torch, dtype))
        np.testing.assert_array_equal(e.float().numpy(), t.float().numpy())
        bits_e, bits_t = e.view(ember.int16).numpy(), t.view(torch.int16).numpy()
        nan = len(special) - 1  # NaN payloads may differ; NaN stays NaN (checked above)
        np.testing.assert_array_equal(np.delete(bits_e, nan), np.delete(bits_t, nan))
