"""The lazy device (ember.lazy): ops on "lazy" tensors are recorded into a
graph and run by an executor when a value is needed or at mark_step().

Checked here: every operator database sample gives the CPU's values on the
lazy device under both executors (the built-in one and XLA through jaxlib,
where jax is installed); views and in-place writes keep eager semantics;
autograd and optimizers work through lazy tensors; the same step compiles
once (numbers such as learning rates are graph inputs), a new batch size
once more; fallbacks to eager CPU are counted; the metrics report's format;
the debug dump and the warning for shapes that keep changing.
"""

import doctest
import math
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from opdb import pointwise as oi
from opdb.structured import OPS, representative_samples

try:
    import jax  # noqa: F401
    HAVE_JAX = True
except ImportError:
    HAVE_JAX = False

EXECUTORS = ["builtin", pytest.param("xla", marks=pytest.mark.skipif(not HAVE_JAX, reason="jax is not installed"))]


@pytest.fixture(params=EXECUTORS)
def executor(request):
    before = ember.lazy.get_executor()
    ember.lazy.set_executor(request.param)
    yield request.param
    ember.lazy.set_executor(before)


def to_lazy(x):
    if isinstance(x, ember.Tensor):
        return x.to("lazy")
    if isinstance(x, list):
        return [to_lazy(i) for i in x]
    if isinstance(x, tuple):
        return tuple(to_lazy(i) for i in x)
    if isinstance(x, dict):
        return {k: to_lazy(v) for k, v in x.items()}
    return x


def assert_same(lazy, cpu, what):
    if isinstance(cpu, (tuple, list)):
        assert isinstance(lazy, (tuple, list)) and len(lazy) == len(cpu), what
        for a, b in zip(lazy, cpu):
            assert_same(a, b, what)
        return
    if not isinstance(cpu, ember.Tensor):
        assert lazy == cpu or (isinstance(cpu, float) and math.isnan(cpu) and math.isnan(lazy)), what
        return
    got = lazy.cpu()  # (a tensor made from a Python value the op returned may be on the CPU already)
    assert (tuple(got.shape), got.dtype) == (tuple(cpu.shape), cpu.dtype), what
    a, b = got.resolve_conj().resolve_neg().numpy(), cpu.resolve_conj().resolve_neg().numpy()
    if np.issubdtype(b.dtype, np.inexact):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5, equal_nan=True, err_msg=str(what))
    else:
        np.testing.assert_array_equal(a, b, err_msg=str(what))


# Ops whose results depend on the random generator's state in ways a graph
# run need not reproduce (XLA draws differently).
RANDOM = {"multinomial", "dropout", "rrelu", "bernoulli", "normal", "rand_like", "randn_like", "randint_like"}
# Arguments that must stay on the CPU, as in torch (tensor_split's split points).
CPU_ARGUMENTS = {"tensor_split.tensor"}


# Samples whose eager result depends on a tensor's memory layout, which lazy
# values do not have (as_strided_scatter's window on a transposed self).
LAYOUT_DEPENDENT = {("as_strided_scatter", "transposed_self")}


def _structured_cases():
    for op in sorted(OPS, key=lambda o: o.name):
        if op.name in RANDOM or op.name in CPU_ARGUMENTS:
            continue
        for sample in representative_samples(op):
            if (op.name, sample.desc) in LAYOUT_DEPENDENT:
                continue
            yield pytest.param(op, sample, id=f"{op.name}-{sample.desc}")


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("op, sample", list(_structured_cases()))
def test_structured_ops_give_the_cpu_results(op, sample, executor):
    args, kwargs = sample.materialize(ember)
    try:
        cpu = op.call(ember, args, kwargs)
    except Exception as e:
        with pytest.raises(type(e)):
            op.call(ember, to_lazy(args), to_lazy(kwargs))
        return
    lazy = op.call(ember, to_lazy(args), to_lazy(kwargs))
    assert_same(lazy, cpu, (op.name, sample.desc))


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("op", oi.OPS, ids=lambda op: op.name)
def test_pointwise_ops_give_the_cpu_results(op, executor):
    d = "float32" if "float32" in op.dtypes else op.dtypes[-1]
    for sample in op.samples(d)[::3]:
        args, kwargs = sample.materialize(ember)
        cpu = op(ember, *args, **kwargs)
        lazy = op(ember, *to_lazy(args), **to_lazy(kwargs))
        assert lazy.device.type == "lazy", (op.name, sample)
        assert_same(lazy, cpu, (op.name, sample))
        if op.has_inplace and isinstance(args[0], ember.Tensor):
            try:
                expected = op.call_inplace(ember, [args[0].clone()] + list(args[1:]), kwargs)
            except Exception as e:
                with pytest.raises(type(e)):
                    op.call_inplace(ember, to_lazy([args[0].clone()] + list(args[1:])), to_lazy(kwargs))
                continue
            target = args[0].clone().to("lazy")
            result = op.call_inplace(ember, [target] + to_lazy(list(args[1:])), to_lazy(kwargs))
            assert result is target
            assert_same(target, expected, (op.name, "in place", sample))


