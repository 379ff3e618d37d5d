"""The platform names that torch scripts touch at import and setup time:
ember.backends, ember.accelerator, ember.amp (GradScaler, autocast), the
CUDA spellings in ember.cuda.amp and the global precision switches, checked
against torch's CPU build."""

import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def test_backends_report_what_is_there():
    assert ember.backends.mps.is_available() is False and ember.backends.mps.is_built() is False
    assert ember.backends.cudnn.is_available() is False and ember.backends.cudnn.version() is None
    assert ember.backends.mkldnn.is_available() is True
    assert ember.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    assert ember.backends.cuda.is_built() == ember._C._device_backend_built("cuda")
    for name in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(ember.backends.cudnn, name) == getattr(torch.backends.cudnn, name), name


def test_backend_flags_are_settable():
    cudnn = ember.backends.cudnn
    cudnn.benchmark = True
    assert cudnn.benchmark is True
    with cudnn.flags(enabled=False, deterministic=True):
        assert cudnn.enabled is False and cudnn.deterministic is True and cudnn.benchmark is False
    assert cudnn.enabled is True and cudnn.deterministic is False and cudnn.benchmark is True
    cudnn.benchmark = False
    assert ember.backends.cuda.matmul.allow_tf32 is False and ember.get_float32_matmul_precision() == "highest"
    ember.backends.cuda.matmul.allow_tf32 = True
    assert ember.get_float32_matmul_precision() == "high"
    ember.set_float32_matmul_precision("highest")
    assert ember.backends.cuda.matmul.allow_tf32 is False
    with pytest.raises(RuntimeError, match="Invalid precision 'fast'"):
        ember.set_float32_matmul_precision("fast")
    ember.backends.cuda.enable_flash_sdp(False)
    assert ember.backends.cuda.flash_sdp_enabled() is False
    ember.backends.cuda.enable_flash_sdp(True)


def test_deterministic_switches():
    assert ember.are_deterministic_algorithms_enabled() is False
    ember.use_deterministic_algorithms(True, warn_only=True)
    assert ember.are_deterministic_algorithms_enabled() and ember.is_deterministic_algorithms_warn_only_enabled()
    ember.use_deterministic_algorithms(False)
    assert not ember.are_deterministic_algorithms_enabled()
    with pytest.raises(TypeError):
        ember.use_deterministic_algorithms("yes")


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the machine without a GPU")
def test_accelerator_without_a_gpu():
    assert ember.accelerator.is_available() is torch.accelerator.is_available() is False
    assert ember.accelerator.current_accelerator() is None
    assert ember.accelerator.device_count() == 0


# ---- autocast ------------------------------------------------------------------------


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the machine without a GPU")
def test_cuda_amp_disables_itself_without_a_gpu_with_torchs_warnings():
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
        with ember.autocast("cuda", dtype=ember.bfloat16):
            assert not ember.is_autocast_enabled("cuda")
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  Disabling."):
        scaler = ember.cuda.amp.GradScaler()
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    loss = ember.ones(())
    assert scaler.scale(loss) is loss
    with pytest.warns(UserWarning):
        ember.amp.GradScaler("cuda")


def test_autocast_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ember.autocast("cpu", enabled=False):
            assert not ember.is_autocast_enabled("cpu")

        @ember.autocast(device_type="cpu", enabled=False)
        def forward(x):
            return x * 2

        assert forward(ember.ones(2)).tolist() == [2, 2]
    with pytest.raises(RuntimeError, match="Expected one of"):
        ember.autocast("xyz")
    with ember.autocast("cpu", dtype=ember.bfloat16):
        assert ember.is_autocast_enabled("cpu")
    assert ember.amp.is_autocast_available("cpu") is torch.amp.is_autocast_available("cpu")


# ---- GradScaler, enabled (on the CPU), step by step against torch -------------------


