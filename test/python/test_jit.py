"""ember.jit.trace: programs recorded from Python run like the eager code on
new inputs, with autograd, after save/load in Python and from C++ without
Python (ember_cpp_tests' TracedPrograms); the graph passes keep results."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("EMBER_BUILD_DIR", ROOT / "build")) / "test" / "cpp" / "ember_cpp_tests"


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x), approximate="tanh")).log_softmax(-1)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 8, 3, stride=2), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        return self.head(self.pool(self.features(x)).flatten(1))


def _models():
    ember.manual_seed(0)
    transformer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, batch_first=True,
                                             activation="gelu")
    return {"mlp": (MLP(), (6, 8)), "cnn": (CNN().eval(), (2, 3, 12, 12)),
            "transformer": (transformer.eval(), (2, 5, 16))}


@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer"])
def test_traced_model_matches_eager_on_new_inputs_and_after_save_load(name, tmp_path):
    model, shape = _models()[name]
    traced = ember.jit.trace(model, ember.randn(*shape))
    assert list(traced.state_dict()) == list(model.state_dict())
    name = type(model).__name__
    assert repr(traced).startswith(f"{name}(\n  original_name={name}\n")  # torch's form
    x = ember.randn(*shape)
    with ember.no_grad():
        expected = model(x)
        np.testing.assert_allclose(traced(x).numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)
        ember.jit.save(traced, tmp_path / "m.ember")
        loaded = ember.jit.load(tmp_path / "m.ember")
        np.testing.assert_array_equal(loaded(x).numpy(), traced(x).numpy())
        assert str(loaded.graph) == str(traced.graph)
        optimized = ember.jit.optimize_for_inference(ember.jit.load(tmp_path / "m.ember"))
        np.testing.assert_allclose(optimized(x).numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)


def test_traced_module_trains_like_the_eager_one():
    ember.manual_seed(1)
    model = MLP()
    traced = ember.jit.trace(model, ember.randn(3, 8))
    x, y = ember.randn(5, 8), ember.randint(0, 4, (5,))
    F.nll_loss(traced(x), y).backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}  # the traced module shares the tensors
    model.zero_grad()
    F.nll_loss(model(x), y).backward()
    for n, p in model.named_parameters():
        np.testing.assert_allclose(grads[n].numpy(), p.grad.numpy(), rtol=1e-6, atol=1e-7, err_msg=n)


def test_graph_prints_ops_with_their_constants():
    def f(x, y):
        return (x * y + x).relu().sum(1, keepdim=True)

    traced = ember.jit.trace(f, (ember.randn(2, 3), ember.randn(2, 3)))
    assert str(traced.graph) == """graph(%x : Float(2, 3), %y : Float(2, 3)):
  %0 : Float(2, 3) = aten::mul.Tensor(%x, %y)
  %1 : Float(2, 3) = aten::add.Tensor(%0, %x, alpha=1)
  %2 : Float(2, 3) = aten::relu(%1)
  %3 : Float(2, 1) = aten::sum.dim_IntList(%2, [1], True, dtype=None)
  return (%3)
