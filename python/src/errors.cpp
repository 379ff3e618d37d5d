// C++ exception classes become the Python exceptions PyTorch users expect.

#include "pybind_tensor.h"

#include <c10/util/Warning.h>

namespace ember::python {

namespace {
// C++ warnings become Python UserWarnings. Kernels run without the GIL, so
// the handler takes it; a warning the filters turn into an error propagates
// as that Python exception.
void warn_in_python(const std::string& message) {
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw py::error_already_set();
}
}  // namespace

void init_errors(py::module_& m) {
  c10::set_warning_handler(&warn_in_python);
  // torch.cuda.OutOfMemoryError's counterpart; ember.cuda re-exports it.
  // Leaked on purpose: the class lives as long as the interpreter.
  static PyObject* out_of_memory = PyErr_NewException("ember._C.OutOfMemoryError", PyExc_RuntimeError, nullptr);
  m.attr("OutOfMemoryError") = py::reinterpret_borrow<py::object>(out_of_memory);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const c10::OutOfMemoryError& e) {
      PyErr_SetString(out_of_memory, e.what());
    } catch (const c10::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const c10::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const c10::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const c10::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const c10::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace ember::python
