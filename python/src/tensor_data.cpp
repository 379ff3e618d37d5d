// Moving data between Ember and Python: nested lists, NumPy (zero-copy both
// ways), DLPack capsules, tolist().

#include "pybind_tensor.h"

#include <aten/DLConvertor.h>
#include <aten/native/TensorIterator.h>
#include <c10/util/TypeCast.h>
#include <dlpack/dlpack.h>

#include <pybind11/numpy.h>

namespace ember::python {

namespace {

// ---- ember.tensor(data): nested sequences of numbers ----------------------

enum class Kind { Bool, Int, Float, Complex };

ScalarType kind_dtype(Kind k) {
  switch (k) {
    case Kind::Bool: return ScalarType::Bool;
    case Kind::Int: return ScalarType::Long;
    case Kind::Float: return c10::get_default_dtype();
    case Kind::Complex: return c10::get_default_complex_dtype();
  }
  return ScalarType::Undefined;
}

bool is_tensor(py::handle h) { return py::isinstance<c10::TensorImpl>(h); }

bool is_sequence(py::handle h) {
  return !py::isinstance<py::str>(h) && !py::isinstance<py::bytes>(h) && PySequence_Check(h.ptr()) &&
         !(is_tensor(h) && h.cast<Tensor>().dim() == 0);
}

Kind leaf_kind(py::handle h) {
  if (is_tensor(h)) {
    const Tensor t = h.cast<Tensor>();
    const ScalarType s = t.dtype();
    return s == ScalarType::Bool ? Kind::Bool
           : c10::isComplexType(s) ? Kind::Complex
           : c10::isFloatingType(s) ? Kind::Float
                                    : Kind::Int;
  }
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return Kind::Bool;
  if (PyLong_Check(o) || (PyIndex_Check(o))) return Kind::Int;
  if (PyFloat_Check(o)) return Kind::Float;
  if (PyComplex_Check(o)) return Kind::Complex;
  if (py::hasattr(h, "dtype") && py::hasattr(h, "item")) {  // NumPy scalars
    return leaf_kind(h.attr("item")());
  }
  throw py::type_error(fmt::format("new(): invalid data type '{}'", Py_TYPE(o)->tp_name));
}

// The shape comes from following first elements; check() then verifies that
// every element agrees with it and finds the widest kind of number.
// As in torch: deeper nesting (or a list that contains itself) is refused
// before check() and fill_from() recurse through it.
constexpr size_t kMaxNestingDims = 128;

std::vector<int64_t> infer_shape(py::handle data) {
  std::vector<int64_t> shape;
  py::object obj = py::reinterpret_borrow<py::object>(data);
  while (is_sequence(obj)) {
    EMBER_CHECK_VALUE(shape.size() < kMaxNestingDims, "too many dimensions '{}'",
                      py::str(py::type::of(obj).attr("__name__")).cast<std::string>());
    py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
    shape.push_back(static_cast<int64_t>(seq.size()));
    if (seq.size() == 0) break;
    obj = seq[0];
  }
  return shape;
}

void check(py::handle obj, size_t depth, const std::vector<int64_t>& shape, std::optional<Kind>& kind) {
  if (depth == shape.size()) {
    // A number where a sequence belongs, or the other way round, is a
    // TypeError (as in torch); only a wrong length is a ValueError.
    EMBER_CHECK_TYPE(!is_sequence(obj), "expected a number at dim {} but found a sequence of length {}", depth,
                     py::len(obj));
    const Kind k = leaf_kind(obj);
    kind = kind ? std::max(*kind, k) : k;
    return;
  }
  EMBER_CHECK_TYPE(is_sequence(obj), "expected sequence of length {} at dim {} (got {})", shape[depth], depth,
                   py::str(py::type::of(obj).attr("__name__")).cast<std::string>());
  py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
  const int64_t n = static_cast<int64_t>(seq.size());
  EMBER_CHECK_VALUE(n == shape[depth], "expected sequence of length {} at dim {} (got {})", shape[depth], depth, n);
  for (py::handle item : seq) check(item, depth + 1, shape, kind);
}

template <typename T>
void store_leaf(py::handle obj, T* dst) {
  if (is_tensor(obj)) {
    *dst = obj.cast<Tensor>().item().to<T>();
  } else {
    *dst = obj.cast<Scalar>().to<T>();
  }
}

template <typename T>
void fill_from(py::handle obj, T*& dst) {
  if (!is_sequence(obj)) {
    store_leaf(obj, dst++);
    return;
  }
  for (py::handle item : py::reinterpret_borrow<py::sequence>(obj)) fill_from(item, dst);
}

Tensor tensor_from_sequence(py::handle data, std::optional<ScalarType> dtype) {
  const std::vector<int64_t> shape = infer_shape(data);
  std::optional<Kind> kind;
  check(data, 0, shape, kind);
  const ScalarType type = dtype.value_or(kind_dtype(kind.value_or(Kind::Float)));
  Tensor t = empty(shape, TensorOptions().dtype(type));
  c10::visit_scalar_type(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* cursor = static_cast<T*>(t.data_ptr());
    fill_from(data, cursor);
  });
  return t;
}

// ---- NumPy -----------------------------------------------------------------

std::optional<ScalarType> dtype_from_numpy(const py::dtype& d) {
  const char kind = d.kind();
  const auto size = d.itemsize();
  if (kind == 'b') return ScalarType::Bool;
  if (kind == 'u' && size == 1) return ScalarType::Byte;
  if (kind == 'i') {
    switch (size) {
      case 1: return ScalarType::Char;
      case 2: return ScalarType::Short;
      case 4: return ScalarType::Int;
      case 8: return ScalarType::Long;
    }
  }
  if (kind == 'f') {
    switch (size) {
      case 2: return ScalarType::Half;
      case 4: return ScalarType::Float;
      case 8: return ScalarType::Double;
    }
  }
  if (kind == 'c') {
    switch (size) {
      case 8: return ScalarType::ComplexFloat;
      case 16: return ScalarType::ComplexDouble;
    }
  }
  return std::nullopt;
}

py::dtype numpy_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(t != ScalarType::BFloat16, "Got unsupported ScalarType BFloat16");
  return py::dtype(std::string(c10::python_name(t)));
}