# ---- memory semantics ---------------------------------------------------------------


def test_writes_through_views_reach_the_base_and_other_views(executor):
    def run(device):
        base = ember.arange(12.0).view(3, 4).to(device)
        row, col, block = base[1], base[:, 2], base[1:, 1:3]
        window = base.t().as_strided((2, 2), (1, 4), 1)  # addresses the memory, not the transposed values
        row.mul_(10)
        col.add_(100)
        block.t().sub_(0.5)
        base.view(-1)[::5].neg_()
        window.add_(1000)
        return [base, row, col, block, window]

    expected = run("cpu")
    assert_same(run("lazy"), expected, "views")


def test_aliases_see_writes_and_copies_do_not(executor):
    x = ember.ones(4, device="lazy")
    alias, copy = x.detach(), x.clone()
    x.add_(1)
    assert alias.cpu().tolist() == [2.0] * 4
    assert copy.cpu().tolist() == [1.0] * 4
    alias.mul_(3)
    assert x.cpu().tolist() == [6.0] * 4


def test_cpu_data_is_copied_at_upload_and_download():
    cpu = ember.zeros(3)
    lazy = cpu.to("lazy")
    cpu.fill_(5)
    assert lazy.cpu().tolist() == [0.0] * 3
    back = lazy.cpu()
    back.fill_(7)
    assert lazy.cpu().tolist() == [0.0] * 3
    target = ember.empty(3)
    target.copy_(lazy + 2)
    assert target.tolist() == [2.0] * 3


def test_saving_a_lazy_tensor_saves_its_values(tmp_path):
    x = (ember.arange(4.0) * 2).to("lazy")
    ember.save({"x": x, "view": x[1:]}, tmp_path / "t.ember")
    loaded = ember.load(tmp_path / "t.ember")
    assert loaded["x"].tolist() == [0.0, 2.0, 4.0, 6.0] and loaded["view"].tolist() == [2.0, 4.0, 6.0]


def test_printing_and_item_materialize():
    x = ember.tensor([1.0, 2.0]).to("lazy") * 2
    assert repr(x) == "tensor([2., 4.], device='lazy:0')"
    assert x.sum().item() == 6.0
    assert x.tolist() == [2.0, 4.0]
    with pytest.raises(TypeError, match="cpu"):
        x.numpy()


# ---- training -----------------------------------------------------------------------


