"""Names torch scripts touch on the way (second pass over what fifteen public scripts and the
libraries they import call): in-place view methods, small Tensor queries and legacy spellings,
top-level flags and removed functions, ember.random, ember.compiler, ember.linalg.LinAlgError
and ember.cuda without a GPU, each next to torch."""

import numpy as np
import pytest

import ember
from ember_testing import to_numpy, torch

pytestmark = pytest.mark.skipif(torch is None, reason="needs torch as the oracle")


def _pair(values):
    a = np.array(values, dtype=np.float64)
    return ember.tensor(a), torch.tensor(a)


INPLACE_VIEWS = [
    ("transpose_", (0, 2)), ("t_", ()), ("squeeze_", ()), ("squeeze_", (1,)), ("unsqueeze_", (-1,)),
    ("swapaxes_", (0, 1)), ("swapdims_", (2, 0)),
]


@pytest.mark.parametrize("name,args", INPLACE_VIEWS, ids=[f"{n}{a}" for n, a in INPLACE_VIEWS])
def test_inplace_view_methods_change_the_tensor_itself_and_record_gradients(name, args):
    shape = (3, 4) if name == "t_" else (3, 1, 4)
    values = np.random.default_rng(0).standard_normal(shape)
    ours, theirs = ember.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    a, b = ours * 1, theirs * 1
    pointer = a.data_ptr()
    assert getattr(a, name)(*args) is a
    getattr(b, name)(*args)
    assert tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride() and a.data_ptr() == pointer
    weights = np.arange(a.numel(), dtype=np.float64).reshape(tuple(a.shape))
    (a * ember.tensor(weights)).sum().backward()
    (b * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(to_numpy(ours.grad), theirs.grad.numpy())


def test_inplace_view_methods_refuse_leaves_and_views_that_require_grad():
    leaf = ember.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.t_()
    view = (leaf * 1)[0:1]
    with pytest.raises(RuntimeError, match="view that requires grad"):
        view.t_()
    with ember.no_grad():
        assert leaf.detach().t_().shape == (3, 2)


def test_as_strided_in_place_checks_the_storage():
    x = ember.arange(6.0)
    x.as_strided_((2, 2), (1, 2), 1)
    assert to_numpy(x).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.as_strided_((4, 4), (4, 1))


SMALL = [
    ("fill_diagonal_", lambda lib: lib.zeros(3, 4).fill_diagonal_(5)),
    ("fill_diagonal_tall_wrap", lambda lib: lib.zeros(7, 3).fill_diagonal_(2, wrap=True)),
    ("fill_diagonal_tall", lambda lib: lib.zeros(7, 3).fill_diagonal_(2)),
    ("fill_diagonal_3d", lambda lib: lib.zeros(2, 2, 2).fill_diagonal_(1)),
    ("sum_to_size", lambda lib: lib.arange(24.0).reshape(2, 3, 4).sum_to_size(3, 1)),
    ("sum_to_size_tuple", lambda lib: lib.arange(6.0).reshape(2, 3).sum_to_size((1, 3))),
    ("new_size", lambda lib: lib.tensor(lib.ones(2, dtype=lib.int32).new(2, 3).shape)),
    ("new_data", lambda lib: lib.ones(2, dtype=lib.float64).new([1, 2])),
    ("new_empty", lambda lib: lib.tensor(lib.ones(2).new().shape)),
    ("new_Size", lambda lib: lib.tensor(lib.ones(2).new(lib.Size([2, 3])).shape)),
    ("narrow_copy", lambda lib: lib.arange(12.0).reshape(3, 4).narrow_copy(1, 1, 2)),
    ("nonzero_static_pad", lambda lib: lib.tensor([0, 3, 0, 4]).nonzero_static(size=4)),
    ("nonzero_static_cut", lambda lib: lib.tensor([1, 3, 0, 4]).nonzero_static(size=2, fill_value=7)),
    ("isreal", lambda lib: lib.isreal(lib.tensor([1 + 0j, 1 + 1j]))),
    ("isreal_real", lambda lib: lib.tensor([1.0, 2.0]).isreal()),
    ("cumprod_", lambda lib: lib.tensor([1.0, 2, 3]).cumprod_(0)),
    ("ldexp_", lambda lib: lib.tensor([1.0, 2]).ldexp_(lib.tensor([2, 3]))),
    ("hardshrink", lambda lib: lib.tensor([-1.0, 0.2, 0.8]).hardshrink(0.5)),
    ("prelu", lambda lib: lib.tensor([[-1.0, 2.0]]).prelu(lib.tensor([0.25]))),
    ("frobenius_norm", lambda lib: lib.frobenius_norm(lib.arange(6.0).reshape(2, 3), (0, 1))),
    ("nuclear_norm", lambda lib: lib.nuclear_norm(lib.tensor([[3.0, 0], [0, 4]]))),
    ("empty_permuted_strides", lambda lib: lib.tensor(lib.empty_permuted((2, 3, 4), (0, 2, 1)).stride())),
    ("unsafe_chunk", lambda lib: lib.stack(lib.arange(4.0).unsafe_chunk(2))),
    ("dim_order", lambda lib: lib.tensor(lib.ones(2, 3, 4).permute(2, 0, 1).dim_order())),
]


@pytest.mark.parametrize("name,make", SMALL, ids=[n for n, _ in SMALL])
def test_small_methods_match_torch(name, make):
    ours, theirs = make(ember), make(torch)
    np.testing.assert_array_equal(to_numpy(ours), theirs.numpy())


def test_queries_match_torch():
    for lib in (ember, torch):
        x = lib.ones(2, 3)
        assert x.is_same_size(lib.zeros(2, 3)) and not x.is_same_size(lib.zeros(3, 2))
        assert lib.tensor([2.0]).is_nonzero() and not lib.tensor([0]).is_nonzero()
        with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
            x.is_nonzero()
        assert x.is_set_to(x) and not x.is_set_to(x.clone())
        assert not (x.is_mps or x.is_xla or x.is_xpu or x.is_quantized or x.is_nested or x.is_mkldnn)
        assert x.new_empty_strided((2, 2), (1, 2)).stride() == (1, 2)
        assert lib.get_device(x) == -1 and x.const_data_ptr() == x.data_ptr()
    y = ember.ones(2, 3)
    y.resize_as_(ember.ones(6))
    assert y.shape == (6,)
    with pytest.raises(RuntimeError, match="is not expandable"):
        ember.ones(2, 3).sum_to_size(4)


def test_svd_and_pca_lowrank_approximate_like_torch():
    ember.manual_seed(0)
    low_rank = ember.randn(30, 3, dtype=ember.float64) @ ember.randn(3, 12, dtype=ember.float64)
    U, S, V = ember.svd_lowrank(low_rank, q=5, niter=3)
    assert U.shape == (30, 5) and S.shape == (5,) and V.shape == (12, 5)
    np.testing.assert_allclose(to_numpy(U @ ember.diag(S) @ V.T), to_numpy(low_rank), atol=1e-9)
    exact = np.linalg.svd(to_numpy(low_rank), compute_uv=False)[:3]
    np.testing.assert_allclose(to_numpy(S[:3]), exact, rtol=1e-9)
    wide = low_rank.T
    U, S, V = ember.svd_lowrank(wide, q=4)
    np.testing.assert_allclose(to_numpy(U @ ember.diag(S) @ V.T), to_numpy(wide), atol=1e-9)
    data = ember.randn(200, 4, dtype=ember.float64) * ember.tensor([5.0, 2.0, 1.0, 0.1], dtype=ember.float64)
    _, S, V = ember.pca_lowrank(data + 10, q=4)
    theirs = torch.pca_lowrank(torch.tensor(to_numpy(data + 10)), q=4)
    np.testing.assert_allclose(to_numpy(S), theirs[1].numpy(), rtol=1e-8)
    with pytest.raises(ValueError, match="q"):
        ember.svd_lowrank(low_rank, q=20)


def test_removed_functions_and_flags_say_what_torch_says():
    for name in ("matrix_rank", "solve", "lstsq", "eig", "symeig"):
        with pytest.raises(RuntimeError, match="deprecated since version 1.9 and is now removed"):
            getattr(ember, name)(ember.eye(2), ember.eye(2))
    assert ember.has_lapack and ember.has_spectral
    assert ember.has_openmp == ember.backends.openmp.is_available()
    assert not ember.is_anomaly_enabled()
    ember.set_anomaly_enabled(True, check_nan=False)
    try:
        assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
    finally:
        ember.set_anomaly_enabled(False)
    assert ember.get_device_module() is ember.cpu and ember.get_device_module("cuda") is ember.cuda
    assert ember.get_device_module(ember.device("cpu")) is ember.cpu


def test_feature_dropout_drops_whole_channels():
    ember.manual_seed(0)
    out = ember.feature_dropout(ember.ones(8, 6, 5), 0.5, True)
    per_channel = out.reshape(8, 6, 5)
    assert bool(((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all())
    assert ember.feature_dropout(ember.ones(2, 3), 0.5, False).eq(1).all()
    x = ember.ones(4, 4)
    assert ember.feature_alpha_dropout_(x, 0.5, False) is x


def test_random_module_and_fork_rng():
    assert ember.random.get_rng_state is ember.get_rng_state
    ember.random.manual_seed(3)
    assert ember.random.initial_seed() == 3
    before = ember.get_rng_state()
    with ember.random.fork_rng():
        inside = ember.rand(3)
    assert bool((ember.get_rng_state() == before).all())
    assert bool((ember.rand(3) == inside).all())
    with ember.random.fork_rng(enabled=False):
        ember.rand(1)
    assert not bool((ember.get_rng_state() == before).all())


def test_compiler_controls_leave_eager_code_as_it_is():
    def f(x):
        return x + 1

    assert not ember.compiler.is_compiling() and not ember.compiler.is_dynamo_compiling()
    assert ember.compiler.disable(f) is f and ember.compiler.disable(recursive=False)(f) is f
    assert ember.compiler.allow_in_graph(f) is f and ember.compiler.assume_constant_result(f) is f
    with ember.compiler.set_stance("force_eager"):
        assert f(1) == 2
    with pytest.raises(RuntimeError, match="stance"):
        ember.compiler.set_stance("fastest")
    assert "inductor" in ember.compiler.list_backends()


def test_linalg_errors_are_linalg_error_as_torch():
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    with pytest.raises(ember.linalg.LinAlgError, match="singular"):
        ember.linalg.inv(ember.zeros(2, 2))
    with pytest.raises(ember.linalg.LinAlgError, match="not positive-definite"):
        ember.linalg.cholesky(-ember.eye(2))
    with pytest.raises(ember.linalg.LinAlgError, match="singular"):
        ember.linalg.solve(ember.zeros(2, 2), ember.ones(2))


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the machine without a GPU")
def test_cuda_names_without_a_gpu_raise_where_torch_raises():
    for call in (lambda m: m.get_device_properties(0), lambda m: m.get_device_capability(),
                 lambda m: m.mem_get_info(), lambda m: m.current_stream(), lambda m: m.default_stream(),
                 lambda m: m.Stream(), lambda m: m.Event(enable_timing=True), lambda m: m.initial_seed(),
                 lambda m: m.get_rng_state(), lambda m: m.memory_summary()):
        with pytest.raises((RuntimeError, AssertionError, KeyError)):
            call(torch.cuda)
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            call(ember.cuda)
    for lib in (ember, torch):
        assert lib.cuda.memory_cached() == lib.cuda.max_memory_cached() == 0
        assert lib.cuda.memory_stats_as_nested_dict() == {}
        assert lib.cuda.default_generators == () and lib.cuda.has_half and not lib.cuda.is_tf32_supported()
        lib.cuda.set_rng_state(lib.zeros(8, dtype=lib.uint8))
        with lib.cuda.stream(None):
            pass
    with pytest.raises(RuntimeError, match="record_stream"):
        ember.ones(2).record_stream(None)


def test_cuda_memory_stats_nest_by_their_dotted_names(monkeypatch):
    monkeypatch.setattr(ember.cuda, "memory_stats", lambda device=None: {"a.b.c": 1, "a.b.d": 2, "e": 3})
    assert ember.cuda.memory_stats_as_nested_dict() == {"a": {"b": {"c": 1, "d": 2}}, "e": 3}


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_nn_grad_convolution_gradients_match_torch(dims):
    rng = np.random.default_rng(dims)
    spatial = (9, 8, 7)[:dims]
    x = rng.standard_normal((2, 4) + spatial)
    w = rng.standard_normal((6, 2) + (3,) * dims)
    options = {"stride": 2, "padding": 1, "groups": 2}
    conv = getattr(torch.nn.functional, f"conv{dims}d")
    go = rng.standard_normal(tuple(conv(torch.tensor(x), torch.tensor(w), **options).shape))
    ours = getattr(ember.nn.grad, f"conv{dims}d_input")(x.shape, ember.tensor(w), ember.tensor(go), **options)
    theirs = getattr(torch.nn.grad, f"conv{dims}d_input")(x.shape, torch.tensor(w), torch.tensor(go), **options)
    np.testing.assert_allclose(to_numpy(ours), theirs.numpy(), atol=1e-12)
    ours = getattr(ember.nn.grad, f"conv{dims}d_weight")(ember.tensor(x), w.shape, ember.tensor(go), **options)
    theirs = getattr(torch.nn.grad, f"conv{dims}d_weight")(torch.tensor(x), w.shape, torch.tensor(go), **options)
    np.testing.assert_allclose(to_numpy(ours), theirs.numpy(), atol=1e-12)
    with pytest.raises(RuntimeError, match="grad_output has shape"):
        getattr(ember.nn.grad, f"conv{dims}d_input")(x.shape, ember.tensor(w), ember.ones(1, dtype=ember.float64),
                                                   **options)


def test_model_ensembles_with_stack_module_state_and_vmap():
    from ember.func import functional_call, stack_module_state, vmap

    ember.manual_seed(0)
    models = [ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2)) for _ in range(3)]
    params, buffers = stack_module_state(models)
    assert params["0.weight"].shape == (3, 4, 3) and params["0.weight"].is_leaf and params["0.weight"].requires_grad
    base = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2)).to("meta")
    x = ember.randn(5, 3)
    out = vmap(lambda p, b: functional_call(base, (p, b), (x,)))(params, buffers)
    for i, model in enumerate(models):
        np.testing.assert_allclose(to_numpy(out[i].detach()), to_numpy(model(x).detach()), atol=1e-6)
    with pytest.raises(RuntimeError, match="at least one model"):
        stack_module_state([])
    models[1].eval()
    with pytest.raises(RuntimeError, match="training/eval mode"):
        stack_module_state(models)


