// A sparse COO tensor's metadata and parts, as torch's Tensor shows them.
// (Its ops are generated from native_functions.yaml.)

#include "pybind_tensor.h"

#include <aten/core/SparseTensorImpl.h>

namespace ember::python {

namespace {
const SparseTensorImpl& parts(const Tensor& t, const char* op) { return sparse_impl(t, op); }
// indices()/values() promise unique sorted indices; _indices()/_values() do not.
const SparseTensorImpl& coalesced_parts(const Tensor& t, const char* op) {
  const SparseTensorImpl& s = parts(t, op);
  EMBER_CHECK(s.coalesced(), "Cannot get {} on an uncoalesced tensor, please call .coalesce() first", op);
  return s;
}
}  // namespace

void init_sparse(py::module_& m, TensorClass& cls) {
  cls.def_property_readonly("is_sparse", [](const Tensor& self) { return self.is_sparse(); })
      .def_property_readonly("_layout_name", [](const Tensor& self) { return std::string(c10::toString(self.layout())); })
      .def("sparse_dim", [](const Tensor& self) { return self.is_sparse() ? parts(self, "sparse_dim").sparse_dim() : 0; })
      .def("dense_dim",
           [](const Tensor& self) { return self.is_sparse() ? parts(self, "dense_dim").dense_dim() : self.dim(); })
      .def("_nnz", [](const Tensor& self) { return parts(self, "_nnz").nnz(); })
      .def("is_coalesced", [](const Tensor& self) { return parts(self, "is_coalesced").coalesced(); })
      .def("_indices", [](const Tensor& self) { return parts(self, "_indices").indices(); })
      .def("_values", [](const Tensor& self) { return parts(self, "_values").values(); })
      .def("indices", [](const Tensor& self) { return coalesced_parts(self, "indices").indices(); })
      .def("values", [](const Tensor& self) { return coalesced_parts(self, "values").values(); });
  (void)m;
}

}  // namespace ember::python
