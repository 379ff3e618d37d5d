// Tensor.__getitem__ / __setitem__. Integers, slices, None, Ellipsis and
// booleans (basic indexing) produce views; tensors, lists and arrays as
// indices (advanced indexing, bool masks included) then go through the
// index / index_put_ operators on that view, as in PyTorch.

#include "pybind_tensor.h"

namespace ember::python {

namespace {

// NumPy arrays of one or more dims index like tensors (their __index__ is
// only for 0-d arrays).
bool is_array(py::handle h) {
  PyObject* o = h.ptr();
  // The usual indices first: asking them for __array__ raises and catches
  // an AttributeError, which would cost more than the whole x[0].
  if (PyLong_CheckExact(o) || PySlice_Check(o) || o == Py_None || o == Py_Ellipsis || PyBool_Check(o) ||
      PyTuple_Check(o) || PyList_Check(o)) {
    return false;
  }
  return !py::isinstance<c10::TensorImpl>(h) && py::hasattr(h, "__array__") && py::hasattr(h, "ndim") &&
         h.attr("ndim").cast<int64_t>() > 0;
}

// A 0-d bool tensor indexes like the Python bool it holds.
bool is_bool_scalar_tensor(py::handle h) {
  if (!py::isinstance<c10::TensorImpl>(h)) return false;
  const Tensor t = h.cast<Tensor>();
  return t.dim() == 0 && t.dtype() == ScalarType::Bool;
}

bool is_int_index(py::handle h) {
  if (PyBool_Check(h.ptr()) || is_array(h)) return false;
  if (PyIndex_Check(h.ptr()) && !py::isinstance<c10::TensorImpl>(h)) return true;
  if (py::isinstance<c10::TensorImpl>(h)) {
    const Tensor t = h.cast<Tensor>();
    return t.dim() == 0 && c10::isIntegralType(t.dtype(), false);
  }
  return false;
}

int64_t int_index(py::handle h) {
  if (py::isinstance<c10::TensorImpl>(h)) return h.cast<Tensor>().item().toLong();
  return index_from_object(h, "index");
}

// As in torch, a value may carry extra leading size-1 dims (x[0] = y[None]);
// dropping them leaves broadcasting against the target to do the rest.
Tensor without_leading_ones(Tensor value) {
  while (value.dim() > 0 && value.size(0) == 1) value = value.squeeze(0);
  return value;
}

// Tensors, lists and arrays used as indices.
bool is_advanced(py::handle h) {
  if (py::isinstance<c10::TensorImpl>(h)) return !is_int_index(h) && !is_bool_scalar_tensor(h);
  return py::isinstance<py::list>(h) || is_array(h);
}

bool is_bool_index(py::handle h) { return PyBool_Check(h.ptr()) || is_bool_scalar_tensor(h); }

bool bool_value(py::handle h) {
  return PyBool_Check(h.ptr()) ? h.ptr() == Py_True : h.cast<Tensor>().item().toBool();
}

Tensor as_index_tensor(py::handle h) {
  if (py::isinstance<c10::TensorImpl>(h)) return h.cast<Tensor>();
  return py::module_::import("ember").attr("tensor")(h).cast<Tensor>();
}

[[noreturn]] void unsupported_index(py::handle h) {
  throw py::index_error(fmt::format(
      "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
      Py_TYPE(h.ptr())->tp_name));
}

struct Indexed {
  Tensor view;                                    // after basic indexing
  std::vector<std::optional<Tensor>> advanced;    // per dim of `view`; empty when none
};

Indexed apply_index(const Tensor& self, py::handle index) {
  py::tuple items = py::isinstance<py::tuple>(index) ? py::reinterpret_borrow<py::tuple>(index)
                                                     : py::make_tuple(py::reinterpret_borrow<py::object>(index));
  // Indices that consume dims of `self` (a bool mask consumes as many as it has).
  int64_t consuming = 0;
  bool seen_ellipsis = false;
  std::vector<Tensor> tensors;  // converted advanced indices, in order
  for (py::handle item : items) {
    if (item.ptr() == Py_Ellipsis) {
      if (seen_ellipsis) throw py::index_error("an index can only have a single ellipsis ('...')");
      seen_ellipsis = true;
    } else if (is_int_index(item) || PySlice_Check(item.ptr())) {
      ++consuming;
    } else if (is_advanced(item)) {
      tensors.push_back(as_index_tensor(item));
      const Tensor& t = tensors.back();
      consuming += t.dtype() == ScalarType::Bool ? std::max<int64_t>(t.dim(), 1) : 1;
    } else if (!item.is_none() && !is_bool_index(item)) {
      unsupported_index(item);
    }
  }
  EMBER_CHECK_INDEX(consuming <= self.dim(), "too many indices for tensor of dimension {}", self.dim());

  Tensor result = self;
  int64_t dim = 0;  // the dim of `result` the next item applies to
  std::vector<std::pair<int64_t, Tensor>> advanced;
  size_t next_tensor = 0;
  for (py::handle item : items) {
    if (item.ptr() == Py_Ellipsis) {
      dim += self.dim() - consuming;
    } else if (item.is_none()) {
      result = result.unsqueeze(dim++);
    } else if (is_bool_index(item)) {
      // x[True] adds a dim of size 1; x[False] one of size 0.
      result = result.unsqueeze(dim);
      if (!bool_value(item)) result = result.slice(dim, 0, 0);
      ++dim;
    } else if (is_int_index(item)) {
      const int64_t i = int_index(item);
      const int64_t size = result.size(dim);
      EMBER_CHECK_INDEX(i >= -size && i < size, "index {} is out of bounds for dimension {} with size {}", i, dim,
                        size);
      result = result.select(dim, i);
    } else if (PySlice_Check(item.ptr())) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
      // PySlice_Unpack clamps missing bounds to PY_SSIZE_T_MIN/MAX; slice() clamps again to the size.
      result = result.slice(dim, start, stop, step);
      ++dim;
    } else {
      const Tensor& t = tensors[next_tensor++];
      advanced.emplace_back(dim, t);
      dim += t.dtype() == ScalarType::Bool ? std::max<int64_t>(t.dim(), 1) : 1;
    }
  }
  Indexed out;
  out.view = advanced.empty() && result.is_same(self) ? ember::alias(self) : result;
  // One entry per dim up to the last indexed one; a mask covers several dims.
  int64_t cursor = 0;
  for (auto& [position, t] : advanced) {
    for (; cursor < position; ++cursor) out.advanced.emplace_back(std::nullopt);
    out.advanced.emplace_back(t);
    cursor = position + (t.dtype() == ScalarType::Bool ? std::max<int64_t>(t.dim(), 1) : 1);
  }
  return out;
}

}  // namespace

