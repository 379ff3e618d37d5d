#pragma once
// How Ember values cross into Python.
//
// The Python Tensor class wraps c10::TensorImpl held by intrusive_ptr. Since
// the reference count lives inside the TensorImpl, pybind11 can map a C++
// impl back to the Python object already wrapping it: returning a tensor
// that Python already knows yields the same Python object, with its
// attributes and subclass intact.

#include <aten/Functions.h>
#include <aten/core/dispatch/IValue.h>
#include <c10/core/PythonInterpreter.h>
#include <c10/util/SmallVector.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

PYBIND11_DECLARE_HOLDER_TYPE(T, c10::intrusive_ptr<T>, true)

namespace pybind11 {
// Every TensorImpl, sparse ones included, is the one Python Tensor class:
// returning a tensor skips pybind11's lookup of the most-derived C++ type
// (typeid and a hash of its name, on every call that returns a tensor).
template <>
struct polymorphic_type_hook<c10::TensorImpl> {
  static const void* get(const c10::TensorImpl* src, const std::type_info*& type) {
    type = nullptr;
    return src;
  }
};
}  // namespace pybind11

namespace ember::python {

// Ops run with the GIL released (without_gil, in every generated binding),
// as in torch, so that other Python threads run meanwhile: a DataLoader
// worker's thread that hands batches over, a user's threads. Kernels that
// call back into Python take the GIL again.
//
// The calling thread's interpreter is this module's meanwhile
// (interpreter.h): C++ code that calls back into Python finds it.
c10::PythonInterpreter* this_interpreter_for_core();
template <typename F>
decltype(auto) without_gil(F&& f) {
  c10::PythonInterpreterGuard ours(this_interpreter_for_core());
  py::gil_scoped_release no_gil;
  return f();
}

// A Python object held by C++ code that may copy or drop it without the GIL
// (a hook dropped with its graph inside an op): the last owner takes the
// GIL to let go of it.
template <typename T>
std::shared_ptr<T> gil_safe(T object) {
  return std::shared_ptr<T>(new T(std::move(object)), [](T* held) {
    py::gil_scoped_acquire gil;
    delete held;
  });
}
// An int list argument: accepts a sequence of ints (list, tuple, ember.Size)
// or a single int, as PyTorch's int[] parameters do.
struct IntList {
  c10::DimVector values;  // inline up to six ints: no heap allocation per call
  operator c10::IntArrayRef() const { return values; }
};

// A Tensor argument that also takes a Python number, as a weak 0-d
// "wrapped number" tensor: PyTorch's rule for the second operand of binary
// math, which gives e.g. `ember.add(t, 2, out=o)`.
struct TensorOrNumber {
  Tensor tensor;
  operator const Tensor&() const { return tensor; }
};

// pybind11's record of the Tensor class, set when the class is registered
// (init_tensor) and used by every conversion of a tensor.
const py::detail::type_info* tensor_type_info();

inline std::optional<c10::IntArrayRef> as_ref(const std::optional<IntList>& list) {
  if (!list) return std::nullopt;
  return c10::IntArrayRef(list->values);
}

inline std::optional<c10::ArrayRef<double>> as_ref(const std::optional<std::vector<double>>& list) {
  if (!list) return std::nullopt;
  return c10::ArrayRef<double>(*list);
}
}  // namespace ember::python

namespace pybind11::detail {

template <>
struct type_caster<ember::python::IntList> {
  PYBIND11_TYPE_CASTER(ember::python::IntList, const_name("list[int]"));
  bool load(handle src, bool convert);
  static handle cast(const ember::python::IntList& l, return_value_policy, handle) {
    return py::cast(l.values.vec()).release();
  }
};

template <>
struct type_caster<ember::python::TensorOrNumber> {
  PYBIND11_TYPE_CASTER(ember::python::TensorOrNumber, const_name("Tensor | Number"));
  bool load(handle src, bool convert);
  static handle cast(const ember::python::TensorOrNumber& t, return_value_policy policy, handle parent);
};

// Tensors cross through the pybind11 class of c10::TensorImpl, but without
// pybind11's per-call lookup of that class's record (a hash of the C++ type
// name for every argument and result): the record is looked up once, when
// the class is registered.
template <>
struct type_caster<ember::Tensor> {
  PYBIND11_TYPE_CASTER(ember::Tensor, const_name("Tensor"));
  using Holder = c10::intrusive_ptr<c10::TensorImpl>;