def _training(lib, steps_with_overflow):
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
    x = lib.arange(12, dtype=lib.float32).reshape(4, 3) / 10
    history = []
    for step in range(6):
        optimizer.zero_grad()
        loss = model(x).pow(2).mean()
        if step in steps_with_overflow:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        if step == 3:
            scaler.unscale_(optimizer)  # e.g. to clip gradients
        returned = scaler.step(optimizer)
        scaler.update()
        history.append((scaler.get_scale(), returned, [p.detach().numpy().copy() for p in model.parameters()]))
    return history, scaler.state_dict()


def test_grad_scaler_follows_torch():
    mine, mine_state = _training(ember, {1, 4})
    theirs, their_state = _training(torch, {1, 4})
    assert mine_state == their_state
    for (scale, returned, params), (t_scale, t_returned, t_params) in zip(mine, theirs):
        assert scale == t_scale and returned == t_returned
        for p, q in zip(params, t_params):
            np.testing.assert_allclose(p, q, rtol=1e-6, atol=1e-7)


def test_grad_scaler_errors_and_state():
    model = ember.nn.Linear(2, 1)
    optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    scaler = ember.amp.GradScaler("cpu")
    with pytest.raises(RuntimeError, match="did not use scaler.scale"):
        scaler.step(optimizer)
    scaler.scale(model(ember.ones(2)).sum()).backward()
    scaler.unscale_(optimizer)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(optimizer)
    scaler.step(optimizer)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called since the last update"):
        scaler.step(optimizer)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(optimizer, closure=lambda: None)
    scaler.update(512.0)
    assert scaler.get_scale() == 512.0
    fresh = ember.amp.GradScaler("cpu")
    fresh.load_state_dict(scaler.state_dict())
    assert fresh.state_dict() == scaler.state_dict()
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        fresh.load_state_dict({})
    with pytest.raises(ValueError, match="The growth factor must be > 1.0"):
        ember.amp.GradScaler("cpu", growth_factor=1.0)


# ---- modules scripts import but Ember does not provide ------------------------------


def test_compile_runs_eagerly():
    model = ember.nn.Linear(2, 2)
    assert ember.compile(model) is model

    @ember.compile(mode="max-autotune")
    def double(x):
        return x * 2

    assert double(ember.ones(2)).tolist() == [2, 2]
    with pytest.raises(RuntimeError, match="unknown backend 'tvm'"):
        ember.compile(model, backend="tvm")


def test_unsupported_modules_import_and_say_so_when_used():
    import ember.onnx
    from ember.utils.tensorboard import SummaryWriter

    with pytest.raises(RuntimeError, match="TensorBoard logging is not supported by Ember"):
        SummaryWriter("runs/x")
    with pytest.raises(RuntimeError, match="exporting to ONNX is not supported by Ember"):
        ember.onnx.export(ember.nn.Linear(1, 1), ember.ones(1), "model.onnx")
    assert ember.onnx.is_in_onnx_export() is False


def test_result_type_can_cast_and_small_predicates_match_torch():
    torch = pytest.importorskip("torch")
    import numpy as np
    operands = [np.ones(2, np.int32), np.ones(2, np.uint8), np.ones(2, np.int8), np.array(2.5), np.array(1, np.int64),
                np.ones(2, bool), np.ones(2, np.float16), 2, 2.5, True, 1j]
    for a in operands:
        for b in operands:
            ea = ember.from_numpy(np.array(a)) if isinstance(a, np.ndarray) else a
            eb = ember.from_numpy(np.array(b)) if isinstance(b, np.ndarray) else b
            ta = torch.from_numpy(np.array(a)) if isinstance(a, np.ndarray) else a
            tb = torch.from_numpy(np.array(b)) if isinstance(b, np.ndarray) else b
            if not isinstance(ta, torch.Tensor) and not isinstance(tb, torch.Tensor):
                continue  # torch.result_type takes at least one tensor
            if torch.result_type(ta, tb) == torch.complex32:
                continue  # float16 with a complex number: Ember has no complex32 (chalf) yet
            assert str(ember.result_type(ea, eb)).split(".")[1] == str(torch.result_type(ta, tb)).split(".")[1], (a, b)
    dtypes = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64"]
    for x in dtypes:
        for y in dtypes:
            assert ember.can_cast(getattr(ember, x), getattr(ember, y)) == torch.can_cast(getattr(torch, x),
                                                                                        getattr(torch, y)), (x, y)
    assert ember.is_nonzero(ember.tensor([3])) and not ember.is_nonzero(ember.tensor(0.0))
    with pytest.raises(RuntimeError, match="more than one value"):
        ember.is_nonzero(ember.ones(2))
    assert ember.is_same_size(ember.ones(2, 3), ember.zeros(2, 3)) and not ember.is_same_size(ember.ones(2), ember.ones(3))


