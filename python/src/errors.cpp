// C++ exception classes become the Python exceptions PyTorch users expect.

#include "pybind_tensor.h"

namespace ember::python {

void init_errors(py::module_& m) {
  // torch.cuda.OutOfMemoryError's counterpart; ember.cuda re-exports it.
  // Leaked on purpose: the class lives as long as the interpreter.
  static PyObject* out_of_memory = PyErr_NewException("ember._C.OutOfMemoryError", PyExc_RuntimeError, nullptr);
  m.attr("OutOfMemoryError") = py::reinterpret_borrow<py::object>(out_of_memory);
  // torch.linalg.LinAlgError's counterpart; ember.linalg re-exports it.
  static PyObject* linalg_error = PyErr_NewException("ember._C._LinAlgError", PyExc_RuntimeError, nullptr);
  m.attr("_LinAlgError") = py::reinterpret_borrow<py::object>(linalg_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const c10::OutOfMemoryError& e) {
      PyErr_SetString(out_of_memory, e.what());
    } catch (const c10::LinAlgError& e) {
      PyErr_SetString(linalg_error, e.what());
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
