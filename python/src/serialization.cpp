// ember.save / ember.load: Python objects to and from Ember's file format
// (aten/serialize). Only data crosses: unknown types are refused on save,
// and loading builds nothing but the value types listed here.

#include "pybind_tensor.h"

#include <aten/serialize/Serialization.h>

#include <sstream>

namespace ember::python {

namespace {

using serialize::Value;

constexpr int kMaxDepth = 1000;

Value to_value(py::handle obj, int depth) {
  EMBER_CHECK_VALUE(depth < kMaxDepth, "ember.save: the object nests more than {} levels deep (a cycle?)", kMaxDepth);
  static py::object tensor_type = py::module_::import("ember").attr("Tensor");
  static py::object dtype_type = py::module_::import("ember").attr("dtype");
  static py::object device_type = py::module_::import("ember").attr("device");
  static py::object ordered_dict = py::module_::import("collections").attr("OrderedDict");
  if (obj.is_none()) return Value::none();
  if (py::isinstance<py::bool_>(obj)) return Value::of(obj.cast<bool>());
  if (py::isinstance<py::int_>(obj)) {
    try {
      return Value::of(obj.cast<int64_t>());
    } catch (const py::cast_error&) {
      EMBER_CHECK_VALUE(false, "ember.save: the int {} does not fit in 64 bits", py::str(obj).cast<std::string>());
    }
  }
  if (py::isinstance<py::float_>(obj)) return Value::of(obj.cast<double>());
  if (py::isinstance<py::str>(obj)) return Value::of(obj.cast<std::string>());
  if (py::isinstance<py::bytes>(obj)) return Value::bytes(obj.cast<std::string>());
  if (py::isinstance(obj, tensor_type)) {
    const py::handle type = py::type::of(obj);
    const bool parameter = py::str(type.attr("__name__")).cast<std::string>() == "Parameter" &&
                           py::str(type.attr("__module__")).cast<std::string>().rfind("ember.nn", 0) == 0;
    return Value::of(obj.cast<Tensor>(), parameter ? "Parameter" : "Tensor");
  }
  if (py::isinstance(obj, dtype_type)) return Value::dtype(obj.cast<ScalarType>());
  if (py::isinstance(obj, device_type)) return Value::device(obj.cast<Device>());
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    std::vector<Value> items;
    for (py::handle item : obj) items.push_back(to_value(item, depth + 1));
    return py::isinstance<py::list>(obj) ? Value::list(std::move(items)) : Value::tuple(std::move(items));
  }
  if (py::isinstance<py::dict>(obj)) {
    std::vector<std::pair<Value, Value>> entries;
    for (auto [key, value] : obj.cast<py::dict>()) entries.emplace_back(to_value(key, depth + 1), to_value(value, depth + 1));
    return Value::dict(std::move(entries), py::isinstance(obj, ordered_dict));
  }
  EMBER_CHECK_TYPE(false,
                   "ember.save: cannot save an object of type '{}'. Ember files hold tensors, numbers, strings, bytes, "
                   "dtypes, devices and lists, tuples and dicts of them (never code); save a state_dict() rather "
                   "than a module",
                   py::str(py::type::of(obj).attr("__qualname__")).cast<std::string>());
}

py::object to_python(const Value& v) {
  switch (v.kind) {
    case Value::Kind::None: return py::none();
    case Value::Kind::Bool: return py::bool_(v.bool_value);
    case Value::Kind::Int: return py::int_(v.int_value);
    case Value::Kind::Float: return py::float_(v.float_value);
    case Value::Kind::String: return py::str(v.string_value);
    case Value::Kind::Bytes: return py::bytes(v.string_value);
    case Value::Kind::Dtype:
      for (int i = 0; i < c10::kNumScalarTypes; ++i) {
        if (c10::python_name(static_cast<ScalarType>(i)) == v.string_value) return dtype_object(static_cast<ScalarType>(i));
      }
      return py::none();  // unreachable: the reader validated the name
    default: break;
  }
  if (v.kind == Value::Kind::Tensor) {
    if (v.string_value == "Parameter") {
      return py::module_::import("ember.nn").attr("Parameter")(v.tensor, v.tensor.requires_grad());
    }
    return py::cast(v.tensor);
  }
  if (v.kind == Value::Kind::Device) return py::module_::import("ember").attr("device")(v.string_value);
  if (v.kind == Value::Kind::List || v.kind == Value::Kind::Tuple) {
    py::list items;
    for (const Value& item : v.items) items.append(to_python(item));
    return v.kind == Value::Kind::List ? py::object(items) : py::object(py::tuple(items));
  }
  py::object d = v.kind == Value::Kind::OrderedDict ? py::module_::import("collections").attr("OrderedDict")()
                                                      : py::object(py::dict());
  for (const auto& [key, value] : v.entries) d[to_python(key)] = to_python(value);
  return d;
}

}  // namespace

void init_serialization(py::module_& m) {
  m.def("_save_to_bytes", [](py::handle obj) {
    const Value root = to_value(obj, 0);
    std::ostringstream out;
    serialize::save(root, out);
    return py::bytes(out.str());
  });
  m.def("_load_from_bytes", [](const py::bytes& data, const std::string& name) {
    std::istringstream in{std::string(data)};
    return to_python(serialize::load(in, name));
  });
  m.attr("_serialization_format_version") = serialize::kFormatVersion;
}

}  // namespace ember::python
