// The Python Tensor class: geometry, views, conversions and autograd state.
// Data exchange (numpy, DLPack, lists) lives in tensor_data.cpp and indexing
// in indexing.cpp.

#include "pybind_tensor.h"

#include <pybind11/eval.h>


#include <pybind11/complex.h>

#include <unordered_map>

namespace ember::python {

namespace {

py::object& size_class() {
  static auto* cls = new py::object();  // leaked: outlives the interpreter
  return *cls;
}

py::tuple to_tuple(c10::IntArrayRef values) {
  py::tuple t(values.size());
  for (size_t i = 0; i < values.size(); ++i) t[i] = py::int_(values[i]);
  return t;
}

py::object to_size(c10::IntArrayRef sizes) {
  py::tuple t = to_tuple(sizes);
  if (!size_class()) return std::move(t);
  // tuple's own constructor on the Size class: the ints need none of the
  // checks Size.__new__ makes of user input (x.shape is read constantly).
  PyObject* args = PyTuple_Pack(1, t.ptr());
  if (args == nullptr) throw py::error_already_set();
  PyObject* size = PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(size_class().ptr()), args, nullptr);
  Py_DECREF(args);
  if (size == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(size);
}

// A device from a str or ember.device. Parsing the string here lets its
// error through ("Expected one of cpu, cuda, ..."), which pybind11's implicit
// str conversion would replace with a generic cast error.
c10::Device device_arg(py::handle h) {
  if (py::isinstance<py::str>(h)) return c10::Device(h.cast<std::string>());
  return h.cast<c10::Device>();
}

ScalarType dtype_arg(py::handle h) {
  py::detail::make_caster<ScalarType> caster;
  if (!caster.load(h, true)) {
    throw py::type_error(
        fmt::format("to(): expected a dtype, device or tensor argument, got {}", Py_TYPE(h.ptr())->tp_name));
  }
  return py::detail::cast_op<ScalarType>(caster);
}

// Tensor.to(dtype) / to(device, dtype) / to(other): positional arguments are
// recognised by type, as in PyTorch.
// A memory_format other than preserve_format lays the result out in it.
py::object to_from_args(const Tensor& self, const py::args& args, const py::kwargs& kwargs) {
  std::optional<Device> device;
  std::optional<ScalarType> dtype;
  bool copy = false;
  c10::MemoryFormat memory_format = c10::MemoryFormat::Preserve;
  for (py::handle a : args) {
    if (py::isinstance<c10::TensorImpl>(a)) {
      const Tensor other = a.cast<Tensor>();
      device = other.device();
      dtype = other.dtype();
    } else if (py::isinstance<py::str>(a) || py::isinstance<c10::Device>(a)) {
      device = device_arg(a);
    } else if (PyIndex_Check(a.ptr()) && !PyBool_Check(a.ptr())) {
      device = c10::Device(c10::DeviceType::CUDA, static_cast<int8_t>(index_from_object(a, "device")));
    } else {
      dtype = dtype_arg(a);
    }
  }
  for (auto [key, value] : kwargs) {
    const std::string k = key.cast<std::string>();
    if (k == "dtype") {
      if (!value.is_none()) dtype = dtype_arg(value);
    } else if (k == "device") {
      if (!value.is_none()) device = device_arg(value);
    } else if (k == "copy") {
      copy = value.cast<bool>();
    } else if (k == "memory_format") {
      if (!value.is_none()) memory_format = value.cast<c10::MemoryFormat>();
    } else if (k != "non_blocking") {
      throw py::type_error(fmt::format("to() got an unexpected keyword argument '{}'", k));
    }
  }
  const Tensor result = ember::to(self, device.value_or(self.device()), dtype, false, copy);
  return py::cast(memory_format == c10::MemoryFormat::Preserve ? result : result.contiguous(memory_format));
}

Tensor converted(const Tensor& self, ScalarType t) { return self.to(t); }

// The value behind int(t), float(t) and complex(t). Unlike item(), these
// raise ValueError for other sizes, as in torch.
Scalar single_value(const Tensor& self) {
  EMBER_CHECK_VALUE(self.numel() == 1, "only one element tensors can be converted to Python scalars");
  return self.item();
}

// int(t) and float(t) of a complex tensor: only a real value converts, as in
// torch (silently dropping the imaginary part would hide bugs).
py::object real_value(const Tensor& self) {
  const Scalar value = single_value(self);
  if (value.isBoolean()) return py::int_(value.toLong());  // __int__ must return an int, not a bool
  if (!value.isComplex()) return py::cast(value);
  EMBER_CHECK(value.toComplexDouble().imag() == 0,
              "value cannot be converted to a real number: its imaginary part is not zero");
  return py::float_(value.toDouble());
}

// Binds a const, argument-free member of ember::Tensor on the Python class,
// whose C++ type is TensorImpl.
template <auto Method>
auto method() {
  return [](const Tensor& self) { return (self.*Method)(); };
}

}  // namespace

py::object named_tuple(const char* op_name, std::initializer_list<const char*> fields, py::object values) {
  return named_tuple(op_name, std::vector<std::string>(fields.begin(), fields.end()), std::move(values));
}

py::object named_tuple(const std::string& op_name, const std::vector<std::string>& fields, py::object values) {
  static auto* types = new std::unordered_map<std::string, py::object>();  // leaked: outlives the interpreter
  auto it = types->find(op_name);
  if (it == types->end()) {
    py::list names;
    for (const std::string& f : fields) names.append(f);
    py::object type = py::module_::import("collections").attr("namedtuple")(op_name, names);
    type.attr("__module__") = "ember.return_types";
    // torch's layout: the qualified name, then one field per line.
    type.attr("__repr__") = py::eval("lambda self: f'ember.return_types.{type(self).__name__}(\\n' + "
                                     "',\\n'.join(f'{k}={v!r}' for k, v in zip(self._fields, self)) + ')'");
    it = types->emplace(op_name, type).first;
  }
  return it->second(*values);
}

// A tensor with no Python object yet, handed to Tensor.__init__ so that a
// subclass instance (Parameter, as_subclass) can wrap it. Not constructible
// from Python: wrapping an impl that already has an object would break the
// one-object-per-tensor rule.
struct FreshTensor {
  Tensor tensor;
};

py::object wrap_as(py::handle cls, Tensor fresh) {
  py::object obj = py::type::of<c10::TensorImpl>().attr("__new__")(cls);
  py::type::of<c10::TensorImpl>().attr("__init__")(obj, FreshTensor{std::move(fresh)});
  return obj;
}

namespace {
const py::detail::type_info* tensor_type_record = nullptr;
}  // namespace

const py::detail::type_info* tensor_type_info() { return tensor_type_record; }

void init_tensor(py::module_& m) {
  py::class_<FreshTensor>(m, "_FreshTensor");
  TensorClass cls(m, "Tensor", py::dynamic_attr());
  tensor_type_record = py::detail::get_type_info(typeid(c10::TensorImpl));
  cls.def(py::init([]() { return empty({0}).impl_ptr(); }));
  cls.def(py::init([](const FreshTensor& fresh) { return fresh.tensor.impl_ptr(); }));
  // Parameter-style subclasses: a new `cls` object over data's memory (and
  // version counter), a leaf outside any graph.
  cls.def_static(
      "_make_subclass",
      [](py::handle cls, const Tensor& data, bool require_grad) {
        py::object obj = wrap_as(cls, ember::detach(data));
        obj.cast<Tensor>().set_requires_grad(require_grad);
        return obj;
      },
      py::arg("cls"), py::arg("data"), py::arg("require_grad") = false);
  // Whether `self.data = other` can work (torch._has_compatible_shallow_copy_type):
  // not across tensor implementations (a lazy tensor's and a CPU tensor's).
  m.def("_has_compatible_shallow_copy_type", [](const Tensor& self, const Tensor& other) {
    return typeid(*self.unsafeGetTensorImpl()) == typeid(*other.unsafeGetTensorImpl());
  });
  // The same data as a `cls` instance that stays in self's graph.
  cls.def(
      "as_subclass", [](const Tensor& self, py::handle cls) { return wrap_as(cls, ember::alias(self)); },
      py::arg("cls"));

  m.def("_set_size_class", [](py::object cls) { size_class() = std::move(cls); });
  // For functions written in Python: their results print as the generated bindings' do.
  m.def("_return_type", [](const std::string& op_name, const std::vector<std::string>& fields, py::tuple values) {
    return named_tuple(op_name, fields, std::move(values));
  });

  // Geometry.
  cls.def_property_readonly("shape", [](const Tensor& self) { return to_size(self.sizes()); })
      .def(
          "size",
          [](const Tensor& self, std::optional<int64_t> dim) -> py::object {
            if (dim) return py::int_(self.size(*dim));
            return to_size(self.sizes());
          },
          py::arg("dim") = py::none())
      .def(
          "stride",
          [](const Tensor& self, std::optional<int64_t> dim) -> py::object {
            if (dim) return py::int_(self.stride(*dim));
            return to_tuple(self.strides());
          },
          py::arg("dim") = py::none())
      .def("dim", method<&Tensor::dim>())
      .def("ndimension", method<&Tensor::dim>())
      .def_property_readonly("ndim", method<&Tensor::dim>())
      .def("numel", method<&Tensor::numel>())
      .def("nelement", method<&Tensor::numel>())
      .def("element_size", method<&Tensor::element_size>())
      .def_property_readonly("itemsize", method<&Tensor::element_size>())
      .def_property_readonly("nbytes", method<&Tensor::nbytes>())
      .def("storage_offset", method<&Tensor::storage_offset>())
      .def(
          "is_contiguous", [](const Tensor& self, c10::MemoryFormat format) { return self.is_contiguous(format); },
          py::arg("memory_format") = c10::MemoryFormat::Contiguous)
      .def("data_ptr", [](const Tensor& self) { return reinterpret_cast<uintptr_t>(self.data_ptr()); })
      .def("untyped_storage_nbytes", [](const Tensor& self) { return self.storage().nbytes(); })
      .def("_is_view_of",
           [](const Tensor& self, const Tensor& other) { return self.is_alias_of(other); })
      .def_property_readonly("_version", method<&Tensor::_version>())
      .def("_bump_version", [](const Tensor& self) { self.unsafeGetTensorImpl()->bump_version(); });

  // Type and place.
  cls.def_property_readonly("dtype", [](const Tensor& self) { return self.dtype(); })
      .def_property_readonly("device", [](const Tensor& self) { return self.device(); })
      .def_property_readonly("is_cpu", method<&Tensor::is_cpu>())
      .def_property_readonly("is_cuda", method<&Tensor::is_cuda>())
      .def_property_readonly("is_meta", method<&Tensor::is_meta>())
      .def("is_floating_point", method<&Tensor::is_floating_point>())
      .def("is_complex", method<&Tensor::is_complex>())
      .def("is_conj", method<&Tensor::is_conj>())
      .def("is_neg", method<&Tensor::is_neg>())
      // Hand-written rather than generated: positional arguments are told apart by type.
      .def("to", &to_from_args)
      .def("cpu", [](const Tensor& self) { return self.to(Device(DeviceType::CPU)); });
  constexpr std::pair<const char*, ScalarType> conversions[] = {
      {"bool", ScalarType::Bool},    {"byte", ScalarType::Byte},         {"char", ScalarType::Char},
      {"short", ScalarType::Short},  {"int", ScalarType::Int},           {"long", ScalarType::Long},
      {"half", ScalarType::Half},    {"bfloat16", ScalarType::BFloat16}, {"float", ScalarType::Float},
      {"double", ScalarType::Double}, {"cfloat", ScalarType::ComplexFloat}, {"cdouble", ScalarType::ComplexDouble}};
  for (const auto& [name, type] : conversions) {
    cls.def(name, [type = type](const Tensor& self) { return converted(self, type); });
  }

  // Views that are not operators: properties.
  cls.def_property_readonly("T",
                             [](const Tensor& self) {
                               std::vector<int64_t> dims(self.dim());
                               for (int64_t i = 0; i < self.dim(); ++i) dims[i] = self.dim() - 1 - i;
                               return self.permute(dims);
                             })
      .def_property_readonly("mT", [](const Tensor& self) {
        EMBER_CHECK(self.dim() >= 2,
                    "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.", self.dim());
        return self.transpose(-2, -1);
      });

  // Python number protocol for one-element tensors.
  cls.def("__len__",
           [](const Tensor& self) {
             if (self.dim() == 0) throw py::type_error("len() of a 0-d tensor");
             return self.size(0);
           })
      .def("__bool__",
           [](const Tensor& self) {
             EMBER_CHECK(self.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
             EMBER_CHECK(self.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
             return self.item().toBool();
           })
      // Through Python's own int()/float(), so int(nan) is a ValueError and
      // int(inf) an OverflowError rather than an arbitrary integer.
      .def("__float__", [](const Tensor& self) { return py::float_(real_value(self)); })
      .def("__int__", [](const Tensor& self) { return py::int_(real_value(self)); })
      .def("__complex__", [](const Tensor& self) { return single_value(self).toComplexDouble(); })
      .def("__index__", [](const Tensor& self) {
        EMBER_CHECK_TYPE(self.numel() == 1 && c10::isIntegralType(self.dtype(), true),
                         "only integer tensors of a single element can be converted to an index");
        return self.item().toLong();
      });

  init_generated_methods(cls);
  init_autograd(m, cls);
  init_tensor_data(m, cls);
  init_shared_memory(m, cls);
  init_sparse(m, cls);
  init_indexing(cls);
  init_operators(cls);
}

}  // namespace ember::python
