"""The schema model and code generator in tools/codegen."""

import os
import re
import sys
import textwrap

import pytest
import yaml
from expecttest import TestCase

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tools.codegen import autograd as autograd_gen, gen, python as pygen  # noqa: E402
from tools.codegen.model import Kernel, SchemaError, parse_native_functions, parse_schema  # noqa: E402
from tools.codegen.yaml_source import load_entries, parse_entries  # noqa: E402

import ember  # noqa: E402

YAML_PATH = os.path.join(ROOT, "native_functions.yaml")


def all_yaml_schemas():
    with open(YAML_PATH) as f:
        return [entry["func"] for entry in yaml.safe_load(f)]


class TestSchemaParser(TestCase):
    def test_round_trips_every_schema_in_the_yaml(self):
        for text in all_yaml_schemas():
            self.assertEqual(str(parse_schema(text)), text)

    def test_python_and_cpp_parsers_agree(self):
        for text in all_yaml_schemas():
            self.assertEqual(ember._C._parse_schema(text), "aten::" + str(parse_schema(text)))

    def test_canonical_form(self):
        s = parse_schema("sum.dim_IntList( Tensor self,int[1]? dim,bool keepdim=False,*,ScalarType? dtype=None )->Tensor")
        self.assertExpectedInline(
            str(s), """sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor""")
        self.assertExpectedInline(
            repr(s.arguments[1]),
            """Argument(name='dim', type=Type(base='int', elem_optional=False, is_list=True, list_size=1, optional=True), alias=None, default=None, kwarg_only=False)""")

    def test_annotations_and_returns(self):
        s = parse_schema("max.dim(Tensor(a!) self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
        self.assertTrue(s.arguments[0].is_write)
        self.assertExpectedInline(", ".join(str(r) for r in s.returns), """Tensor values, Tensor indices""")
        self.assertEqual(str(parse_schema("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor").arguments[1].type),
                         "Tensor?[]")
        self.assertEqual(str(parse_schema("f() -> ()")), "f() -> ()")

    def test_errors_name_the_problem(self):
        with self.assertRaises(SchemaError) as e:
            parse_schema("bad(Tensr self) -> Tensor")
        self.assertExpectedInline(str(e.exception), """unknown type 'Tensr'""")
        with self.assertRaises(SchemaError) as e:
            parse_native_functions([{"func": "f(Tensor x) -> Tensor"}, {"func": "f(Tensor y) -> Tensor"}])
        self.assertExpectedInline(str(e.exception), """duplicate operator f""")
        with pytest.raises(ValueError, match="unknown dispatch key"):
            ember.library.Library("dummy_ns", "IMPL", "NoSuchKey")


TINY_YAML = [
    {"func": "scale(Tensor self, float factor=2, *, Scalar shift=0) -> Tensor", "variants": "function, method",
     "dispatch": {"CPU, Meta": "scale"}},
    {"func": "scale.out(Tensor self, float factor=2, *, Scalar shift=0, Tensor(a!) out) -> Tensor(a!)"},
    {"func": "grid(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
     "dispatch": {"CompositeExplicitAutograd": "grid"}},
]


class TestGeneratedCode(TestCase):
    def setUp(self):
        self.functions = parse_native_functions(TINY_YAML)

    def test_cpp_api(self):
        self.assertExpectedInline(gen.gen_functions_h(self.functions).split("namespace ember {\n", 1)[1], """\

// scale(Tensor self, float factor=2, *, Scalar shift=0) -> Tensor
Tensor scale(const Tensor& self, double factor = 2, const Scalar& shift = 0);
// scale.out(Tensor self, float factor=2, *, Scalar shift=0, Tensor(a!) out) -> Tensor(a!)
Tensor scale_out(const Tensor& out, const Tensor& self, double factor = 2, const Scalar& shift = 0);
Tensor scale_outf(const Tensor& self, double factor, const Scalar& shift, const Tensor& out);
// grid(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor
Tensor grid(IntArrayRef size, TensorOptions options = {});
Tensor grid(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device);

}  // namespace ember
""")

    def test_registrations(self):
        self.assertExpectedInline(gen.gen_register_cpp(self.functions).split("namespace {\n", 1)[1], """\

EMBER_LIBRARY(aten, m) {
  m.def("scale(Tensor self, float factor=2, *, Scalar shift=0) -> Tensor");
  m.def("scale.out(Tensor self, float factor=2, *, Scalar shift=0, Tensor(a!) out) -> Tensor(a!)");
  m.def("grid(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor");
}

EMBER_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("scale", static_cast<Tensor(*)(const Tensor&, double, const Scalar&)>(&native::scale));
}

EMBER_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("grid", static_cast<Tensor(*)(IntArrayRef, std::optional<ScalarType>, std::optional<Device>)>(&native::grid));
}

EMBER_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("scale.out", static_cast<Tensor(*)(const Tensor&, double, const Scalar&, const Tensor&)>(&native::scale_out));
}

EMBER_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("scale", static_cast<Tensor(*)(const Tensor&, double, const Scalar&)>(&native::scale));
}

}  // namespace
}  // namespace ember
""")

    def test_python_bindings(self):
        self.assertExpectedInline(pygen.gen_bindings(self.functions).split("void init_generated_functions", 1)[1], """\
(py::module_& m) {
  py::options options;
  options.disable_function_signatures();
  m.def("scale", [](const Tensor& self, double factor, c10::Scalar shift, std::optional<Tensor> out) -> Tensor {
    if (out) return without_gil([&] { return ember::scale_outf(self, factor, shift, *out); });
    return without_gil([&] { return ember::scale(self, factor, shift); });
  }, py::arg("input"), py::arg("factor") = 2.0, py::kw_only(), py::arg("shift") = 0, py::arg("out") = py::none(), R"doc(scale(Tensor input, float factor=2, *, Number shift=0, Tensor out=None) -> Tensor
)doc");
  m.def("grid", [](const py::args& size_varargs, std::optional<c10::ScalarType> dtype, std::optional<c10::Device> device, bool requires_grad) -> Tensor {
    const IntList size{shape_from_args(size_varargs, "grid", "size")};
    Tensor result = without_gil([&] { return ember::grid(size, dtype, device); });
    if (requires_grad) result.set_requires_grad(true);
    return result;
  }, py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false, R"doc(grid(*size, dtype dtype=None, device device=None, bool requires_grad=False) -> Tensor
)doc");
  explain_mismatches(m, "scale", {{{"input", "Tensor", &accepts<Tensor>, nullptr, false}, {"factor", "float", &accepts<double>, "2", false}, {"shift", "Number", &accepts<c10::Scalar>, "0", true}, {"out", "Tensor", &accepts<std::optional<Tensor>>, "None", true}}});
  m.attr("_generated_functions") = py::make_tuple("scale", "grid");
}

void init_generated_methods(TensorClass& cls) {
  py::options options;
  options.disable_function_signatures();
  cls.def("scale", [](const Tensor& self, double factor, c10::Scalar shift) -> Tensor {
    return without_gil([&] { return ember::scale(self, factor, shift); });
  }, py::arg("factor") = 2.0, py::kw_only(), py::arg("shift") = 0, R"doc(scale(float factor=2, *, Number shift=0) -> Tensor
)doc");
  explain_mismatches(cls, "scale", {{{"factor", "float", &accepts<double>, "2", false}, {"shift", "Number", &accepts<c10::Scalar>, "0", true}}});
  cls.attr("_generated_methods") = py::make_tuple("scale");
}

namespace {
const FastCall kFastFunctions[] = {
  {"scale", 1, [](const Tensor* t) -> Tensor { return ember::scale(t[0], double(2), Scalar(0)); }, nullptr},
};
const FastCall kFastMethods[] = {
  {"scale", 1, [](const Tensor* t) -> Tensor { return ember::scale(t[0], double(2), Scalar(0)); }, nullptr},
};
}  // namespace

void init_fast_calls(py::module_& m) {
  FastCallTable<kFastFunctions, std::size(kFastFunctions)>::install(m, false, std::make_index_sequence<std::size(kFastFunctions)>{});
  FastCallTable<kFastMethods, std::size(kFastMethods)>::install(m.attr("Tensor"), true, std::make_index_sequence<std::size(kFastMethods)>{});
}

}  // namespace ember::python
""")

    def test_outputs_are_only_rewritten_when_they_change(self, tmp_path=None):
        import tempfile

        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "x", "f.h")
            gen.write_if_changed(path, "a")
            before = os.stat(path).st_mtime_ns
            os.utime(path, ns=(before - 10**9, before - 10**9))
            gen.write_if_changed(path, "a")
            self.assertEqual(os.stat(path).st_mtime_ns, before - 10**9)
            gen.write_if_changed(path, "b")
            with open(path) as f:
                self.assertEqual(f.read(), "b")