  bool load(handle src, bool /*convert*/) {
    // None is no tensor: a Tensor parameter never means "absent"
    // (std::optional<Tensor> does), so the call fails with a TypeError
    // instead of running the op on an undefined tensor.
    const detail::type_info* info = ember::python::tensor_type_info();
    if (src.is_none() || !PyObject_TypeCheck(src.ptr(), info->type)) return false;
    value_and_holder v_h = reinterpret_cast<instance*>(src.ptr())->get_value_and_holder(info);
    if (!v_h.holder_constructed()) return false;  // a subclass whose __init__ never ran
    value = ember::Tensor(v_h.template holder<Holder>());
    return true;
  }

  static handle cast(const ember::Tensor& t, return_value_policy, handle parent) {
    if (!t.defined()) return none().release();
    // An impl that already has a Python object gets that object back.
    const Holder& holder = t.impl_ptr();
    return type_caster_generic::cast(holder.get(), return_value_policy::take_ownership, parent,
                                     ember::python::tensor_type_info(), nullptr, nullptr, &holder);
  }
};

// dtype arguments accept ember dtypes and the Python types bool/int/float/complex.
template <>
struct type_caster<c10::ScalarType> {
  PYBIND11_TYPE_CASTER(c10::ScalarType, const_name("dtype"));
  bool load(handle src, bool convert);
  static handle cast(c10::ScalarType t, return_value_policy, handle);
};

// memory_format arguments take the ember.contiguous_format, ... singletons.
template <>
struct type_caster<c10::MemoryFormat> {
  PYBIND11_TYPE_CASTER(c10::MemoryFormat, const_name("memory_format"));
  bool load(handle src, bool convert);
  static handle cast(c10::MemoryFormat f, return_value_policy, handle);
};

// Scalars accept Python bool, int, float, complex and NumPy scalars.
template <>
struct type_caster<c10::Scalar> {
  PYBIND11_TYPE_CASTER(c10::Scalar, const_name("Number"));
  bool load(handle src, bool convert);
  static handle cast(const c10::Scalar& s, return_value_policy, handle);
};

}  // namespace pybind11::detail

namespace ember::python {

using TensorClass = py::class_<c10::TensorImpl, c10::intrusive_ptr<c10::TensorImpl>>;

// Registration of each part of the module (one per source file).
void init_errors(py::module_& m);
void init_dtype_device(py::module_& m);
void init_tensor(py::module_& m);
void init_tensor_data(py::module_& m, TensorClass& cls);
void init_shared_memory(py::module_& m, TensorClass& cls);
void init_sparse(py::module_& m, TensorClass& cls);
void init_indexing(TensorClass& cls);
void init_operators(TensorClass& cls);
void init_functions(py::module_& m);
void init_dispatch(py::module_& m);
void init_jit(py::module_& m);
void init_lazy(py::module_& m);
void init_deploy_bridge(py::module_& m);
void init_interpreter(py::module_& m);
// An IValue as the Python object it stands for (None, numbers, lists, tensors, dtypes...).
py::object to_python(const IValue& v);
void init_autograd(py::module_& m, TensorClass& cls);
void init_serialization(py::module_& m);
void init_devices(py::module_& m);
void init_autocast(py::module_& m);
void init_distributed(py::module_& m);
// Generated from native_functions.yaml (python_bindings.cpp).
void init_generated_functions(py::module_& m);
void init_generated_methods(TensorClass& cls);

// Results with named fields (e.g. max.dim's values and indices) as a named
// tuple type in ember.return_types, created once per operator.
py::object named_tuple(const char* op_name, std::initializer_list<const char*> fields, py::object values);
py::object named_tuple(const std::string& op_name, const std::vector<std::string>& fields, py::object values);

// The Python dtype object for `t` (a singleton per dtype).
py::object dtype_object(c10::ScalarType t);
// Shapes from Python: `f(2, 3)`, `f((2, 3))` and `f([2, 3])` all mean [2, 3].
// The ints of an int-list parameter `arg` of op `what`, given one by one or as one sequence.
c10::DimVector shape_from_args(const py::args& args, const char* what, const char* arg);
int64_t index_from_object(py::handle obj, const char* what);

}  // namespace ember::python