def test_func_linearize_functionalize_and_batch_norm_replacement():
    x = ember.tensor([0.0, 1.0, 2.0], dtype=ember.float64)
    output, jvp_fn = ember.func.linearize(lambda t: t.sin() * t, x)
    theirs = torch.func.linearize(lambda t: t.sin() * t, torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64))
    tangent = np.array([1.0, 0.5, -1.0])
    np.testing.assert_allclose(to_numpy(jvp_fn(ember.tensor(tangent))), theirs[1](torch.tensor(tangent)).numpy())
    np.testing.assert_allclose(to_numpy(output), theirs[0].numpy())
    f = lambda t: t.add_(1)  # noqa: E731
    assert ember.func.functionalize(f) is f
    model = ember.nn.Sequential(ember.nn.Linear(3, 3), ember.nn.BatchNorm1d(3))
    assert ember.func.replace_all_batch_norm_modules_(model) is model
    assert model[1].running_mean is None and not model[1].track_running_stats


def test_legacy_lu_orgqr_and_removed_tensor_methods():
    a = np.random.default_rng(4).standard_normal((3, 3))
    for ours, theirs in zip(ember.lu(ember.tensor(a)), torch.lu(torch.tensor(a))):
        np.testing.assert_allclose(to_numpy(ours), theirs.numpy())
    assert ember.tensor(a).lu(get_infos=True)[2].item() == 0
    assert ember.lu(ember.zeros(2, 2), get_infos=True)[2].item() == torch.lu(torch.zeros(2, 2), get_infos=True)[2].item()
    q, tau = torch.geqrf(torch.tensor(a))
    np.testing.assert_allclose(to_numpy(ember.orgqr(ember.tensor(q.numpy()), ember.tensor(tau.numpy()))),
                               torch.orgqr(q, tau).numpy(), atol=1e-12)
    for name in ("solve", "lstsq", "eig", "symeig"):
        with pytest.raises(RuntimeError, match="is now removed"):
            getattr(ember.tensor(a), name)(ember.tensor(a))