AUTOGRAD_YAML = [
    {"func": "scale(Tensor self, float factor=2, *, Scalar shift=0) -> Tensor", "dispatch": {"CPU": "scale"}},
    {"func": "scale_(Tensor(a!) self, float factor=2, *, Scalar shift=0) -> Tensor(a!)", "dispatch": {"CPU": "scale_"}},
    {"func": "narrow_view(Tensor(a) self, int length) -> Tensor(a)", "dispatch": {"CompositeExplicitAutograd": "nv"}},
]
AUTOGRAD_DERIVATIVES = [
    {"name": "scale(Tensor self, float factor=2, *, Scalar shift=0) -> Tensor", "self": "grad * factor + 0 * self"},
    {"name": "narrow_view(Tensor(a) self, int length) -> Tensor(a)", "self": "pad_back(grad, self.sizes())"},
]


class TestGeneratedAutograd(TestCase):
    def setUp(self):
        self.generated = autograd_gen.generate(parse_native_functions(AUTOGRAD_YAML), AUTOGRAD_DERIVATIVES)

    def test_nodes(self):
        self.assertExpectedInline(self.generated["Functions.h"].split("generated {\n", 1)[1], """\

struct ScaleBackward0 final : Node {
  std::string name() const override { return "ScaleBackward0"; }
  void release_variables() override;
  SavedVariable self_;
  double factor;
 protected:
  variable_list apply(variable_list&& grads) override;
};

struct NarrowViewBackward0 final : Node {
  std::string name() const override { return "NarrowViewBackward0"; }
  void release_variables() override;
  std::vector<int64_t> self_sizes;
 protected:
  variable_list apply(variable_list&& grads) override;
};

}  // namespace ember::autograd::generated
""")
        self.assertExpectedInline(self.generated["Functions.cpp"].split("manual;\n", 1)[1], """\

void ScaleBackward0::release_variables() {
  self_.reset_data();
}

variable_list ScaleBackward0::apply(variable_list&& grads) {
  variable_list grad_inputs(num_outputs());
  if (!materialize_grads(*this, grads)) return grad_inputs;
  [[maybe_unused]] const Tensor& grad = grads[0];
  [[maybe_unused]] const auto self_node = shared_from_this();
  Tensor self = self_.unpack();
  if (should_compute_output(0)) grad_inputs[0] = grad * factor + 0 * self;
  return grad_inputs;
}

void NarrowViewBackward0::release_variables() {
}

variable_list NarrowViewBackward0::apply(variable_list&& grads) {
  variable_list grad_inputs(num_outputs());
  if (!materialize_grads(*this, grads)) return grad_inputs;
  [[maybe_unused]] const Tensor& grad = grads[0];
  [[maybe_unused]] const auto self_node = shared_from_this();
  if (should_compute_output(0)) grad_inputs[0] = pad_back(grad, self_sizes);
  return grad_inputs;
}

}  // namespace ember::autograd::generated
""")

    def test_kernels(self):
        self.assertExpectedInline(self.generated["VariableType.cpp"].split("manual;\n", 1)[1], """\

Tensor scale(c10::DispatchKeySet ks, const Tensor& self, double factor, const Scalar& shift) {
  static const auto op = Dispatcher::singleton().findTyped<Tensor(const Tensor&, double, const Scalar&)>("aten::scale", "");
  const bool requires_grad = compute_requires_grad(self);
  std::shared_ptr<ScaleBackward0> grad_fn;
  if (requires_grad) {
    grad_fn = std::make_shared<ScaleBackward0>();
    grad_fn->set_next_edges(collect_next_edges(self));
    grad_fn->self_ = SavedVariable(self, false);
    grad_fn->factor = factor;
  }
  auto result = [&] {
    c10::ExcludeDispatchKeyGuard guard(c10::DispatchKey::Autograd);
    return op.redispatch(below_autograd(ks), self, factor, shift);
  }();
  if (result.is_same(self)) return result;
  if (grad_fn && is_differentiable_type(result)) {
    set_history(result, grad_fn);
  }
  return result;
}

Tensor scale_(c10::DispatchKeySet ks, const Tensor& self, double factor, const Scalar& shift) {
  static const auto op = Dispatcher::singleton().findTyped<Tensor(const Tensor&, double, const Scalar&)>("aten::scale_", "");
  const bool requires_grad = compute_requires_grad(self);
  check_inplace(self, requires_grad);
  std::shared_ptr<ScaleBackward0> grad_fn;
  if (requires_grad) {
    grad_fn = std::make_shared<ScaleBackward0>();
    grad_fn->set_next_edges(collect_next_edges(self));
    grad_fn->self_ = SavedVariable(self.clone(), false);
    grad_fn->factor = factor;
  }
  auto result = [&] {
    c10::ExcludeDispatchKeyGuard guard(c10::DispatchKey::Autograd);
    return op.redispatch(below_autograd(ks), self, factor, shift);
  }();
  if (grad_fn) {
    rebase_history(self, grad_fn);
  }
  return result;
}

Tensor narrow_view(c10::DispatchKeySet ks, const Tensor& self, int64_t length) {
  static const auto op = Dispatcher::singleton().findTyped<Tensor(const Tensor&, int64_t)>("aten::narrow_view", "");
  const bool requires_grad = compute_requires_grad(self);
  std::shared_ptr<NarrowViewBackward0> grad_fn;
  if (requires_grad) {
    grad_fn = std::make_shared<NarrowViewBackward0>();
    grad_fn->set_next_edges(collect_next_edges(self));
    grad_fn->self_sizes = self.sizes().vec();
  }
  auto result = [&] {
    c10::ExcludeDispatchKeyGuard guard(c10::DispatchKey::Autograd);
    return op.redispatch(below_autograd(ks), self, length);
  }();
  if (result.is_same(self)) return result;
  as_view(self, result);
  if (grad_fn && is_differentiable_type(result)) {
    set_history(result, grad_fn);
  }
  return result;
}

EMBER_LIBRARY_IMPL(aten, Autograd, m) {
  m.impl("scale", &scale);
  m.impl("scale_", &scale_);
  m.impl("narrow_view", &narrow_view);
}

}  // namespace
}  // namespace ember::autograd
""")

    def test_schema_must_match_native_functions(self):
        def error(text):
            with self.assertRaises(SchemaError) as e:
                autograd_gen.generate(parse_native_functions(AUTOGRAD_YAML),
                                      parse_entries(text, "derivatives.yaml"))
            return str(e.exception)

        self.assertExpectedInline(error("""\
- name: scale(Tensor self, float factor=3, *, Scalar shift=0) -> Tensor
  self: grad
"""), """\
derivatives.yaml:1: schema of scale differs from native_functions.yaml:
  scale(Tensor self, float factor=3, *, Scalar shift=0) -> Tensor
  scale(Tensor self, float factor=2, *, Scalar shift=0) -> Tensor""")
        self.assertExpectedInline(error(f"""\
# a comment

- name: {AUTOGRAD_YAML[0]["func"]}
  other: grad
"""), """derivatives.yaml:3: scale: unknown key 'other': 'other' is not a differentiable input (inputs: self; other keys: name, output_differentiability)""")
        self.assertExpectedInline(error(f"""\
- name: {AUTOGRAD_YAML[0]["func"]}
  self: grad
- name: nonexistent(Tensor self) -> Tensor
  self: grad
"""), """derivatives.yaml:3: nonexistent is not an operator of native_functions.yaml""")
        self.assertExpectedInline(error("""\
- name: scale(Tensor self, flaot factor) -> Tensor
"""), """derivatives.yaml:1: unknown type 'flaot'""")
        self.assertExpectedInline(error(f"""\
- name: {AUTOGRAD_YAML[0]["func"]}
  output_differentiability: [True, False]
"""), """derivatives.yaml:1: scale: output_differentiability is a list of 1 bools, one per result, not [True, False]""")
        self.assertExpectedInline(error(f"""\
- name: {AUTOGRAD_YAML[0]["func"]}
  self: grad
- name: {AUTOGRAD_YAML[0]["func"]}
  self: grad * 2
"""), """derivatives.yaml:3: second entry for scale""")