def test_functional_names_torch_offers_at_the_top_level():
    x = ember.ones(1, 2, 5)
    assert ember.conv1d(x, ember.ones(3, 2, 2)).shape == (1, 3, 4)
    assert ember.max_pool1d(x, 2).shape == (1, 2, 2)
    assert ember.pixel_shuffle(ember.ones(1, 4, 2, 2), 2).shape == (1, 1, 4, 4)
    assert float(ember.cosine_similarity(ember.ones(2, 3), ember.ones(2, 3))[0]) == pytest.approx(1.0)


def test_channels_last_layouts_match_torch():
    import numpy as np
    values = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    for fmt, shape in (("channels_last", (2, 3, 4, 5)), ("channels_last_3d", (1, 2, 3, 4, 5))):
        e = ember.from_numpy(values.reshape(shape)).contiguous(memory_format=getattr(ember, fmt))
        t = torch.from_numpy(values.reshape(shape)).contiguous(memory_format=getattr(torch, fmt))
        assert e.stride() == t.stride()
        assert e.is_contiguous(memory_format=getattr(ember, fmt)) and not e.is_contiguous()
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    moved = ember.from_numpy(values).to(ember.float64, memory_format=ember.channels_last)
    assert moved.dtype == ember.float64 and moved.stride() == (60, 1, 15, 3)
    model = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3), ember.nn.BatchNorm2d(4)).to(memory_format=ember.channels_last)
    assert model[0].weight.is_contiguous(memory_format=ember.channels_last)
    assert isinstance(model[0].weight, ember.nn.Parameter) and model[1].weight.dim() == 1
    out = model(ember.from_numpy(values).contiguous(memory_format=ember.channels_last))
    np.testing.assert_allclose(out.detach().numpy(), model(ember.from_numpy(values)).detach().numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="required rank 4"):
        ember.ones(2, 3).contiguous(memory_format=ember.channels_last)
    with pytest.raises(RuntimeError, match="preserve memory format"):
        ember.ones(2, 3).t().contiguous(memory_format=ember.preserve_format)
    x = ember.ones(2, 3)
    assert x.contiguous(memory_format=ember.preserve_format) is x  # as torch: already contiguous
    assert repr(ember.channels_last) == "ember.channels_last"


# ---- names single-process scripts touch: version, distributed, jit, memory, pinning, custom_fwd --------------


def test_version_module():
    assert ember.version.__version__ == ember.__version__
    assert ember.version.hip is None and ember.version.debug is False
    assert (ember.version.cuda is None) == (not ember.backends.cuda.is_built())


@pytest.mark.parametrize("call", [
    lambda lib: lib.distributed.get_rank(), lambda lib: lib.distributed.get_world_size(),
    lambda lib: lib.distributed.barrier(), lambda lib: lib.distributed.get_backend(),
    lambda lib: lib.distributed.all_reduce(lib.ones(2)),
    lambda lib: lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2)),
], ids=["get_rank", "get_world_size", "barrier", "get_backend", "all_reduce", "DistributedDataParallel"])
def test_distributed_without_a_process_group_gives_torchs_error(call):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as caught:
            call(lib)
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]