def _train(device, steps=4, batch=8, lr=0.05, optimizer=ember.optim.SGD, mark_step=True):
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)).to(device)
    opt = optimizer(model.parameters(), lr=lr)
    data = ember.randn(steps, batch, 3)
    targets = ember.randint(0, 2, (steps, batch))
    losses = []
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr / (step + 1)  # a new learning rate each step: an input, not a recompile
        loss = F.cross_entropy(model(data[step].to(device)), targets[step].to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if device == "lazy" and mark_step:
            ember.lazy.mark_step()
        losses.append(loss.item())
    return losses, [p.detach().cpu() for p in model.parameters()]


@pytest.mark.parametrize("optimizer", [ember.optim.SGD, ember.optim.Adam, ember.optim.AdamW])
def test_training_matches_the_cpu(optimizer, executor):
    cpu_losses, cpu_params = _train("cpu", optimizer=optimizer)
    lazy_losses, lazy_params = _train("lazy", optimizer=optimizer)
    np.testing.assert_allclose(lazy_losses, cpu_losses, rtol=1e-5, atol=1e-6)
    for a, b in zip(lazy_params, cpu_params):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_second_step_compiles_nothing_and_a_new_batch_size_compiles_once(executor):
    _train("lazy", steps=2)  # compiles whatever the first steps need
    ember.lazy.metrics.reset()
    _train("lazy", steps=3)
    assert ember.lazy.metrics.counter_value("UncachedCompile") is None
    assert ember.lazy.metrics.counter_value("CachedCompile") >= 3
    _train("lazy", steps=2, batch=5)
    compiled = ember.lazy.metrics.counter_value("UncachedCompile")
    _train("lazy", steps=3, batch=5)
    assert ember.lazy.metrics.counter_value("UncachedCompile") == compiled


@pytest.mark.parametrize("decoupled", [False, True], ids=["Adam", "AdamW"])
def test_adam_records_one_fused_step_per_parameter(decoupled, executor):
    """_adam_step_ writes its moments without returning them: the node's
    outputs carry their new values, so Adam's fused step is recorded too."""
    ember.manual_seed(0)
    cpu = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    lazy = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    lazy.load_state_dict(cpu.state_dict())
    lazy = lazy.to("lazy")
    make = ember.optim.AdamW if decoupled else ember.optim.Adam
    optimizers = [make(m.parameters(), lr=0.01, weight_decay=0.1) for m in (cpu, lazy)]
    x, y = ember.randn(16, 4), ember.randint(0, 3, (16,))
    for step in range(3):
        for model, opt, device in zip((cpu, lazy), optimizers, ("cpu", "lazy")):
            opt.zero_grad()
            F.cross_entropy(model(x.to(device)), y.to(device)).backward()
            opt.step()
        assert ember.lazy.pending_graph().count("aten::_adam_step_") == 4
        ember.lazy.mark_step()
    for p_cpu, p_lazy in zip(cpu.parameters(), lazy.parameters()):
        assert_same(p_lazy.detach(), p_cpu.detach(), "parameter")
        for name in ("exp_avg", "exp_avg_sq"):
            assert_same(optimizers[1].state[p_lazy][name], optimizers[0].state[p_cpu][name], name)


def test_an_op_that_writes_a_list_it_does_not_return_is_recorded(executor):
    grads = [ember.tensor([1.0, 2.0]), ember.tensor([float("inf"), 1.0])]
    found, inv = ember.zeros(1), ember.tensor(0.5)
    lazy_grads, lazy_found = [g.to("lazy") for g in grads], found.to("lazy")
    ember.lazy.metrics.reset()
    ember._amp_foreach_non_finite_check_and_unscale_(lazy_grads, lazy_found, inv.to("lazy"))
    assert "aten::_amp_foreach_non_finite_check_and_unscale_" in ember.lazy.pending_graph()
    ember._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
    for g_lazy, g_cpu in zip(lazy_grads, grads):
        assert_same(g_lazy, g_cpu, "unscaled gradient")
    assert_same(lazy_found, found, "found_inf")


def test_gradients_match_the_cpu(executor):
    x = ember.randn(4, 3, requires_grad=True)
    w = ember.randn(3, 3, requires_grad=True)
    lx = x.detach().to("lazy").requires_grad_()
    lw = w.detach().to("lazy").requires_grad_()
    (x @ w).softmax(-1).log().sum().backward()
    (lx @ lw).softmax(-1).log().sum().backward()
    assert_same(lx.grad, x.grad, "x.grad")
    assert_same(lw.grad, w.grad, "w.grad")


# ---- fallbacks, metrics, debugging -------------------------------------------------


# ---- errors -----------------------------------------------------------------------


def _out_of_range_cases():
    # (x, a function of the indices' tensor maker t, on x's device)
    yield "index", lambda x, t: x[t([0, 3])]
    yield "index negative", lambda x, t: x[t([-4])]
    yield "index_put", lambda x, t: x.index_put((t([5]),), t(1.0))
    yield "index_select", lambda x, t: x.index_select(1, t([1, 4]))
    yield "index_select negative", lambda x, t: x.index_select(0, t([-1]))
    yield "gather", lambda x, t: x.gather(1, t([[0], [4], [1]]))
    yield "embedding", lambda x, t: F.embedding(t([1, 3]), x)
    yield "cross_entropy", lambda x, t: F.cross_entropy(x, t([0, 4, 1]))
    yield "nll_loss beside an ignored index", lambda x, t: F.nll_loss(x, t([0, -100, 5]))


@pytest.mark.parametrize("case", [c[0] for c in _out_of_range_cases()])
def test_indices_out_of_range_raise_the_eager_error(case, executor):
    """XLA clamps indices; the lazy device raises where eager code does, with its message."""
    fn = dict(_out_of_range_cases())[case]
    x = ember.arange(12.0).reshape(3, 4)
    with pytest.raises(Exception) as eager:
        fn(x, ember.tensor)
    # Recorded: the indices are data, checked when the graph runs.
    lazy = fn(x.to("lazy"), lambda v: ember.tensor(v).to("lazy"))
    with pytest.raises(type(eager.value), match=re.escape(str(eager.value).splitlines()[0])):
        lazy.cpu()


def test_in_range_indices_still_run_compiled(executor):
    ember.lazy.metrics.reset()
    x = ember.arange(12.0).reshape(3, 4)
    idx, cols = ember.tensor([2, 0, -1]), ember.tensor([3, 0])
    assert_same(x.to("lazy")[idx.to("lazy")].index_select(1, cols.to("lazy")), x[idx].index_select(1, cols), "index")
    assert ember.lazy.metrics.fallbacks() == {}


def test_a_failed_run_keeps_what_tensors_held_before_it(executor):
    w = ember.ones(3).to("lazy")
    view = w[1:]
    ember.lazy.mark_step()
    w.mul_(5)  # written in the graph that fails
    fresh = w * 2  # computed by it
    bad = w[ember.tensor([7]).to("lazy")]
    with pytest.raises(IndexError):
        bad.cpu()
    assert w.cpu().tolist() == [1.0, 1.0, 1.0]  # as before the failed graph
    assert view.cpu().tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="this lazy tensor has no value: the graph run that was to compute it failed"):
        fresh.cpu()
    with pytest.raises(RuntimeError, match="has no value"):
        fresh + 1
    fresh.copy_(ember.zeros(3))  # a new value makes it usable again
    assert (fresh + w).cpu().tolist() == [1.0, 1.0, 1.0]
    assert (w * 3).sum().item() == 9.0  # later steps run as usual