Tensor from_numpy(py::handle obj) {
  if (!py::isinstance<py::array>(obj)) {
    throw py::type_error(fmt::format("expected np.ndarray (got {})", Py_TYPE(obj.ptr())->tp_name));
  }
  py::array array = py::reinterpret_borrow<py::array>(obj);
  const auto dtype = dtype_from_numpy(array.dtype());
  EMBER_CHECK_TYPE(dtype.has_value(),
                   "can't convert np.ndarray of type {}. The only supported types are: float64, float32, float16, "
                   "complex64, complex128, int64, int32, int16, int8, uint8, and bool.",
                   py::str(array.dtype()).cast<std::string>());
  EMBER_CHECK_VALUE(array.dtype().attr("isnative").cast<bool>(),
                    "given numpy array has byte order different from the native byte order. Conversion between byte "
                    "orders is currently not supported.");
  const int64_t itemsize = static_cast<int64_t>(array.itemsize());
  std::vector<int64_t> sizes(array.ndim()), strides(array.ndim());
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    sizes[i] = array.shape(i);
    const int64_t byte_stride = array.strides(i);
    EMBER_CHECK_VALUE(byte_stride >= 0,
                      "At least one stride in the given numpy array is negative, and tensors with negative strides "
                      "are not currently supported. (You can probably work around this by making a copy of your "
                      "array  with array.copy().) ");
    EMBER_CHECK_VALUE(byte_stride % itemsize == 0,
                      "given numpy array strides not a multiple of the element byte size. Copy the numpy array to "
                      "reallocate the memory.");
    strides[i] = byte_stride / itemsize;
  }
  if (!array.writeable()) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The given NumPy array is not writable, and Ember does not support non-writable tensors. "
                     "Writing to the tensor will modify the array's memory, which NumPy promised not to change.",
                     1) < 0) {
      throw py::error_already_set();
    }
  }
  int64_t span = 1;
  bool empty_array = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    empty_array = empty_array || sizes[i] == 0;
    span += (sizes[i] - 1) * strides[i];
  }
  const size_t nbytes = empty_array ? 0 : static_cast<size_t>(span * itemsize);
  // The storage keeps the array alive; releasing it needs the GIL.
  auto* owner = new py::object(array);
  c10::DataPtr data_ptr(const_cast<void*>(array.data()), owner,
                        [](void* ctx) {
                          py::gil_scoped_acquire gil;
                          delete static_cast<py::object*>(ctx);
                        },
                        Device(DeviceType::CPU));
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(std::move(data_ptr), nbytes));
  return Tensor(c10::make_intrusive<c10::TensorImpl>(std::move(storage), *dtype, sizes, strides, 0,
                                                     nullptr));
}

