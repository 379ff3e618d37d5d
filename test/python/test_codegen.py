"""The schema model and code generator in tools/codegen."""

import os
import sys

import pytest
import yaml
from expecttest import TestCase

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tools.codegen import gen, python as pygen  # noqa: E402
from tools.codegen.model import SchemaError, parse_native_functions, parse_schema  # noqa: E402

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
  m.def("scale", [](const Tensor& self, double factor, c10::Scalar shift, std::optional<Tensor> out) -> Tensor {
    if (out) return ember::scale_outf(self, factor, shift, *out);
    return ember::scale(self, factor, shift);
  }, py::arg("input"), py::arg("factor") = 2.0, py::kw_only(), py::arg("shift") = 0, py::arg("out") = py::none());
  m.def("grid", [](const py::args& size_varargs, std::optional<c10::ScalarType> dtype, std::optional<c10::Device> device, bool requires_grad) -> Tensor {
    const IntList size{shape_from_args(size_varargs, "grid")};
    Tensor result = ember::grid(size, dtype, device);
    if (requires_grad) result.set_requires_grad(true);
    return result;
  }, py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.attr("_generated_functions") = py::make_tuple("scale", "grid");
}

void init_generated_methods(TensorClass& cls) {
  cls.def("scale", [](const Tensor& self, double factor, c10::Scalar shift) -> Tensor {
    return ember::scale(self, factor, shift);
  }, py::arg("factor") = 2.0, py::kw_only(), py::arg("shift") = 0);
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


def test_every_yaml_operator_is_registered():
    registered = set(ember._C._schemas())
    for text in all_yaml_schemas():
        assert "aten::" + str(parse_schema(text)) in registered
