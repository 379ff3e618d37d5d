// ember.dtype, ember.device and the argument conversions for dtypes and scalars.

#include "pybind_tensor.h"

#include <aten/native/TensorIterator.h>

#include <pybind11/complex.h>

#include <array>
#include <cmath>

namespace ember::python {

namespace {

// One object per dtype, so `t.dtype is ember.float32` holds.
struct PyDtype {
  c10::ScalarType type;
};

std::array<PyDtype, c10::kNumScalarTypes> dtype_table = [] {
  std::array<PyDtype, c10::kNumScalarTypes> t{};
  for (int i = 0; i < c10::kNumScalarTypes; ++i) t[i].type = static_cast<c10::ScalarType>(i);
  return t;
}();

// One object per memory format, as for dtypes.
struct PyMemoryFormat {
  c10::MemoryFormat format;
};

std::array<PyMemoryFormat, c10::kNumMemoryFormats> memory_format_table = [] {
  std::array<PyMemoryFormat, c10::kNumMemoryFormats> t{};
  for (int i = 0; i < c10::kNumMemoryFormats; ++i) t[i].format = static_cast<c10::MemoryFormat>(i);
  return t;
}();

std::array<py::object, c10::kNumMemoryFormats>& memory_format_objects() {
  static auto* objects = new std::array<py::object, c10::kNumMemoryFormats>();  // leaked: outlives the interpreter
  return *objects;
}

std::array<py::object, c10::kNumScalarTypes>& dtype_objects() {
  static auto* objects = new std::array<py::object, c10::kNumScalarTypes>();  // leaked: outlives the interpreter
  return *objects;
}

}  // namespace

py::object dtype_object(c10::ScalarType t) {
  EMBER_CHECK(t != c10::ScalarType::Undefined, "undefined dtype");
  return dtype_objects()[static_cast<int>(t)];
}

int64_t index_from_object(py::handle obj, const char* what) {
  if (PyBool_Check(obj.ptr()) || !PyIndex_Check(obj.ptr())) {
    throw py::type_error(fmt::format("{} must be int, not {}", what, Py_TYPE(obj.ptr())->tp_name));
  }
  // __index__ may raise (a float tensor's does): pass its error on.
  const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!index) throw py::error_already_set();
  const long long v = PyLong_AsLongLong(index.ptr());
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

c10::DimVector shape_from_args(const py::args& args, const char* what, const char* arg) {
  py::sequence seq = args;
  if (args.size() == 1 && !PyIndex_Check(args[0].ptr())) {
    if (!py::isinstance<py::sequence>(args[0])) {
      throw py::type_error(fmt::format("{}(): argument '{}' must be tuple of ints, but found element of type {}",
                                       what, arg, Py_TYPE(args[0].ptr())->tp_name));
    }
    seq = py::reinterpret_borrow<py::sequence>(args[0]);
  }
  c10::DimVector shape;
  shape.reserve(seq.size());
  for (py::handle item : seq) {
    if (PyBool_Check(item.ptr()) || !PyIndex_Check(item.ptr())) {
      throw py::type_error(fmt::format("{}(): argument '{}' must be tuple of ints, but found element of type {}",
                                       what, arg, Py_TYPE(item.ptr())->tp_name));
    }
    shape.push_back(index_from_object(item, arg));
  }
  return shape;
}

// ember.finfo / ember.iinfo: the ranges of c10's scalar-type table, with
// torch's fields and spelling.
struct FloatInfo {
  c10::ScalarType real;  // complex64's finfo is float32's
  const c10::ScalarTypeInfo& info() const { return c10::info(real); }
  double resolution() const { return std::pow(10.0, -info().digits); }
};
struct IntInfo {
  c10::ScalarType type;
};

void init_type_limits(py::module_& m) {
  py::class_<FloatInfo>(m, "finfo")
      .def(py::init([](std::optional<c10::ScalarType> dtype) {
             const c10::ScalarType t = dtype.value_or(c10::get_default_dtype());
             if (!c10::isFloatingType(t) && !c10::isComplexType(t)) {
               throw py::type_error("ember.finfo() requires a floating point input type. Use ember.iinfo to handle "
                                    "'ember.finfo'");
             }
             return FloatInfo{c10::toRealValueType(t)};
           }),
           py::arg("type") = py::none())
      .def_property_readonly("bits", [](const FloatInfo& f) { return 8 * c10::elementSize(f.real); })
      .def_property_readonly("eps", [](const FloatInfo& f) { return f.info().eps; })
      .def_property_readonly("max", [](const FloatInfo& f) { return f.info().max; })
      .def_property_readonly("min", [](const FloatInfo& f) { return -f.info().max; })
      .def_property_readonly("tiny", [](const FloatInfo& f) { return f.info().tiny; })
      .def_property_readonly("smallest_normal", [](const FloatInfo& f) { return f.info().tiny; })
      .def_property_readonly("resolution", &FloatInfo::resolution)
      .def_property_readonly("dtype", [](const FloatInfo& f) { return c10::python_name(f.real); })
      .def("__eq__", [](const FloatInfo& a, const FloatInfo& b) { return a.real == b.real; })
      .def("__repr__", [](const FloatInfo& f) {
        const auto& i = f.info();
        return fmt::format("finfo(resolution={:g}, min={:g}, max={:g}, eps={:g}, smallest_normal={:g}, tiny={:g}, dtype={})",
                           f.resolution(), -i.max, i.max, i.eps, i.tiny, i.tiny, c10::python_name(f.real));
      });
  py::class_<IntInfo>(m, "iinfo")
      .def(py::init([](c10::ScalarType t) {
             if (t == c10::ScalarType::Bool) throw py::type_error("ember.bool is not supported by ember.iinfo");
             if (!c10::isIntegralType(t, false)) {
               throw py::type_error("ember.iinfo() requires an integer input type. Use ember.finfo to handle "
                                    "'ember.iinfo'");
             }
             return IntInfo{t};
           }),
           py::arg("type"))
      .def_property_readonly("bits", [](const IntInfo& i) { return 8 * c10::elementSize(i.type); })
      .def_property_readonly("min", [](const IntInfo& i) { return c10::info(i.type).int_min; })
      .def_property_readonly("max", [](const IntInfo& i) { return c10::info(i.type).int_max; })
      .def_property_readonly("dtype", [](const IntInfo& i) { return c10::python_name(i.type); })
      .def("__eq__", [](const IntInfo& a, const IntInfo& b) { return a.type == b.type; })
      .def("__repr__", [](const IntInfo& i) {
        // torch prints the bounds as floats (%g), large ones in exponent form.
        return fmt::format("iinfo(min={:g}, max={:g}, dtype={})", static_cast<double>(c10::info(i.type).int_min),
                           static_cast<double>(c10::info(i.type).int_max), c10::python_name(i.type));
      });
}

void init_dtype_device(py::module_& m) {
  py::class_<PyDtype>(m, "dtype")
      .def_property_readonly("is_floating_point", [](const PyDtype& d) { return c10::isFloatingType(d.type); })
      .def_property_readonly("is_complex", [](const PyDtype& d) { return c10::isComplexType(d.type); })
      .def_property_readonly("is_signed", [](const PyDtype& d) { return c10::isSignedType(d.type); })
      .def_property_readonly("itemsize", [](const PyDtype& d) { return c10::elementSize(d.type); })
      .def_property_readonly("_legacy_name", [](const PyDtype& d) { return c10::info(d.type).legacy_name; })
      .def("to_real", [](const PyDtype& d) { return c10::toRealValueType(d.type); })
      .def("to_complex", [](const PyDtype& d) { return c10::toComplexType(d.type); })
      .def("__repr__", [](const PyDtype& d) { return fmt::format("ember.{}", c10::python_name(d.type)); })
      // Pickles by name, resolving to the same singleton on load.
      .def("__reduce__", [](const PyDtype& d) { return std::string(c10::python_name(d.type)); });
  py::tuple all(c10::kNumScalarTypes);
  for (int i = 0; i < c10::kNumScalarTypes; ++i) {
    py::object obj = py::cast(&dtype_table[i], py::return_value_policy::reference);
    dtype_objects()[i] = obj;
    m.attr(std::string(c10::kScalarTypeInfo[i].name).c_str()) = obj;
    all[i] = obj;
  }
  m.attr("_all_dtypes") = all;  // in the table's order

  py::class_<PyMemoryFormat>(m, "memory_format")
      .def("__repr__", [](const PyMemoryFormat& f) { return fmt::format("ember.{}", c10::toString(f.format)); })
      .def("__reduce__", [](const PyMemoryFormat& f) { return std::string(c10::toString(f.format)); });
  for (int i = 0; i < c10::kNumMemoryFormats; ++i) {
    py::object obj = py::cast(&memory_format_table[i], py::return_value_policy::reference);
    memory_format_objects()[i] = obj;
    m.attr(std::string(c10::toString(static_cast<c10::MemoryFormat>(i))).c_str()) = obj;
  }

  init_type_limits(m);

  py::class_<c10::Device>(m, "device")
      .def(py::init([](const std::string& spec) { return c10::Device(spec); }), py::arg("type"))
      .def(py::init([](const std::string& type, int64_t index) {
             EMBER_CHECK(type.find(':') == std::string::npos,
                         "type (string) must not include an index because index was passed explicitly: {}", type);
             EMBER_CHECK(index >= 0, "Device index must not be negative");
             return c10::Device(type + ":" + std::to_string(index));
           }),
           py::arg("type"), py::arg("index"))
      .def(py::init([](const c10::Device& d) { return d; }))
      .def_property_readonly("type", [](const c10::Device& d) { return std::string(c10::toString(d.type)); })
      .def_property_readonly("index",
                             [](const c10::Device& d) -> py::object {
                               return d.has_index() ? py::int_(d.index) : py::object(py::none());
                             })
      .def("__str__", &c10::Device::str)
      .def("__repr__",
           [](const c10::Device& d) {
             return d.has_index() ? fmt::format("device(type='{}', index={})", c10::toString(d.type), d.index)
                                  : fmt::format("device(type='{}')", c10::toString(d.type));
           })
      // Equal only to devices, as in torch: device('cpu') == 'cpu' is False
      // (not True through the str conversion) and == 1 is False, not a TypeError.
      .def("__eq__",
           [](const c10::Device& a, py::handle b) {
             return py::isinstance<c10::Device>(b) && a == b.cast<c10::Device>();
           })
      .def("__hash__", [](const c10::Device& d) { return std::hash<c10::Device>()(d); })
      .def("__reduce__", [](const c10::Device& d) {
        return py::make_tuple(py::module_::import("ember").attr("device"), py::make_tuple(d.str()));
      });
  py::implicitly_convertible<py::str, c10::Device>();
}

}  // namespace ember::python

