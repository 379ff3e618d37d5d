// ember._C._deploy_bridge: the conversions ember::deploy uses to pass values
// between C++ and this copy of the module's interpreter (deploy/PythonBridge.h).

#include "pybind_tensor.h"

#include <deploy/PythonBridge.h>

#include <pybind11/complex.h>

namespace ember::python {

namespace {

// A Python error for what a conversion threw, since the caller is C.
template <typename F>
auto with_python_errors(F&& f, decltype(f()) failed) -> decltype(f()) {
  try {
    return f();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return failed;
}

template <typename Predicate>
bool all_of(const py::sequence& seq, Predicate is) {
  for (py::handle item : seq)
    if (!is(item.ptr())) return false;
  return true;
}

IValue from_python(py::handle obj) {
  const auto is_tensor = [](PyObject* o) {
    return PyObject_IsInstance(o, reinterpret_cast<PyObject*>(tensor_type_info()->type)) == 1;
  };
  if (obj.is_none()) return IValue();
  if (is_tensor(obj.ptr())) return IValue(obj.cast<Tensor>());
  if (PyBool_Check(obj.ptr())) return IValue(obj.cast<bool>());
  if (PyLong_Check(obj.ptr())) return IValue(obj.cast<int64_t>());
  if (PyFloat_Check(obj.ptr())) return IValue(obj.cast<double>());
  if (PyComplex_Check(obj.ptr())) return IValue(obj.cast<c10::complex<double>>());
  if (PyUnicode_Check(obj.ptr())) return IValue(obj.cast<std::string>());
  if (PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr())) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
    if (all_of(seq, is_tensor)) return IValue(obj.cast<std::vector<Tensor>>());
    if (all_of(seq, [](PyObject* o) { return PyLong_Check(o) && !PyBool_Check(o); }))
      return IValue(obj.cast<std::vector<int64_t>>());
    if (all_of(seq, [](PyObject* o) { return PyFloat_Check(o) != 0; })) return IValue(obj.cast<std::vector<double>>());
  }
  throw py::type_error(fmt::format(
      "ember::deploy: a {} cannot be passed to C++ (tensors, numbers, strings, None and lists of tensors or of "
      "numbers can)",
      Py_TYPE(obj.ptr())->tp_name));
}

const deploy::PythonBridge bridge = [] {
  deploy::PythonBridge b;
  b.to_python = [](const IValue& value) -> _object* {
    return with_python_errors([&] { return to_python(value).release().ptr(); }, nullptr);
  };
  b.from_python = [](_object* object, IValue* out) -> bool {
    return with_python_errors(
        [&] {
          *out = from_python(object);
          return true;
        },
        false);
  };
  b.interpreter = this_interpreter_for_core();
  return b;
}();

}  // namespace

void init_deploy_bridge(py::module_& m) {
  m.attr("_deploy_bridge") =
      py::capsule(static_cast<const void*>(&bridge), deploy::kPythonBridgeCapsule);
}

}  // namespace ember::python