def test_distributed_queries_and_names():
    dist = ember.distributed
    assert dist.is_initialized() is False and dist.is_available() is True
    assert dist.Backend("GLOO") == torch.distributed.Backend("GLOO") == "gloo"
    assert int(dist.ReduceOp.AVG) == 1 and dist.ReduceOp.MAX.name == "MAX"
    with pytest.raises(AssertionError, match="Process group cannot be None"):
        dist.destroy_process_group()
    with pytest.raises(ValueError, match="environment variable MASTER_ADDR expected, but not set"):
        dist.init_process_group("gloo")
    from ember.distributed import destroy_process_group, init_process_group  # noqa: F401  (nanoGPT's import)


def test_jit_queries_and_decorators_keep_eager_code_running():
    assert ember.jit.is_scripting() is False and ember.jit.is_tracing() is False

    @ember.jit.ignore
    def f(x):
        return x + 1

    @ember.jit.unused
    def g(x):
        return x * 2

    @ember.jit.ignore(drop=True)
    def h(x):
        return x - 1

    scripted = ember.jit.script(ember.nn.Linear(2, 2))
    assert isinstance(scripted, ember.nn.Linear)
    assert f(1) == 2 and g(2) == 4 and h(1) == 0


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the machine without a GPU")
def test_cuda_memory_queries_and_rng_state_without_a_gpu_match_torch():
    for name in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"):
        assert getattr(ember.cuda, name)() == getattr(torch.cuda, name)() == 0, name
    assert ember.cuda.memory_stats() == {}
    ember.cuda.reset_peak_memory_stats()
    assert ember.cuda.get_rng_state_all() == torch.cuda.get_rng_state_all() == []
    ember.cuda.set_rng_state_all([])


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the machine without a GPU")
def test_pin_memory_without_an_accelerator_matches_torch():
    assert ember.ones(2).is_pinned() is torch.ones(2).is_pinned() is False
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available."):
            lib.ones(2).pin_memory()


def test_checkpoint_is_reachable_after_import():
    x = ember.ones(3, requires_grad=True)
    y = ember.utils.checkpoint.checkpoint(lambda t: (t * t).sin(), x, use_reentrant=False)
    y.sum().backward()
    expected = torch.ones(3, requires_grad=True)
    torch.utils.checkpoint.checkpoint(lambda t: (t * t).sin(), expected, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected.grad.numpy(), rtol=1e-6)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # torch deprecates the cuda.amp spellings