namespace pybind11::detail {

bool type_caster<c10::ScalarType>::load(handle src, bool) {
  using ember::python::PyDtype;
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) {
    value = c10::ScalarType::Double;
  } else if (src.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) {
    value = c10::ScalarType::Long;
  } else if (src.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) {
    value = c10::ScalarType::Bool;
  } else if (src.ptr() == reinterpret_cast<PyObject*>(&PyComplex_Type)) {
    value = c10::ScalarType::ComplexDouble;
  } else {
    make_caster<PyDtype> caster;
    if (!caster.load(src, false)) return false;
    value = cast_op<PyDtype&>(caster).type;
  }
  return true;
}

handle type_caster<c10::ScalarType>::cast(c10::ScalarType t, return_value_policy, handle) {
  return ember::python::dtype_object(t).release();
}

bool type_caster<c10::MemoryFormat>::load(handle src, bool) {
  make_caster<ember::python::PyMemoryFormat> caster;
  if (!caster.load(src, false)) return false;
  value = cast_op<ember::python::PyMemoryFormat&>(caster).format;
  return true;
}

handle type_caster<c10::MemoryFormat>::cast(c10::MemoryFormat f, return_value_policy, handle) {
  return ember::python::memory_format_objects()[static_cast<int>(f)].inc_ref();
}

