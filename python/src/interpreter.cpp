// This module's interpreter as the core's c10::PythonInterpreter: where C++
// warnings and calls of Python kernels go when this interpreter's thread
// raised or made them.

#include "interpreter.h"

#include <c10/util/Warning.h>

namespace ember::python {

void BindingInterpreter::warn(const std::string& message) const {
  // Kernels run without the GIL: take it. A warning that the filters turn
  // into an error propagates as that Python exception.
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw py::error_already_set();
}

std::string BindingInterpreter::python_stack() const {
  py::gil_scoped_acquire gil;
  return py::str("").attr("join")(py::module_::import("traceback").attr("format_stack")()).cast<std::string>();
}

std::string BindingInterpreter::user_source_line() const {
  py::gil_scoped_acquire gil;
  static const std::string package_dir = [] {
    py::module_ path = py::module_::import("os.path");
    return path.attr("dirname")(py::module_::import("ember").attr("__file__")).cast<std::string>();
  }();
  py::object frame;
  try {
    frame = py::module_::import("sys").attr("_getframe")(0);
  } catch (py::error_already_set&) {  // no Python running on this thread
    return "";
  }
  for (; !frame.is_none(); frame = frame.attr("f_back")) {
    const std::string file = frame.attr("f_code").attr("co_filename").cast<std::string>();
    if (file.rfind(package_dir, 0) == 0) continue;
    const size_t slash = file.find_last_of('/');
    return fmt::format("{}:{}", slash == std::string::npos ? file : file.substr(slash + 1),
                       frame.attr("f_lineno").cast<int>());
  }
  return "";
}

void BindingInterpreter::add_python_kernel(const std::string& id, const std::shared_ptr<PythonKernel>& kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  kernels_[id] = kernel;
}

void BindingInterpreter::run_python_kernel(const std::string& id, const OperatorHandle& op, Stack& stack) {
  std::shared_ptr<PythonKernel> kernel;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = kernels_.find(id);
    if (found != kernels_.end()) kernel = found->second.lock();
  }
  EMBER_CHECK(kernel != nullptr,
              "{}: its Python kernel ({}) was registered by another Python interpreter of this process "
              "(ember::deploy), not by this thread's: register it in every interpreter that calls the operator",
              op.schema().qualified_name(), id);
  kernel->run(op, stack);
}

BindingInterpreter* this_interpreter() {
  static auto* interpreter = new BindingInterpreter();  // the core may hold it until exit
  return interpreter;
}

c10::PythonInterpreter* this_interpreter_for_core() { return this_interpreter(); }

void init_interpreter(py::module_& m) {
  c10::register_python_interpreter(this_interpreter());
  // A warning raised in C++ with the GIL released, as a kernel raises one:
  // for tests of where warnings go.
  m.def("_warn_from_cpp", [](const std::string& message) { without_gil([&] { c10::warn(message); }); });
  // After this interpreter exits, C++ warnings go to stderr (or another
  // interpreter's thread) and nothing calls into it.
  py::module_::import("atexit").attr("register")(
      py::cpp_function([] { c10::unregister_python_interpreter(this_interpreter()); }));
}

}  // namespace ember::python
