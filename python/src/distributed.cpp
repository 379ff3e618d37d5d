// ember._C._distributed: the Gloo process group and its work handles for
// ember.distributed, and the bridge that lets Gloo's rendezvous use the
// Python stores (TCPStore, FileStore, HashStore).

#include "pybind_tensor.h"

#ifdef EMBER_HAVE_GLOO
#include <distributed/ProcessGroupGloo.h>

#include <pybind11/chrono.h>
#include <pybind11/stl.h>
#endif

namespace ember::python {

#ifdef EMBER_HAVE_GLOO
namespace {

namespace dist = ember::distributed;

// A store written in Python, called with the GIL from whichever thread Gloo
// uses: set(key, bytes), get(key) -> bytes, wait(keys, timedelta).
class PythonStore : public dist::Store {
 public:
  explicit PythonStore(py::object store) : store_(std::move(store)) {}
  ~PythonStore() override {
    py::gil_scoped_acquire gil;
    store_ = py::object();
  }
  void set(const std::string& key, const std::vector<uint8_t>& value) override {
    py::gil_scoped_acquire gil;
    store_.attr("set")(key, py::bytes(reinterpret_cast<const char*>(value.data()), value.size()));
  }
  std::vector<uint8_t> get(const std::string& key) override {
    py::gil_scoped_acquire gil;
    const std::string value = py::bytes(store_.attr("get")(key));
    return std::vector<uint8_t>(value.begin(), value.end());
  }
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    py::gil_scoped_acquire gil;
    store_.attr("wait")(keys, timeout);
  }

 private:
  py::object store_;
};

std::chrono::milliseconds milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

}  // namespace
#endif

void init_distributed(py::module_& m) {
  py::module_ d = m.def_submodule("_distributed", "Process groups for ember.distributed");
#ifdef EMBER_HAVE_GLOO
  d.attr("has_gloo") = true;
  // Leaked on purpose, as the other exception classes: it lives as long as the interpreter.
  static PyObject* backend_error = PyErr_NewException("ember.distributed.DistBackendError", PyExc_RuntimeError, nullptr);
  d.attr("DistBackendError") = py::reinterpret_borrow<py::object>(backend_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dist::DistBackendError& e) {
      PyErr_SetString(backend_error, e.what());
    }
  });

  py::class_<dist::Work, std::shared_ptr<dist::Work>>(d, "Work")
      .def(
          "wait",
          [](dist::Work& work, double timeout_s) {
            work.wait(milliseconds(timeout_s));
            return true;
          },
          py::arg("timeout") = 0.0, py::call_guard<py::gil_scoped_release>(),
          "Waits for the work (at most timeout seconds, if positive) and raises its error, if any.")
      .def("is_completed", &dist::Work::is_completed)
      .def("is_success", &dist::Work::is_success)
      .def("exception",
           [](dist::Work& work) -> py::object {
             std::exception_ptr error = work.exception();
             if (!error) return py::none();
             try {
               std::rethrow_exception(error);
             } catch (const std::exception& e) {
               return py::str(e.what());
             }
           })
      .def_property_readonly("description", &dist::Work::description)
      .def("_source_rank", &dist::Work::source_rank);

  using PG = dist::ProcessGroupGloo;
  auto op = [](int value) { return static_cast<dist::ReduceOp>(value); };
  py::class_<PG, std::shared_ptr<PG>>(d, "ProcessGroupGloo")
      .def(py::init([](py::object store, int rank, int size, double timeout_s, const std::string& hostname) {
             auto bridge = std::make_shared<PythonStore>(std::move(store));
             py::gil_scoped_release release;
             return std::make_shared<PG>(std::move(bridge), rank, size, milliseconds(timeout_s), hostname);
           }),
           py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout"), py::arg("hostname") = "")
      .def("rank", &PG::rank)
      .def("size", &PG::size)
      .def("allreduce", [op](PG& pg, const Tensor& t, int o) { return pg.allreduce(t, op(o)); },
           py::call_guard<py::gil_scoped_release>())
      .def("reduce", [op](PG& pg, const Tensor& t, int root, int o) { return pg.reduce(t, root, op(o)); },
           py::call_guard<py::gil_scoped_release>())
      .def("broadcast", &PG::broadcast, py::call_guard<py::gil_scoped_release>())
      .def("allgather", &PG::allgather, py::call_guard<py::gil_scoped_release>())
      .def("gather", &PG::gather, py::call_guard<py::gil_scoped_release>())
      .def("scatter", &PG::scatter, py::call_guard<py::gil_scoped_release>())
      .def("alltoall", &PG::alltoall, py::arg("output"), py::arg("input"), py::arg("output_counts") = std::vector<int64_t>(),
           py::arg("input_counts") = std::vector<int64_t>(), py::call_guard<py::gil_scoped_release>())
      .def("barrier", &PG::barrier, py::call_guard<py::gil_scoped_release>())
      .def("send", &PG::send, py::call_guard<py::gil_scoped_release>())
      .def("recv", &PG::recv, py::call_guard<py::gil_scoped_release>());
#else
  d.attr("has_gloo") = false;
#endif
}

}  // namespace ember::python