bool type_caster<ember::python::IntList>::load(handle src, bool) {
  PyObject* o = src.ptr();
  if (PyIndex_Check(o) && !PyBool_Check(o)) {
    value.values = {ember::python::index_from_object(src, "int list element")};
    return true;
  }
  if (!PySequence_Check(o) || PyUnicode_Check(o) || PyBytes_Check(o)) return false;
  py::sequence seq = reinterpret_borrow<py::sequence>(src);
  value.values.clear();
  value.values.reserve(seq.size());
  for (py::handle item : seq) {
    if (PyBool_Check(item.ptr()) || !PyIndex_Check(item.ptr())) return false;
    value.values.push_back(ember::python::index_from_object(item, "int list element"));
  }
  return true;
}

bool type_caster<ember::python::TensorOrNumber>::load(handle src, bool convert) {
  make_caster<ember::Tensor> tensor;
  if (tensor.load(src, convert)) {
    value.tensor = cast_op<ember::Tensor&>(tensor);
    return true;
  }
  make_caster<c10::Scalar> number;
  if (!number.load(src, convert)) return false;
  value.tensor = ember::wrapped_scalar_tensor(cast_op<c10::Scalar&>(number));
  return true;
}

handle type_caster<ember::python::TensorOrNumber>::cast(const ember::python::TensorOrNumber& t,
                                                        return_value_policy policy, handle parent) {
  return make_caster<ember::Tensor>::cast(t.tensor, policy, parent);
}