class TestNativeFunctionsYamlErrors(TestCase):
    """native_functions.yaml is read strictly: a key, value or reference the
    generator does not know is an error that names the entry's file:line."""

    def error(self, text):
        with self.assertRaises(SchemaError) as e:
            parse_native_functions(parse_entries(text, "native_functions.yaml"))
        return str(e.exception)

    def test_unknown_keys(self):
        self.assertExpectedInline(self.error("""\
- func: ok(Tensor self) -> Tensor

- func: f(Tensor self) -> Tensor
  dispach:
    CPU: f
"""), """native_functions.yaml:3: f: unknown key 'dispach' (known: func, variants, dispatch, python, structured_delegate, device_check, doc, alias_of)""")

    def test_unknown_dispatch_key_and_variant(self):
        self.assertExpectedInline(self.error("""\
- func: f(Tensor self) -> Tensor
  dispatch:
    CPU, Cuda: f
"""), """native_functions.yaml:1: f: unknown dispatch key 'Cuda' (known: CPU, CUDA, CompositeExplicitAutograd, CompositeImplicitAutograd, Lazy, Meta, PrivateUse1, SparseCPU)""")
        self.assertExpectedInline(self.error("""\
- func: f(Tensor self) -> Tensor
  variants: function, methods
"""), """native_functions.yaml:1: f: unknown variant 'methods' (known: function, method)""")

    def test_schema_errors_carry_the_line(self):
        self.assertExpectedInline(self.error("""\
- func: f(Tensor self) -> Tensor
- func: g(Tensr self) -> Tensor
"""), """native_functions.yaml:2: unknown type 'Tensr'""")
        self.assertExpectedInline(self.error("""\
- func: f(Tensor self) -> Tensor
- func: f(Tensor other) -> Tensor
"""), """native_functions.yaml:2: duplicate operator f""")
        self.assertExpectedInline(self.error("""\
- variants: method
"""), """native_functions.yaml:1: entry has no 'func'""")

    def test_bad_values_and_references(self):
        self.assertExpectedInline(self.error("""\
- func: f(Tensor self) -> Tensor
  structured_delegate: f.out
"""), """native_functions.yaml:1: f: structured_delegate f.out is not an out variant in this file""")
        self.assertExpectedInline(self.error("""\
- func: f(Tensor self) -> Tensor
  device_check: Never
"""), """native_functions.yaml:1: f: device_check is SameDevice or NoCheck, not Never""")
        self.assertExpectedInline(self.error("""\
- func: f(Tensor self) -> Tensor
  python: maybe
"""), """native_functions.yaml:1: f: python is True or False, not 'maybe'""")

    def test_alias_errors(self):
        self.assertExpectedInline(self.error("""\
- func: f(Tensor self) -> Tensor
  alias_of: g
"""), """native_functions.yaml:1: f: alias_of g is not an operator of this file (that is not itself an alias)""")
        self.assertExpectedInline(self.error("""\
- func: g(Tensor self, int dim) -> Tensor
- func: f(Tensor self) -> Tensor
  alias_of: g
"""), """native_functions.yaml:2: f: arguments or returns differ from g's""")
        self.assertExpectedInline(self.error("""\
- func: g(Tensor self) -> Tensor
  dispatch:
    CPU: g
- func: f(Tensor self) -> Tensor
  alias_of: g
  dispatch:
    CPU: f
"""), """native_functions.yaml:4: f: alias_of excludes dispatch and structured_delegate""")

    def test_an_alias_kernel_calls_its_op(self):
        functions = parse_native_functions(parse_entries("""\
- func: g.Tensor(Tensor self, Tensor other) -> Tensor
  dispatch:
    CPU: g
- func: other_name.Tensor(Tensor self, Tensor x) -> Tensor
  alias_of: g.Tensor
"""))
        self.assertEqual(functions[1].dispatch, {"CompositeImplicitAutograd": Kernel("other_name_Tensor_alias",
                                                                                     alias=True)})
        self.assertEqual(functions[1].doc, "Another name for ``g``.")
        registration = gen.gen_register_cpp(functions)
        self.assertIn("""\
Tensor other_name_Tensor_alias(const Tensor& self, const Tensor& x) {
  static const auto op = Dispatcher::singleton().findTyped<Tensor(const Tensor&, const Tensor&)>("aten::g", "Tensor");
  return op.call(self, x);
}""", registration)
        self.assertIn('m.impl("other_name.Tensor", &other_name_Tensor_alias);', registration)
        self.assertNotIn("other_name", gen.gen_native_functions_h(functions))

    def test_delegated_kernels_are_typed(self):
        functions = parse_native_functions(parse_entries("""\
- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: f_out
- func: f(Tensor self) -> Tensor
  structured_delegate: f.out
"""))
        self.assertEqual(functions[1].dispatch, {"CPU": Kernel("f_out", delegate=True)})
        self.assertEqual(functions[0].dispatch, {"CPU": Kernel("f_out")})