@pytest.mark.parametrize("lib_name", ["torch", "ember"])
def test_custom_fwd_and_bwd_decorate_a_function_that_runs_without_autocast(lib_name):
    lib = torch if lib_name == "torch" else ember

    class Scale(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
        def forward(ctx, x):
            return x * 3

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            assert not lib.is_autocast_enabled("cpu")
            return grad * 3

    class Legacy(lib.autograd.Function):
        @staticmethod
        @lib.cuda.amp.custom_fwd
        def forward(ctx, x):
            return x + 1

        @staticmethod
        @lib.cuda.amp.custom_bwd
        def backward(ctx, grad):
            return grad

    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    out = Scale.apply(x) + Legacy.apply(x)
    out.sum().backward()
    assert out.dtype == lib.float64 and out.tolist() == [5.0, 5.0] and x.grad.tolist() == [4.0, 4.0]
    assert lib.get_autocast_dtype("cpu") == lib.bfloat16
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        lib.amp.custom_fwd(device_type=None)


# ---- pre-1.0 and pre-2.1 spellings old scripts still use ----------------------------------------------


@pytest.mark.parametrize("lib_name", ["torch", "ember"])
def test_variable_wraps_data_as_a_new_leaf(lib_name):
    lib = torch if lib_name == "torch" else ember
    data = lib.ones(2) * 3
    v = lib.autograd.Variable(data, requires_grad=True)
    assert v.requires_grad and v.is_leaf and isinstance(data, lib.autograd.Variable)
    v.sum().backward()
    assert v.grad.tolist() == [1.0, 1.0] and not lib.autograd.Variable(data).requires_grad
    v.data[0] = 5  # the same memory as data
    assert data.tolist() == [5.0, 3.0]


@pytest.mark.parametrize("lib_name", ["torch", "ember"])
def test_set_default_tensor_type(lib_name):
    lib = torch if lib_name == "torch" else ember
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch deprecates it
            lib.set_default_tensor_type(f"{lib_name}.DoubleTensor")
            assert lib.ones(1).dtype == lib.float64 and lib.tensor([1.5]).dtype == lib.float64
            lib.set_default_tensor_type(lib.FloatTensor)
            assert lib.ones(1).dtype == lib.float32
            with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
                lib.set_default_tensor_type(lib.LongTensor)
            with pytest.raises(TypeError, match=f"type {lib_name}.cuda.FloatTensor not available"):
                lib.set_default_tensor_type(f"{lib_name}.cuda.FloatTensor")
    finally:
        lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("lib_name", ["torch", "ember"])
def test_apply_and_map_run_python_per_element(lib_name):
    lib = torch if lib_name == "torch" else ember
    x = lib.arange(6.0).reshape(2, 3).t()
    assert x.apply_(lambda v: v * v).tolist() == [[0.0, 9.0], [1.0, 16.0], [4.0, 25.0]]
    assert x.map_(lib.tensor([1.0, 2.0]), lambda a, b: a + b).tolist() == [[1.0, 11.0], [2.0, 18.0], [5.0, 27.0]]
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad"):
        lib.ones(2, requires_grad=True).apply_(abs)


@pytest.mark.parametrize("lib_name", ["torch", "ember"])
def test_sdpa_kernel_selection(lib_name):
    lib = torch if lib_name == "torch" else ember
    import importlib

    attention = importlib.import_module(f"{lib_name}.nn.attention")
    q = lib.ones(1, 1, 3, 4)
    with attention.sdpa_kernel([attention.SDPBackend.MATH, attention.SDPBackend.FLASH_ATTENTION]):
        assert lib.nn.functional.scaled_dot_product_attention(q, q, q).shape == (1, 1, 3, 4)
    with attention.sdpa_kernel(attention.SDPBackend.FLASH_ATTENTION):
        assert not lib.backends.cuda.math_sdp_enabled() and lib.backends.cuda.flash_sdp_enabled()
    assert lib.backends.cuda.math_sdp_enabled()
    with attention.sdpa_kernel(attention.SDPBackend.CUDNN_ATTENTION):
        with pytest.raises(RuntimeError, match="No viable backend for scaled_dot_product_attention was found"):
            lib.nn.functional.scaled_dot_product_attention(q, q, q)
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with attention.sdpa_kernel("math"):
            pass
    assert int(attention.SDPBackend.EFFICIENT_ATTENTION) == 2 and str(attention.SDPBackend.MATH) == "SDPBackend.MATH"


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch: TypedStorage is deprecated
def test_untyped_and_typed_storage_match_torch():
    seen = []
    for lib in (torch, ember):
        x = lib.arange(6, dtype=lib.int16)
        view = x[2:]
        storage = x.untyped_storage()
        same_memory = storage.data_ptr() == view.untyped_storage().data_ptr() == x.data_ptr()
        storage[0] = 9  # writes through to the tensor
        typed = view.storage()
        seen.append((storage.nbytes(), storage.size(), len(storage), storage.element_size(), same_memory,
                     storage.tolist(), storage[2], int(x[0]), typed.size(), typed.element_size(), typed.tolist(),
                     typed[1], storage[4:8].tolist(), storage.clone().tolist(), storage.is_shared()))
    assert seen[0] == seen[1]
    shared = ember.ones(3).share_memory_()
    assert shared.untyped_storage().is_shared() and ember.UntypedStorage(5).nbytes() == 5
    with pytest.raises(NotImplementedError, match="resize the tensor"):
        ember.ones(2).untyped_storage().resize_(0)