bool type_caster<c10::Scalar>::load(handle src, bool convert) {
  PyObject* o = src.ptr();
  if (PyBool_Check(o)) {
    value = c10::Scalar(o == Py_True);
  } else if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0) throw py::value_error("Overflow when unpacking long");
    value = c10::Scalar(static_cast<int64_t>(v));
  } else if (PyFloat_Check(o)) {
    value = c10::Scalar(PyFloat_AS_DOUBLE(o));
  } else if (PyComplex_Check(o)) {
    value = c10::Scalar(c10::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
  } else if (convert && PyIndex_Check(o) && !py::isinstance<c10::TensorImpl>(src)) {  // NumPy integer scalars
    value = c10::Scalar(ember::python::index_from_object(src, "value"));
  } else if (convert && hasattr(src, "dtype") && hasattr(src, "item")) {
    // NumPy scalars and one-element arrays or tensors: take the Python value.
    object item;
    try {
      item = src.attr("item")();
    } catch (const error_already_set&) {
      return false;
    } catch (const c10::Error&) {
      return false;
    }
    PyObject* i = item.ptr();
    if (!(PyBool_Check(i) || PyLong_Check(i) || PyFloat_Check(i) || PyComplex_Check(i))) return false;
    return load(item, false);
  } else {
    return false;
  }
  return true;
}

handle type_caster<c10::Scalar>::cast(const c10::Scalar& s, return_value_policy, handle) {
  switch (s.tag()) {
    case c10::Scalar::Tag::Bool: return py::bool_(s.toBool()).release();
    case c10::Scalar::Tag::Int: return PyLong_FromLongLong(s.toLong());
    case c10::Scalar::Tag::Double: return PyFloat_FromDouble(s.toDouble());
    case c10::Scalar::Tag::Complex: {
      const auto z = s.toComplexDouble();
      return PyComplex_FromDoubles(z.real(), z.imag());
    }
  }
  return none().release();
}

}  // namespace pybind11::detail
