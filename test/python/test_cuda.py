"""ember.cuda and CUDA tensors.

Without a GPU (every CI machine) the first group checks that ember.cuda
answers as torch.cuda does on such a machine and that using a device fails
with a clear error. The rest compares GPU results with NumPy and with the
same computation on the CPU, and is skipped without a GPU (counted as
skipped in the summary). scripts/gpu_check.sh runs this file on a GPU.
"""

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

gpu = pytest.mark.skipif(not ember.cuda.is_available(), reason="no CUDA device")


# ---- every machine ---------------------------------------------------------------


def test_module_answers_without_failing():
    assert isinstance(ember.cuda.is_available(), bool)
    assert ember.cuda.device_count() >= 0
    assert ember.cuda.is_bf16_supported() is False
    ember.cuda.manual_seed(0)
    ember.cuda.manual_seed_all(0)
    ember.cuda.empty_cache()
    assert issubclass(ember.cuda.OutOfMemoryError, RuntimeError)


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the machine without a GPU")
def test_without_a_gpu_the_errors_say_why():
    assert ember.cuda.device_count() == 0
    for make in (lambda: ember.ones(2).cuda(), lambda: ember.zeros(3, device="cuda"),
                 lambda: ember.ones(2).to("cuda:0"), ember.cuda.current_device):
        with pytest.raises(RuntimeError, match="CUDA is not available|built without cuda"):
            make()
    assert ember.ones(1).is_cuda is False


# ---- with a GPU --------------------------------------------------------------------


def host(t):
    return t.cpu().numpy()


@gpu
def test_round_trip_and_repr():
    x = ember.arange(12, dtype=ember.float32).view(3, 4)
    g = x.cuda()
    assert g.is_cuda and g.device.type == "cuda" and g.device.index == 0
    assert str(g.device) == "cuda:0"
    assert g.to("cuda") is g
    np.testing.assert_array_equal(host(g), x.numpy())
    np.testing.assert_array_equal(host(g.t()), x.numpy().T)
    assert repr(ember.tensor([1.0, 2.0]).cuda()) == "tensor([1., 2.], device='cuda:0')"
    assert g.sum().item() == 66.0
    assert g.tolist() == x.tolist()


@gpu
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int32, ember.int64, ember.uint8, ember.bool])
def test_factories_on_the_device(dtype):
    np.testing.assert_array_equal(host(ember.zeros(2, 3, dtype=dtype, device="cuda")), np.zeros((2, 3)))
    np.testing.assert_array_equal(host(ember.ones(4, dtype=dtype, device="cuda")), np.ones(4))
    if dtype != ember.bool:
        np.testing.assert_array_equal(host(ember.arange(5, dtype=dtype, device="cuda")), np.arange(5))


@gpu
def test_elementwise_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 33)).astype(np.float32)
    b = rng.standard_normal((33,)).astype(np.float32)
    p = rng.random((64, 33)).astype(np.float32) + 0.1
    A, B, P = (ember.from_numpy(v).cuda() for v in (a, b, p))
    cases = {
        "add": (A + B, a + b), "sub": (A - 2 * B, a - 2 * b), "mul": (A * B, a * b), "div": (A / P, a / p),
        "radd": (1 + A, 1 + a), "neg": (-A, -a), "abs": (A.abs(), np.abs(a)), "exp": (A.exp(), np.exp(a)),
        "log": (P.log(), np.log(p)), "sqrt": (P.sqrt(), np.sqrt(p)), "tanh": (A.tanh(), np.tanh(a)),
        "sigmoid": (A.sigmoid(), 1 / (1 + np.exp(-a))), "relu": (A.relu(), np.maximum(a, 0)),
        "pow": (P ** 2, p ** 2), "maximum": (ember.maximum(A, B), np.maximum(a, b)),
        "where": (ember.where(A > 0, A, B), np.where(a > 0, a, b)),
        "transposed": (A.t() * 2, a.T * 2),
    }
    for name, (got, want) in cases.items():
        np.testing.assert_allclose(host(got), want, rtol=2e-6, atol=1e-6, err_msg=name)
    for name, got, want in (("lt", A < B, a < b), ("eq", A == A, a == a), ("ge", A >= 0, a >= 0)):
        np.testing.assert_array_equal(host(got), want, err_msg=name)