def test_derivatives_yaml_matches_native_functions():
    entries = load_entries(os.path.join(ROOT, "derivatives.yaml"))
    functions = parse_native_functions(load_entries(YAML_PATH))
    infos = autograd_gen.parse_derivatives(entries, functions)
    assert len(infos) == len(entries)


def test_every_yaml_operator_is_registered():
    registered = set(ember._C._schemas())
    for text in all_yaml_schemas():
        assert "aten::" + str(parse_schema(text)) in registered


def _readme_recipe():
    """README's 'Adding an operator': (yaml block, derivatives.yaml entry,
    kernel signature, database entry)."""
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    section = readme.split("## Adding an operator", 1)[1].split("\n## ", 1)[0]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    flat = re.sub(r"\s*\n\s*", " ", section)
    name = re.search(r"`- name: ([^`]+)`", flat).group(1)
    formula = re.search(r"`self: ([^`]+)`", flat).group(1)
    kernel = re.search(r"implement `([^`]+)`", flat).group(1)
    entry = section.split("```python\n", 1)[1].split("```", 1)[0]
    return textwrap.dedent(block), f"- name: {name}\n  self: {formula}\n", kernel, textwrap.dedent(entry)


def _read(*path):
    with open(os.path.join(ROOT, *path)) as f:
        return f.read()


