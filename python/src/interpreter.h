#pragma once
// This copy of ember._C's interpreter, as the core sees it
// (c10/core/PythonInterpreter.h). Under ember::deploy every interpreter has
// its own copy of this module, so "this interpreter" is a different object
// in each, and the core's calls into Python go to the current thread's.

#include "pybind_tensor.h"

#include <aten/core/dispatch/Dispatcher.h>
#include <c10/core/PythonInterpreter.h>

#include <memory>
#include <string>

namespace ember::python {

// An operator kernel written in Python (ember.library), as each interpreter
// registered it.
struct PythonKernel {
  py::object fn;
  bool pass_op_name = false;
  // The keyword-only arguments' defaults as Python values, per operator (a
  // fallback serves many), read from the schema on the first call.
  std::unordered_map<std::string, std::vector<py::object>> kwarg_defaults;
  void run(const OperatorHandle& op, Stack& stack);  // takes the GIL
};

class BindingInterpreter : public c10::PythonInterpreter {
 public:
  void warn(const std::string& message) const override;
  std::string python_stack() const override;
  std::string user_source_line() const override;
  // Runs this interpreter's Python kernel registered as `id` (op and key):
  // what another interpreter's registration of the same kernel calls when
  // the calling thread is this interpreter's.
  virtual void run_python_kernel(const std::string& id, const OperatorHandle& op, Stack& stack);
  void add_python_kernel(const std::string& id, const std::shared_ptr<PythonKernel>& kernel);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::weak_ptr<PythonKernel>> kernels_;
};

BindingInterpreter* this_interpreter();

// The dispatcher's kernel for a Python function registered as `id` (the
// operator and key, or "fallback@key"): it runs the calling thread's
// interpreter's registration of `id`, this one's where the thread is ours.
KernelFunction python_kernel(py::function fn, std::string id, bool pass_op_name = false);

}  // namespace ember::python