@gpu
def test_reductions_and_matmul_against_numpy():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 300, 5))
    X = ember.from_numpy(x).cuda()
    np.testing.assert_allclose(X.sum().item(), x.sum(), rtol=1e-10)
    np.testing.assert_allclose(host(X.sum(1)), x.sum(1), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(host(X.sum(0)), x.sum(0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(host(X.mean((0, 2), keepdim=True)), x.mean((0, 2), keepdims=True), rtol=1e-10)
    a = rng.standard_normal((50, 70)).astype(np.float32)
    b = rng.standard_normal((70, 30)).astype(np.float32)
    A, B = ember.from_numpy(a).cuda(), ember.from_numpy(b).cuda()
    np.testing.assert_allclose(host(A @ B), a @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(host(B.t() @ A.t()), (a @ b).T, rtol=1e-4, atol=1e-4)


@gpu
def test_a_training_step_matches_the_cpu():
    def run(device):
        ember.manual_seed(0)
        model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1)).to(device)
        opt = ember.optim.SGD(model.parameters(), lr=0.1)
        x = ember.linspace(-1, 1, 40).view(4, 10).to(device)
        y = ember.ones(4, 1).to(device)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [p.detach().cpu() for p in model.parameters()]

    gpu_losses, gpu_params = run("cuda")
    cpu_losses, cpu_params = run("cpu")
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-5)
    for g, c in zip(gpu_params, cpu_params):
        np.testing.assert_allclose(g.numpy(), c.numpy(), rtol=1e-4, atol=1e-6)


@gpu
def test_a_classifier_with_cross_entropy_and_adam_matches_the_cpu():
    def run(device):
        ember.manual_seed(1)
        model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 3)).to(device)
        opt = ember.optim.AdamW(model.parameters(), lr=1e-2)
        x = ember.randn(128, 2)
        y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
        x, y = x.to(device), y.to(device)
        losses = []
        for _ in range(20):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    gpu_losses, cpu_losses = run("cuda"), run("cpu")
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-4)
    assert gpu_losses[-1] < 0.5 * gpu_losses[0]


@gpu
def test_softmax_against_numpy():
    x = np.random.default_rng(2).standard_normal((16, 1000)).astype(np.float32) * 4
    X = ember.from_numpy(x).cuda()
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(host(X.softmax(-1)), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(host(X.log_softmax(-1)), np.log(e / e.sum(1, keepdims=True)), rtol=1e-5, atol=1e-5)


@gpu
def test_memory_stats_and_out_of_memory():
    ember.cuda.empty_cache()
    before = ember.cuda.memory_allocated()
    t = ember.empty(1 << 20, device="cuda")
    assert ember.cuda.memory_allocated() - before == 4 << 20
    assert ember.cuda.max_memory_allocated() >= ember.cuda.memory_allocated()
    assert ember.cuda.memory_reserved() >= ember.cuda.memory_allocated()
    del t
    assert ember.cuda.memory_allocated() == before
    with pytest.raises(ember.cuda.OutOfMemoryError, match="CUDA out of memory. Tried to allocate"):
        ember.empty(1 << 48, device="cuda")
    assert ember.cuda.memory_stats()["num_ooms"] >= 1
    ember.cuda.synchronize()
    assert isinstance(ember.cuda.get_device_name(0), str)


@gpu
def test_clear_errors_on_the_device():
    g = ember.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        g + ember.ones(3)
    with pytest.raises(NotImplementedError, match="'CUDA' backend"):
        g.cumsum(0)
    with pytest.raises(NotImplementedError, match="on CUDA yet"):
        g.half()
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        ember.zeros(1, device="cuda:7")


# ---- autocast on CUDA (float16 by default) ------------------------------------------

CUDA_AUTOCAST = {  # op -> (call, what torch 2.13's CUDA policy gives from float32 inputs)
    "mm": (lambda x: ember.mm(x(4, 4), x(4, 4)), "float16"),
    "linear": (lambda x: F.linear(x(3, 4), x(2, 4), x(2)), "float16"),
    "conv2d": (lambda x: F.conv2d(x(1, 2, 6, 6), x(3, 2, 3, 3)), "float16"),
    "bmm": (lambda x: ember.bmm(x(2, 3, 4), x(2, 4, 2)), "float16"),
    "exp": (lambda x: ember.exp(x(4).half()), "float32"),
    "sum": (lambda x: x(4).half().sum(), "float32"),
    "softmax": (lambda x: ember.softmax(x(3, 4).half(), 1), "float32"),
    "layer_norm": (lambda x: F.layer_norm(x(3, 4).half(), (4,)), "float32"),
    "mse_loss": (lambda x: F.mse_loss(x(3).half(), x(3).half()), "float32"),
    "addcmul": (lambda x: ember.addcmul(x(3), x(3).half(), x(3).half()), "float32"),
    "add": (lambda x: x(3).half() + x(3).half(), "float16"),
}


@gpu
@pytest.mark.parametrize("op", sorted(CUDA_AUTOCAST))
def test_autocast_policy_on_the_gpu(op):
    call, expected = CUDA_AUTOCAST[op]
    rng = np.random.default_rng(0)

    def x(*shape):
        return ember.tensor(rng.uniform(0.1, 1.0, size=shape).astype(np.float32)).cuda()
    with ember.autocast("cuda"):
        assert ember.get_autocast_dtype("cuda") == ember.float16
        try:
            result = call(x)
        except NotImplementedError as e:  # an op with no CUDA kernel yet
            pytest.skip(str(e))
    assert str(result.dtype) == f"ember.{expected}"


@gpu
def test_autocast_bans_binary_cross_entropy_on_the_gpu():
    p = ember.full((3,), 0.5).cuda()
    with ember.autocast("cuda"):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(p, p)
        assert F.binary_cross_entropy_with_logits(p, p).dtype == ember.float32
