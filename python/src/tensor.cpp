// The Python Tensor class: geometry, views, conversions and autograd state.
// Data exchange (numpy, DLPack, lists) lives in tensor_data.cpp and indexing
// in indexing.cpp.

#include "pybind_tensor.h"

#include <autograd/AutogradMeta.h>

#include <pybind11/complex.h>

namespace ember::python {

namespace {

py::object& size_class() {
  static auto* cls = new py::object();  // leaked: outlives the interpreter
  return *cls;
}

py::object to_size(c10::IntArrayRef sizes) {
  py::tuple t(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) t[i] = py::int_(sizes[i]);
  return size_class() ? size_class()(t) : py::object(t);
}

py::tuple to_tuple(c10::IntArrayRef values) {
  py::tuple t(values.size());
  for (size_t i = 0; i < values.size(); ++i) t[i] = py::int_(values[i]);
  return t;
}

autograd::AutogradMeta* autograd_meta(const Tensor& t) {
  return static_cast<autograd::AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta());
}

Tensor converted(const Tensor& self, ScalarType t) { return self.to(t); }

// Binds a const, argument-free member of ember::Tensor on the Python class,
// whose C++ type is TensorImpl.
template <auto Method>
auto method() {
  return [](const Tensor& self) { return (self.*Method)(); };
}

}  // namespace

void init_tensor(py::module_& m) {
  TensorClass cls(m, "Tensor", py::dynamic_attr());
  cls.def(py::init([]() { return empty({0}).impl_ptr(); }));

  m.def("_set_size_class", [](py::object cls) { size_class() = std::move(cls); });

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
      .def("is_contiguous", [](const Tensor& self) { return self.is_contiguous(); })
      .def("data_ptr", [](const Tensor& self) { return reinterpret_cast<uintptr_t>(self.data_ptr()); })
      .def("untyped_storage_nbytes", [](const Tensor& self) { return self.storage().nbytes(); })
      .def("_is_view_of",
           [](const Tensor& self, const Tensor& other) { return self.is_alias_of(other); })
      .def_property_readonly("_version", method<&Tensor::_version>());

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

  // Autograd state. The graph itself arrives with the autograd engine.
  cls.def_property(
         "requires_grad", [](const Tensor& self) { return self.requires_grad(); },
         [](Tensor& self, bool value) { self.set_requires_grad(value); })
      .def(
          "requires_grad_", [](Tensor& self, bool value) -> Tensor { return self.set_requires_grad(value); },
          py::arg("requires_grad") = true)
      .def_property_readonly("is_leaf", [](const Tensor&) { return true; })
      .def_property_readonly("grad_fn", [](const Tensor&) { return py::none(); })
      .def_property(
          "grad",
          [](const Tensor& self) -> Tensor {
            auto* meta = autograd_meta(self);
            return meta ? meta->grad : Tensor();
          },
          [](Tensor& self, std::optional<Tensor> grad) {
            if (grad && grad->defined()) {
              EMBER_CHECK(grad->sizes() == self.sizes(), "assigned grad has data of a different size");
              EMBER_CHECK(grad->dtype() == self.dtype(), "assigned grad has data of a different type");
              EMBER_CHECK(grad->device() == self.device(), "assigned grad has data located on a different device");
            }
            auto* meta = autograd_meta(self);
            if (!meta) {
              if (!grad || !grad->defined()) return;
              self.unsafeGetTensorImpl()->set_autograd_meta(std::make_unique<autograd::AutogradMeta>());
              meta = autograd_meta(self);
            }
            meta->grad = grad.value_or(Tensor());
          });

  // Python number protocol for one-element tensors.
  cls.def("__len__",
           [](const Tensor& self) {
             if (self.dim() == 0) throw py::type_error("len() of a 0-d tensor");
             return self.size(0);
           })
      .def("__bool__",
           [](const Tensor& self) {
             EMBER_CHECK(self.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
             return self.item().toBool();
           })
      .def("__float__", [](const Tensor& self) { return self.item().toDouble(); })
      .def("__int__", [](const Tensor& self) { return self.item().toLong(); })
      .def("__complex__", [](const Tensor& self) { return self.item().toComplexDouble(); })
      .def("__index__", [](const Tensor& self) {
        EMBER_CHECK_TYPE(self.numel() == 1 && c10::isIntegralType(self.dtype(), true),
                         "only integer tensors of a single element can be converted to an index");
        return self.item().toLong();
      });

  init_generated_methods(cls);
  init_tensor_data(m, cls);
  init_indexing(cls);
}

}  // namespace ember::python
