// ember._C._jit: the graph IR, the tracer, the passes and programs, for
// python/ember/jit.py.

#include "pybind_tensor.h"

#include <jit/ir/fusion.h>
#include <jit/ir/passes.h>
#include <jit/module.h>
#include <jit/tracer.h>

namespace ember::python {

namespace {

using GraphPtr = std::shared_ptr<jit::Graph>;

std::vector<std::string> node_kinds(const jit::Graph& g) {
  std::vector<std::string> kinds;
  for (const auto& n : g.nodes()) kinds.push_back(n->kind());
  return kinds;
}

}  // namespace

void init_jit(py::module_& m) {
  auto jit = m.def_submodule("_jit", "Ember's graph IR, tracer and programs");

  py::class_<jit::Graph, GraphPtr>(jit, "Graph")
      .def("__str__", [](const jit::Graph& g) { return g.str(); })
      .def("node_kinds", &node_kinds)
      .def("input_names",
           [](const jit::Graph& g) {
             std::vector<std::string> names;
             for (const auto* v : g.inputs()) names.push_back(v->name());
             return names;
           })
      // Per input: (dtype, sizes) as traced.
      .def("input_types", [](const jit::Graph& g) {
        std::vector<std::pair<ScalarType, std::vector<int64_t>>> types;
        for (const auto* v : g.inputs()) types.emplace_back(v->meta()->dtype, v->meta()->sizes);
        return types;
      });

  py::class_<jit::Tracer>(jit, "Tracer")
      .def(py::init<>())
      .def("add_input", [](jit::Tracer& t, const Tensor& x, std::string name) { t.add_input(x, std::move(name)); })
      .def("add_output", &jit::Tracer::add_output)
      .def("finish", &jit::Tracer::finish)
      .def_property_readonly("warnings", &jit::Tracer::warnings);
  jit.def("is_tracing", &jit::Tracer::active);

  jit.def("eliminate_dead_code", [](const GraphPtr& g) { jit::eliminate_dead_code(*g); });
  jit.def("eliminate_common_subexpressions", [](const GraphPtr& g) { jit::eliminate_common_subexpressions(*g); });
  jit.def("fold_constants", [](const GraphPtr& g) { jit::fold_constants(*g); });
  jit.def("optimize", [](const GraphPtr& g) { jit::optimize(*g); });
  jit.def("fuse_elementwise", [](const GraphPtr& g) { return jit::fuse_elementwise(*g); });

  py::class_<jit::Module>(jit, "Program")
      .def(py::init<GraphPtr, std::vector<std::pair<std::string, Tensor>>>())
      .def("run",
           [](const jit::Module& program, std::vector<Tensor> inputs) {
             std::vector<IValue> args(inputs.begin(), inputs.end());
             std::vector<IValue> outputs;
             {
               py::gil_scoped_release no_gil;
               outputs = program.forward(std::move(args));
             }
             std::vector<Tensor> tensors;
             for (const IValue& v : outputs) tensors.push_back(v.toTensor());
             return tensors;
           })
      .def_property_readonly("graph", &jit::Module::graph_ptr)
      .def("named_parameters", &jit::Module::named_parameters)
      .def("num_inputs", &jit::Module::num_inputs)
      .def("trainable", &jit::Module::trainable)
      .def("operator_names", &jit::Module::operator_names)
      .def("save", [](const jit::Module& program, const std::string& path) { jit::save(program, path); });
  jit.def("load", &jit::load);
}

}  // namespace ember::python