void init_indexing(TensorClass& cls) {
  cls.def("__getitem__", [](const Tensor& self, py::handle index) {
    Indexed indexed = apply_index(self, index);
    return indexed.advanced.empty() ? indexed.view : ember::index(indexed.view, indexed.advanced);
  });
  cls.def("__setitem__", [](const Tensor& self, py::handle index, py::handle value) {
    Indexed indexed = apply_index(self, index);
    const Tensor& target = indexed.view;
    const bool text = py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value);
    if (!indexed.advanced.empty()) {
      Tensor values = py::isinstance<c10::TensorImpl>(value)
                          ? value.cast<Tensor>()
                          : py::module_::import("ember").attr("tensor")(value, py::arg("dtype") = target.dtype())
                                .cast<Tensor>();
      ember::index_put_(target, indexed.advanced, without_leading_ones(values));
      return;
    }
    if (py::isinstance<c10::TensorImpl>(value)) {
      target.copy_(without_leading_ones(value.cast<Tensor>()));
    } else if (!text && (PySequence_Check(value.ptr()) || py::hasattr(value, "__array__"))) {
      target.copy_(without_leading_ones(py::module_::import("ember").attr("tensor")(value).cast<Tensor>()));
    } else {
      // A TypeError naming the type, as in torch (not pybind11's generic cast error).
      py::detail::make_caster<Scalar> scalar;
      EMBER_CHECK_TYPE(!text && scalar.load(value, true), "can't assign a {} to a tensor",
                       Py_TYPE(value.ptr())->tp_name);
      target.fill_(py::detail::cast_op<Scalar>(scalar));
    }
  });
}

}  // namespace ember::python
