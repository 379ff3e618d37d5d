#pragma once
// Vectorcall entry points in front of pybind11's for the calls that run
// most often with the simplest arguments: `ember.add(a, b)`, `a.add(b)`,
// `a.neg()` given tensors only. pybind11's dispatcher (argument loading,
// overload resolution, keywords) costs about as much as a tiny op itself.
// An entry checks that it got exactly its tensors, positionally, and calls
// the op; anything else (numbers, keywords, other objects) goes to the
// pybind11 function it stands in front of, so the semantics stay that
// function's. tools/codegen/python.py generates the tables: a name gets
// an entry when its first pybind11 overload (the one pybind11 would pick
// for tensors) takes leading tensors and defaults for everything else, or
// when a method's ints-as-varargs overload is the first that takes ints.

#include "pybind_tensor.h"

#include <Python.h>

#include <cstddef>
#include <utility>

namespace ember::python {

struct FastCall {
  const char* name;
  Py_ssize_t arity;  // tensors taken by `call`; a method's self is the first
  Tensor (*call)(const Tensor* tensors);
  // A method given ints after self (`x.view(2, 5)`, `x.view((2, 5))`), or nullptr.
  Tensor (*call_with_ints)(const Tensor* self, c10::IntArrayRef ints);
};

namespace fast_calls {
PyObject* call(const FastCall& c, PyObject* fallback, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
PyObject* call_method(const FastCall& c, PyObject* fallback, PyObject* self, PyObject* const* args,
                      Py_ssize_t nargs, PyObject* kwnames);
using Entry = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
// Replaces target.<c.name> (a module function or, for a class, a method)
// by `entry`; `fallback` and `def` must live as long as the process.
void install(py::handle target, bool method, const FastCall& c, PyObject*& fallback, PyMethodDef& def, Entry entry);
}  // namespace fast_calls

// One table's entries: a C function per entry (a method's descriptor has
// no room for data of its own, so each entry finds its row by index).
template <const FastCall* Table, std::size_t N>
struct FastCallTable {
  static inline PyObject* fallbacks[N] = {};
  static inline PyMethodDef defs[N] = {};

  template <std::size_t I>
  static PyObject* function(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    return fast_calls::call(Table[I], fallbacks[I], args, nargs, kwnames);
  }
  template <std::size_t I>
  static PyObject* method(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    return fast_calls::call_method(Table[I], fallbacks[I], self, args, nargs, kwnames);
  }
  template <std::size_t... I>
  static void install(py::handle target, bool as_methods, std::index_sequence<I...>) {
    const fast_calls::Entry entries[] = {(as_methods ? &method<I> : &function<I>)...};
    for (std::size_t i = 0; i < N; ++i) fast_calls::install(target, as_methods, Table[i], fallbacks[i], defs[i], entries[i]);
  }
};

// Generated (python_bindings.cpp): installs the tables' entries on the
// module's functions and the Tensor class's methods. Called last, when
// every pybind11 overload of those names exists.
void init_fast_calls(py::module_& m);

}  // namespace ember::python