"""
    a, b = ember.randn(2, 3), ember.randn(2, 3)
    assert ember.equal(traced(a, b), f(a, b))


def test_views_and_in_place_writes_replay_faithfully():
    def f(x):
        y = x.clone()
        y[0] = 0.0
        y[:, 1:].mul_(2)
        return y.t(), x.sum()

    traced = ember.jit.trace(f, ember.randn(3, 4))
    x = ember.randn(3, 4)
    for got, expected in zip(traced(x), f(x)):
        assert ember.equal(got, expected)
    ember.jit.optimize_for_inference(traced)
    for got, expected in zip(traced(x), f(x)):
        assert ember.equal(got, expected)


def test_passes_fold_merge_and_drop_and_keep_results():
    def f(x):
        scale = ember.arange(4.0) + 1  # no inputs: folded to a constant
        _ = x.exp()  # dead
        return x.tanh() * scale + x.tanh() * scale  # merged

    traced = ember.jit.trace(f, ember.randn(4, 4))
    x = ember.randn(4, 4)
    before = traced(x)
    ember.jit.optimize_for_inference(traced)
    # folded, merged (one tanh), dropped (no exp), and the rest fused into one loop
    assert traced.graph.node_kinds() == ["prim::Constant", "aten::_fused_elementwise"]
    assert str(traced.graph).count("tanh(") == 1 and "exp" not in str(traced.graph)
    assert ember.equal(traced(x), before)


def test_data_dependent_python_values_warn():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x

    with pytest.warns(ember.jit.TracerWarning, match="aten::item"):
        ember.jit.trace(f, ember.ones(3))


def test_is_tracing_inside_trace_only():
    seen = []

    def f(x):
        seen.append(ember.jit.is_tracing())
        return x + 1

    ember.jit.trace(f, ember.ones(1))
    assert seen == [True] and ember.jit.is_tracing() is False


def test_bad_uses_are_clear_errors(tmp_path):
    weight = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad but is neither an input nor a parameter"):
        ember.jit.trace(lambda x: x * weight, ember.ones(3))
    assert not ember.jit.is_tracing()
    with pytest.raises(TypeError, match="must be a tensor or a"):
        ember.jit.trace(lambda x: {"out": x}, ember.ones(3))
    traced = ember.jit.trace(lambda x: x + 1, ember.ones(3))
    with pytest.raises(TypeError, match="takes 1 inputs but got 2"):
        traced(ember.ones(3), ember.ones(3))
    ember.jit.save(traced, tmp_path / "p.ember")
    raw = ember.load(tmp_path / "p.ember")
    raw["ember_program"] = 99
    ember.save(raw, tmp_path / "newer.ember")
    with pytest.raises(ValueError, match="layout version 99, newer than this build"):
        ember.jit.load(tmp_path / "newer.ember")
    raw["ember_program"] = 1
    raw["nodes"][0] = ("aten::not_an_op",) + tuple(raw["nodes"][0][1:])
    ember.save(raw, tmp_path / "unknown.ember")
    with pytest.raises(ValueError, match="calls the operator aten::not_an_op"):
        ember.jit.load(tmp_path / "unknown.ember")
    ember.save({"weight": ember.ones(2)}, tmp_path / "state.ember")
    with pytest.raises(ValueError, match="is not an Ember program"):
        ember.jit.load(tmp_path / "state.ember")


def test_export_op_list_holds_what_the_program_and_its_kernels_call(tmp_path):
    sys.path.insert(0, str(ROOT))
    from tools.codegen.gen import load_op_allowlist

    traced = ember.jit.trace(MLP(), ember.randn(2, 8))
    names = ember.jit.export_op_list(traced, tmp_path / "ops.yaml")
    assert {"aten::linear", "aten::gelu", "aten::log_softmax.int"} <= set(names)  # the graph's own
    assert "aten::addmm" in names  # what linear's kernel calls
    assert "aten::empty" in names  # what loading the program file calls
    assert names == sorted(set(names))
    assert load_op_allowlist(str(tmp_path / "ops.yaml")) == set(names)  # the selective build reads the file


@pytest.mark.skipif(not BINARY.exists(), reason="needs the C++ test binary of a source build")
def test_programs_traced_in_python_run_from_cpp(tmp_path):
    outputs = {}
    for name, (model, shape) in _models().items():
        traced = ember.jit.trace(model, ember.randn(*shape))
        x = ember.randn(*shape)
        ember.jit.save(traced, tmp_path / f"{name}.ember")
        ember.save({"x": x}, tmp_path / f"{name}_input.ember")
        with ember.no_grad():
            outputs[name] = model(x)
    done = subprocess.run([str(BINARY), "--gtest_filter=TracedPrograms.*", "--gtest_brief=1"],
                          env={**os.environ, "EMBER_TRACED_DIR": str(tmp_path)}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for name, expected in outputs.items():
        got = ember.load(tmp_path / f"{name}_cpp_output.ember")["output"]
        np.testing.assert_array_equal(got.numpy(), expected.numpy(), err_msg=name)


def _new_gelu(x):
    """GPT-2's GELU as scripts write it: eight pointwise ops."""
    return 0.5 * x * (1.0 + (0.7978845608028654 * (x + 0.044715 * x.pow(3))).tanh())


def test_fusion_turns_pointwise_chains_into_one_loop():
    def block(x, w, b):
        return _new_gelu(x @ w + b).sum(-1)

    x, w, b = ember.randn(16, 8), ember.randn(8, 32), ember.randn(32)
    traced = ember.jit.trace(block, (x, w, b))
    ember.jit.optimize_for_inference(traced)
    assert traced.graph.node_kinds() == ["aten::matmul", "aten::_fused_elementwise", "aten::sum.dim_IntList"]
    x2 = ember.randn(16, 8)
    np.testing.assert_allclose(traced(x2, w, b).numpy(), block(x2, w, b).numpy(), rtol=1e-5, atol=1e-5)