def test_the_readme_recipe_is_how_trace_went_in():
    """Each snippet of README's recipe stands in the file it names, for the
    real op it added: following the recipe gave a working operator."""
    yaml_text, derivative, kernel, entry = _readme_recipe()
    assert yaml_text in _read("native_functions.yaml")
    assert derivative in _read("derivatives.yaml")
    assert kernel.replace("ember::native::", "") + " {" in _read("aten", "native", "LinearAlgebra.cpp")
    squeeze = lambda text: " ".join(text.split())  # noqa: E731  (the README block is indented differently)
    assert squeeze(entry) in squeeze(_read("test", "python", "opdb", "structured.py"))
    from opdb import coverage
    assert "trace" in coverage.reached()["values"] and "trace" in coverage.reached()["gradients"]
    assert ember.trace(ember.tensor([[1., 2.], [3., 4.]])).item() == 5.0


def test_the_readme_recipe_generates_every_piece():
    """README's example op, run through the generator as a newcomer would add
    it: the C++ API, the kernel declaration and registration, the Python
    binding with its docstring and the autograd kernel all appear."""
    yaml_text, derivative, _, _ = _readme_recipe()
    functions = parse_native_functions(parse_entries(yaml_text, "native_functions.yaml"))
    assert [f.schema.full_name for f in functions] == ["trace"]
    assert "Tensor trace(const Tensor& self);" in gen.gen_functions_h(functions)
    assert "Tensor trace(const Tensor& self);" in gen.gen_native_functions_h(functions)
    registrations = gen.gen_register_cpp(functions)
    assert 'm.def("trace(Tensor self) -> Tensor");' in registrations
    assert registrations.count('m.impl("trace"') == 1  # CompositeExplicitAutograd
    bindings = pygen.gen_bindings(functions)
    assert 'R"doc(trace(Tensor input) -> Tensor\n\nThe sum of a matrix\'s diagonal' in bindings
    assert 'cls.def("trace"' in bindings
    autograd = autograd_gen.generate(functions, parse_entries(derivative, "derivatives.yaml"))
    assert "struct TraceBackward0" in autograd["Functions.h"]
    assert "grad * eye(self.size(0), self.size(1)" in autograd["Functions.cpp"]
    assert 'm.impl("trace", &trace);' in autograd["VariableType.cpp"]