py::array to_numpy(const Tensor& input, bool force) {
  Tensor t = input;
  if (force) {
    t = t.detach().to(Device(DeviceType::CPU)).resolve_conj().resolve_neg();
  } else {
    EMBER_CHECK(!t.requires_grad(),
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
    EMBER_CHECK_TYPE(t.is_cpu(),
                     "can't convert {} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
                     "memory first.",
                     t.device().str());
    EMBER_CHECK(!t.is_conj(),
                "Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() instead.");
    EMBER_CHECK(!t.is_neg(),
                "Can't call numpy() on Tensor that has negative bit set. Use tensor.resolve_neg().numpy() instead.");
  }
  const py::dtype dtype = numpy_dtype(t.dtype());
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides(t.strides().begin(), t.strides().end());
  for (auto& s : strides) s *= static_cast<py::ssize_t>(t.element_size());
  // The array's base owns a reference to the tensor, so memory stays valid.
  py::capsule base(new Tensor(t), [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(dtype, shape, strides, t.data_ptr(), base);
}

// ---- tolist ----------------------------------------------------------------

template <typename T>
py::object element_to_python(const char* p) {
  const T v = *reinterpret_cast<const T*>(p);
  if constexpr (std::is_same_v<T, bool>) {
    return py::bool_(v);
  } else if constexpr (std::is_integral_v<T>) {
    return py::reinterpret_steal<py::object>(PyLong_FromLongLong(static_cast<long long>(v)));
  } else if constexpr (c10::is_complex_v<T>) {
    return py::reinterpret_steal<py::object>(
        PyComplex_FromDoubles(static_cast<double>(v.real()), static_cast<double>(v.imag())));
  } else {
    return py::reinterpret_steal<py::object>(PyFloat_FromDouble(static_cast<double>(static_cast<float>(v))));
  }
}

template <typename T>
py::object to_list(const char* data, c10::IntArrayRef sizes, c10::IntArrayRef strides, size_t itemsize) {
  if (sizes.empty()) {
    if constexpr (std::is_same_v<T, double>) {
      return py::reinterpret_steal<py::object>(PyFloat_FromDouble(*reinterpret_cast<const double*>(data)));
    } else {
      return element_to_python<T>(data);
    }
  }
  py::list out(sizes[0]);
  for (int64_t i = 0; i < sizes[0]; ++i) {
    out[i] = to_list<T>(data + i * strides[0] * static_cast<int64_t>(itemsize), sizes.slice(1), strides.slice(1),
                        itemsize);
  }
  return out;
}

py::object tolist(const Tensor& input) {
  EMBER_CHECK_NOT_IMPLEMENTED(!input.is_meta(), "Cannot copy out of meta tensor; no data!");
  const Tensor host = input.is_cpu() ? input : input.to(c10::Device(c10::DeviceType::CPU));
  const Tensor t = host.resolve_conj().resolve_neg();
  return c10::visit_scalar_type(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return to_list<T>(static_cast<const char*>(t.data_ptr()), t.sizes(), t.strides(), t.element_size());
  });
}

// ---- DLPack ----------------------------------------------------------------

constexpr const char* kDLTensorName = "dltensor";
constexpr const char* kUsedDLTensorName = "used_dltensor";

py::capsule to_dlpack_capsule(const Tensor& t) {
  DLManagedTensor* managed = toDLPack(t);
  // A capsule never consumed still owns the tensor and must release it.
  PyObject* capsule = PyCapsule_New(managed, kDLTensorName, [](PyObject* self) {
    if (PyCapsule_IsValid(self, kDLTensorName)) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(self, kDLTensorName));
      if (m->deleter) m->deleter(m);
    }
  });
  if (!capsule) throw py::error_already_set();
  return py::reinterpret_steal<py::capsule>(capsule);
}