def test_testing_assert_allclose_warns_and_compares_with_the_actual_dtype():
    with pytest.warns(FutureWarning, match="assert_close"):
        ember.testing.assert_allclose(ember.tensor([1.0, 2.0]), [1, 2])
    with pytest.warns(FutureWarning), pytest.raises(AssertionError, match="not close"):
        ember.testing.assert_allclose(ember.tensor([1.0, 2.0]), [1, 3])


def test_conv_weight_memory_format_and_convert_parameters():
    model = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3), ember.nn.ReLU(),
                                ember.nn.Sequential(ember.nn.ConvTranspose2d(4, 2, 3)))
    x = ember.randn(1, 3, 8, 8)
    before = model(x)
    assert ember.nn.utils.convert_conv2d_weight_memory_format(model, ember.channels_last) is model
    assert model[0].weight.is_contiguous(memory_format=ember.channels_last)
    assert isinstance(model[2][0].weight, ember.nn.Parameter)
    np.testing.assert_allclose(to_numpy(model(x).detach()), to_numpy(before.detach()), atol=1e-6)
    vector = ember.nn.utils.convert_parameters.parameters_to_vector(model.parameters())
    assert vector.shape == (sum(p.numel() for p in model.parameters()),)
    assert ember.nn.UninitializedParameter is ember.nn.parameter.UninitializedParameter


def test_legacy_storage_classes_match_torch():
    for name in ("FloatStorage", "LongStorage", "BoolStorage", "DoubleStorage"):
        ours, theirs = getattr(ember, name), getattr(torch, name)
        assert ours([1, 0, 2]).tolist() == theirs([1, 0, 2]).tolist()
        assert len(ours(4)) == len(theirs(4)) == 4
    assert ember.ones(2).storage_type() is ember.FloatStorage and torch.ones(2).storage_type() is torch.FloatStorage
    assert ember.ones(2, dtype=ember.int64).storage_type().__name__ == torch.ones(2, dtype=torch.int64).storage_type().__name__
    assert isinstance(ember.ones(2).storage(), ember.FloatStorage)
    assert not isinstance(ember.ones(2).storage(), ember.LongStorage)
