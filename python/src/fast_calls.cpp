// The runtime side of fast_calls.h: argument checks, the call, and the
// hand-over to pybind11.

#include "fast_calls.h"

#include <array>
#include <vector>

namespace ember::python::fast_calls {
namespace {

// `obj` as a Tensor when it is an initialized instance of the Tensor class
// (subclasses included), as pybind11's caster takes it.
bool tensor_argument(PyObject* obj, Tensor& out) {
  py::detail::make_caster<Tensor> caster;
  if (!caster.load(obj, false)) return false;
  out = py::detail::cast_op<Tensor&&>(std::move(caster));
  return true;
}

constexpr Py_ssize_t kMaxArity = 4;

// The ints of `x.view(2, 5)` or `x.view((2, 5))`: plain Python ints that
// fit int64 only (bools, NumPy ints and the rest go to pybind11).
bool int_arguments(PyObject* const* args, Py_ssize_t n, c10::DimVector& out) {
  if (n == 1 && (PyTuple_Check(args[0]) || PyList_Check(args[0]))) {
    n = PySequence_Fast_GET_SIZE(args[0]);
    args = PySequence_Fast_ITEMS(args[0]);
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyLong_CheckExact(args[i])) return false;
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(args[i], &overflow);
    if (overflow != 0) return false;
    out.push_back(v);
  }
  return true;
}

// Operands this small keep the GIL through the op: letting it go and taking
// it back costs about 40 ns, a twentieth of an add of 10 floats, and such an
// op is over in microseconds, splits no work across threads (a kernel that
// calls into Python does so on this thread, which holds the GIL) and waits
// for nothing another Python thread would have to do.
constexpr int64_t kKeepGilNumel = 4096;

template <typename F>
PyObject* run(bool keep_gil, F&& call) {
  try {
    Tensor result = keep_gil ? call() : without_gil(call);
    return py::cast(std::move(result)).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();  // as pybind11 turns C++ errors into Python ones
    return nullptr;
  }
}

}  // namespace

PyObject* call(const FastCall& c, PyObject* fallback, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (kwnames == nullptr && c.call && nargs == c.arity && nargs <= kMaxArity) {
    std::array<Tensor, kMaxArity> tensors;
    bool all = true;
    bool small = true;
    for (Py_ssize_t i = 0; i < nargs && all; ++i) {
      all = tensor_argument(args[i], tensors[i]);
      small = small && all && tensors[i].numel() <= kKeepGilNumel;
    }
    if (all) return run(small, [&] { return c.call(tensors.data()); });
  }
  if (kwnames == nullptr && c.call_with_ints && nargs >= 2) {
    Tensor self;
    c10::DimVector ints;
    if (tensor_argument(args[0], self) && int_arguments(args + 1, nargs - 1, ints)) {
      // Ints can ask for much more than self holds (x.repeat(1000, 1000)): the GIL goes.
      return run(false, [&] { return c.call_with_ints(&self, ints); });
    }
  }
  return PyObject_Vectorcall(fallback, args, nargs, kwnames);
}

PyObject* call_method(const FastCall& c, PyObject* fallback, PyObject* self, PyObject* const* args,
                      Py_ssize_t nargs, PyObject* kwnames) {
  // The receiver goes first, as the unbound pybind11 method takes it.
  const Py_ssize_t given = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  std::array<PyObject*, 8> small;
  std::vector<PyObject*> large;
  PyObject** all = small.data();
  if (given + 1 > static_cast<Py_ssize_t>(small.size())) {
    large.resize(given + 1);
    all = large.data();
  }
  all[0] = self;
  for (Py_ssize_t i = 0; i < given; ++i) all[i + 1] = args[i];
  return call(c, fallback, all, nargs + 1, kwnames);
}

void install(py::handle target, bool method, const FastCall& c, PyObject*& fallback, PyMethodDef& def, Entry entry) {
  py::object original = py::getattr(target, c.name);
  // The docstring stays the pybind11 function's (its signatures and doc: text).
  // Each docstring's text stays alive with it; leaked, as it must outlive the interpreter.
  static auto* docs = new std::vector<py::object>();
  docs->push_back(py::getattr(original, "__doc__", py::none()));
  const char* doc = docs->back().is_none() ? nullptr : PyUnicode_AsUTF8(docs->back().ptr());
  fallback = original.release().ptr();
  def = {c.name, reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(entry)), METH_FASTCALL | METH_KEYWORDS, doc};
  PyObject* made = method ? PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(target.ptr()), &def)
                          : PyCFunction_NewEx(&def, target.ptr(), py::str("ember._C").ptr());
  if (made == nullptr) throw py::error_already_set();
  py::setattr(target, c.name, py::reinterpret_steal<py::object>(made));
}

}  // namespace ember::python::fast_calls