Tensor from_dlpack(py::object obj) {
  py::object capsule = obj;
  if (!PyCapsule_CheckExact(obj.ptr())) {
    if (!py::hasattr(obj, "__dlpack__")) {
      throw py::type_error(fmt::format("from_dlpack(): expected an object with a __dlpack__ method or a DLPack "
                                       "capsule, got {}",
                                       Py_TYPE(obj.ptr())->tp_name));
    }
    capsule = obj.attr("__dlpack__")();
  }
  // A RuntimeError, as in torch.
  EMBER_CHECK(PyCapsule_IsValid(capsule.ptr(), kDLTensorName),
              "from_dlpack(): the capsule is not a DLPack tensor or was already consumed (each capsule can be used "
              "only once)");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kDLTensorName));
  // Mark consumed first: from here on, Ember owns the managed tensor.
  PyCapsule_SetName(capsule.ptr(), kUsedDLTensorName);
  return fromDLPack(managed);
}

}  // namespace

void init_tensor_data(py::module_& m, TensorClass& cls) {
  m.def(
      "tensor",
      [](py::handle data, std::optional<ScalarType> dtype, std::optional<c10::Device> device, bool requires_grad) {
        Tensor t;
        if (is_tensor(data)) {
          t = data.cast<Tensor>().detach().clone();
        } else if (py::isinstance<py::array>(data)) {
          t = from_numpy(data).clone();
        } else {
          t = tensor_from_sequence(data, dtype);
        }
        t = t.to(device.value_or(t.device()), dtype);
        if (requires_grad) t.set_requires_grad(true);
        return t;
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false);
  m.def("from_numpy", &from_numpy, py::arg("ndarray"));
  m.def("_wrapped_scalar", [](const Scalar& s) { return wrapped_scalar_tensor(s); }, py::arg("value"));
  m.def("from_dlpack", &from_dlpack, py::arg("ext_tensor"));
  m.def("to_dlpack", &to_dlpack_capsule, py::arg("tensor"));

  cls.def("tolist", &tolist)
      .def("numpy", &to_numpy, py::kw_only(), py::arg("force") = false)
      .def(
          "__dlpack__",
          [](const Tensor& self, py::object stream, py::object max_version, py::object dl_device, py::object copy) {
            EMBER_CHECK(stream.is_none() || !self.is_cpu(), "stream must be None for CPU tensors");
            EMBER_CHECK(dl_device.is_none() || py::cast<py::tuple>(dl_device)[0].cast<int>() == kDLCPU,
                        "__dlpack__: only export to the CPU device is supported");
            const bool must_copy = !copy.is_none() && copy.cast<bool>();
            // Only the unversioned capsule exists in DLPack 0.6; consumers
            // asking for a newer max_version accept it too.
            (void)max_version;
            return to_dlpack_capsule(must_copy ? self.clone() : self);
          },
          py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
          py::arg("dl_device") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack_device__", [](const Tensor&) { return py::make_tuple(static_cast<int>(kDLCPU), 0); });
}

}  // namespace ember::python
