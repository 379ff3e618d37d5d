// ember._C._lazy: the lazy device's pending graph, executors and metrics,
// for python/ember/lazy.

#include "pybind_tensor.h"

#include <lazy/Executor.h>
#include <lazy/LazyGraph.h>
#include <lazy/Metrics.h>

namespace ember::python {

namespace {

// A graph as plain Python data, for executors written in Python (XLA's):
//   inputs:  [(value id, type)]  type: (dtype, sizes) for tensors, else "float", "int", ...
//   nodes:   [(kind, [(argument name, input)], [output ids], [(dtype, sizes)], [written])]
//            input: ("value", id) | ("list", [id or None]) | ("constant", object)
//            written: (argument name, list element or -1) per output after the
//            returns' (an argument the op writes without returning it)
//   outputs: [value id]
py::dict describe(const jit::Graph& g) {
  const auto type_of = [](const jit::Value* v) -> py::object {
    if (v->is_tensor()) return py::make_tuple(v->meta()->dtype, v->meta()->sizes);
    return py::str(v->type_name());
  };
  py::list inputs, nodes, outputs;
  for (const jit::Value* v : g.inputs()) inputs.append(py::make_tuple(v->index(), type_of(v)));
  for (const auto& n : g.nodes()) {
    py::list args, outs, types;
    const FunctionSchema* schema = n->schema();
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const jit::Input& in = n->inputs[i];
      py::object item;
      if (in.kind == jit::Input::Kind::Value) {
        item = py::make_tuple("value", in.value->index());
      } else if (in.kind == jit::Input::Kind::List) {
        py::list ids;
        for (const jit::Value* v : in.list) ids.append(v ? py::object(py::int_(v->index())) : py::object(py::none()));
        item = py::make_tuple("list", ids);
      } else {
        item = py::make_tuple("constant", to_python(in.constant));
      }
      args.append(py::make_tuple(schema ? schema->arguments[i].name : std::string(), item));
    }
    for (const jit::Value* v : n->outputs) {
      outs.append(v->index());
      types.append(type_of(v));
    }
    py::list written;
    for (size_t i = 0; schema && i < n->inputs.size(); ++i) {
      if (!jit::writes_without_returning(*schema, i)) continue;
      const jit::Input& in = n->inputs[i];
      if (in.kind == jit::Input::Kind::List) {
        for (size_t k = 0; k < in.list.size(); ++k) written.append(py::make_tuple(schema->arguments[i].name, k));
      } else {
        written.append(py::make_tuple(schema->arguments[i].name, -1));
      }
    }
    nodes.append(py::make_tuple(n->kind(), args, outs, types, written));
  }
  for (const jit::Value* v : g.outputs()) outputs.append(v->index());
  py::dict d;
  d["inputs"] = inputs;
  d["nodes"] = nodes;
  d["outputs"] = outputs;
  return d;
}

// An executor written in Python: compile(graph) returns an object with
// run(inputs) -> [Tensor] and dump() -> str.
class PythonExecutor final : public lazy::Executor {
 public:
  PythonExecutor(std::string name, py::object compile) : name_(std::move(name)), compile_(std::move(compile)) {}
  ~PythonExecutor() override {
    py::gil_scoped_acquire gil;
    compile_ = py::object();
  }
  std::string name() const override { return name_; }
  std::unique_ptr<lazy::Executable> compile(std::shared_ptr<jit::Graph> graph) override;

 private:
  std::string name_;
  py::object compile_;
};

class PythonExecutable final : public lazy::Executable {
 public:
  explicit PythonExecutable(py::object compiled) : compiled_(std::move(compiled)) {}
  ~PythonExecutable() override {
    py::gil_scoped_acquire gil;
    compiled_ = py::object();
  }
  std::vector<Tensor> run(std::vector<IValue> inputs) override {
    py::gil_scoped_acquire gil;
    py::list args;
    for (const IValue& v : inputs) args.append(to_python(v));
    return compiled_.attr("run")(args).cast<std::vector<Tensor>>();
  }
  std::string dump() const override {
    py::gil_scoped_acquire gil;
    return compiled_.attr("dump")().cast<std::string>();
  }

 private:
  py::object compiled_;
};

std::unique_ptr<lazy::Executable> PythonExecutor::compile(std::shared_ptr<jit::Graph> graph) {
  py::gil_scoped_acquire gil;
  return std::make_unique<PythonExecutable>(compile_(graph));
}

}  // namespace

void init_lazy(py::module_& m) {
  auto lazy = m.def_submodule("_lazy", "The lazy device: pending graph, executors, metrics");
  lazy.def("sync", [] { lazy::LazyGraph::get().sync(); });
  lazy.def("pending_graph", [] {
    auto& g = lazy::LazyGraph::get();
    std::lock_guard<std::recursive_mutex> lock(g.mutex());
    return g.graph().str();
  });
  lazy.def("live_tensors", [] { return lazy::LazyGraph::get().live_tensors(); });
  lazy.def("set_executor", &lazy::set_executor);
  lazy.def("current_executor", [] { return lazy::current_executor()->name(); });
  lazy.def("executor_names", &lazy::executor_names);
  lazy.def("register_python_executor", [](std::string name, py::object compile) {
    lazy::register_executor(std::make_shared<PythonExecutor>(std::move(name), std::move(compile)));
  });
  lazy.def("num_compiled", &lazy::num_compiled);
  lazy.def("clear_compiled", [] {
    lazy::clear_compiled();
    lazy::LazyGraph::get().forget_compiles();
  });
  lazy.def("describe", [](const std::shared_ptr<jit::Graph>& g) { return describe(*g); });
  lazy.def("metrics_report", &lazy::metrics::report);
  lazy.def("metrics_reset", &lazy::metrics::reset);
  lazy.def("count", [](const std::string& name) { lazy::metrics::count(name); });
  lazy.def("counters", &lazy::metrics::counters);
  lazy.def("samples", [] {
    py::dict out;
    for (const auto& [name, s] : lazy::metrics::samples())
      out[py::str(name)] = py::make_tuple(s.count, s.total, s.max, s.last);
    return out;
  });
}

}  // namespace ember::python