def test_fusion_leaves_values_read_elsewhere_and_written_memory():
    def f(x):
        y = x.sigmoid() * 2
        z = (y + 1).tanh()
        return z, y  # y is an output: its chain ends there

    traced = ember.jit.trace(f, ember.randn(4, 4))
    ember.jit.optimize_for_inference(traced)
    assert traced.graph.node_kinds() == ["aten::_fused_elementwise", "aten::_fused_elementwise"]
    x = ember.randn(4, 4)
    for got, expected in zip(traced(x), f(x)):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)

    def g(x):
        y = x.exp() + 1
        y.mul_(2)  # a write: nothing around it moves
        return y.relu() * 3

    traced = ember.jit.trace(g, ember.randn(5))
    ember.jit.optimize_for_inference(traced)
    assert "aten::mul_.Tensor" in traced.graph.node_kinds()
    x = ember.randn(5)
    np.testing.assert_allclose(traced(x).numpy(), g(x).numpy(), rtol=1e-6)


_FUSED_OPS = {  # the fused kernel's code words and NumPy's meaning of each
    "neg": np.negative, "relu": lambda a: np.maximum(a, 0), "exp": np.exp, "log": np.log, "tanh": np.tanh,
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "silu": lambda a: a / (1 + np.exp(-a)),
    "sqrt": np.sqrt, "rsqrt": lambda a: 1 / np.sqrt(a), "abs": np.abs, "reciprocal": lambda a: 1 / a,
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power,
    "maximum": np.maximum, "minimum": np.minimum,
}


@pytest.mark.parametrize("op", sorted(_FUSED_OPS))
def test_fused_kernel_ops_match_numpy_with_broadcast_and_strides(op):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2.0, (300, 7)).astype(np.float32)  # runs longer than a block, and a transposed read
    b = rng.uniform(0.5, 2.0, (7,)).astype(np.float32)
    ea = ember.from_numpy(a.T.copy()).t()
    binary = op in ("add", "sub", "mul", "div", "pow", "maximum", "minimum")
    code = f"{op}(%0,%1);mul($0,2.5)" if binary else f"{op}(%0);mul($0,2.5)"
    got = ember._fused_elementwise([ea, ember.from_numpy(b)], code)
    expected = (_FUSED_OPS[op](a, b) if binary else _FUSED_OPS[op](a)) * 2.5
    np.testing.assert_allclose(got.numpy(), expected, rtol=2e-6, atol=1e-6)
    assert got.shape == (300, 7)


def test_fused_kernel_rejects_bad_code_and_dtypes():
    x = ember.ones(3)
    for code, message in (("frob(%0)", "unknown op \"frob\""), ("add(%0)", "add takes 2 operands but got 1"),
                          ("tanh(%1)", "operand %1 names input of 1 inputs"), ("tanh($0)", "names result of 0"),
                          ("tanh(x)", "bad operand x"), ("", "the code holds no instruction")):
        with pytest.raises((ValueError, IndexError), match=message.replace("(", r"\(")):
            ember._fused_elementwise([x], code)
    with pytest.raises(TypeError, match="expected float32 inputs, but input 0 is float64"):
        ember._fused_elementwise([x.double()], "tanh(%0)")


def test_python_numbers_are_recorded_as_numbers_and_promote_as_numbers(tmp_path):
    traced = ember.jit.trace(lambda a: a * 2.5 + 1, ember.ones(3, dtype=ember.int32))
    assert "aten::mul.Tensor(%a, 2.5)" in str(traced.graph)
    x = ember.arange(3, dtype=ember.int32)
    ember.jit.save(traced, tmp_path / "p.ember")
    for program in (traced, ember.jit.load(tmp_path / "p.ember")):
        out = program(x)
        assert out.dtype == ember.float32 and ember.equal(out, x * 2.5 + 1)


def test_traced_module_reads_its_current_tensors_at_each_call():
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    traced = ember.jit.trace(model, ember.randn(2, 4))
    x = ember.randn(5, 4)
    getattr(traced, "2").bias = nn.Parameter(ember.full([2], 7.0))  # a replaced parameter is seen
    with ember.no_grad():
        model[2].bias.fill_(7.0)
        assert ember.equal(traced(x), model(x))
        other = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
        traced.load_state_dict(other.state_dict())  # and so are loaded values
        assert ember.equal(traced(x), other(x))
