// C++ exception classes become the Python exceptions PyTorch users expect.

#include "pybind_tensor.h"

namespace ember::python {

void init_errors(py::module_&) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
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