def test_ops_without_a_recording_fall_back_to_the_cpu_and_are_counted():
    ember.lazy.metrics.reset()
    x = ember.tensor([0.0, 1.5, 0.0, 2.0]).to("lazy")
    nz = x.nonzero()
    assert nz.device.type == "lazy"
    assert nz.cpu().tolist() == [[1], [3]]
    assert ember.lazy.metrics.fallbacks() == {"aten::nonzero": 1}
    assert "Counter: Fallback::aten::nonzero\n  Value: 1\n" in ember.lazy.metrics.report()


def test_metrics_report_format():
    ember.lazy.set_executor("builtin")
    ember.lazy.metrics.reset()
    x = ember.ones(2, 2).to("lazy")
    (x * 3).sum().item()
    (x * 3).sum().item()
    report = re.sub(r"\d+\.\d+m?s", "<time>", ember.lazy.metrics.report())
    assert report == """\
Metric: CompileTime
  TotalSamples: 1
  Accumulator: <time>
  Mean: <time>
  Max: <time>
Metric: ExecuteTime
  TotalSamples: 2
  Accumulator: <time>
  Mean: <time>
  Max: <time>
Metric: GraphSize
  TotalSamples: 2
  Accumulator: 4
  Mean: 2
  Max: 2
Counter: CachedCompile
  Value: 1
Counter: ExecuteCount
  Value: 2
Counter: TransferFromDevice
  Value: 2
Counter: TransferToDevice
  Value: 1
Counter: UncachedCompile
  Value: 1
"""


def test_docstring_examples_run():
    for module in (ember.lazy, ember.lazy.metrics):
        failures, tried = doctest.testmod(module, extraglobs={"ember": ember}, optionflags=doctest.ELLIPSIS)
        assert tried and not failures, module.__name__


def test_unknown_executor_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown executor 'tpu' \\(known: builtin"):
        ember.lazy.set_executor("tpu")


def test_changing_shapes_warn_with_the_shape_that_changed():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(2, 8):
            (ember.ones(n).to("lazy") * 2).sum().item()  # each length a new graph
    messages = [str(w.message) for w in caught if "ember.lazy" in str(w.message)]
    assert messages, "no warning about recompilation"
    assert "test_lazy.py" in messages[0]
    assert re.search(r"input \d+ was Float\(\d+, device=lazy:0\) and is now Float\(\d+, device=lazy:0\)", messages[0])


@pytest.mark.parametrize("executor_name", EXECUTORS)
def test_debug_dump_shows_each_graph_with_its_source_lines(executor_name):
    code = ("import ember\n"
            f"ember.lazy.set_executor({executor_name!r})\n"
            "x = ember.ones(3).to('lazy')\n"
            "y = (x * 2).exp()\n"
            "print(y.sum().item())\n")
    env = dict(os.environ, EMBER_LAZY_DEBUG="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "[ember.lazy] compiling graph:" in out.stderr
    assert re.search(r"aten::exp\(%\d+\)  # <string>:4", out.stderr), out.stderr
    if executor_name == "xla":
        assert "stablehlo.exponential" in out.stderr
