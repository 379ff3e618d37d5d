// The dispatcher from Python: calling any registered operator by name with
// arguments parsed against its schema (ember.ops.<namespace>.<name>), and
// defining operators and kernels in Python (ember.library.Library).

#include "interpreter.h"

#include <aten/core/dispatch/Library.h>
#include <aten/core/dispatch/OperatorLog.h>

#include <pybind11/complex.h>
#include <pybind11/functional.h>

#include <unordered_map>

namespace ember::python {

namespace {

using Kind = SchemaType::Kind;

IValue scalar_ivalue(py::handle obj, Kind kind, const std::string& where) {
  switch (kind) {
    case Kind::Tensor:
      if (!py::isinstance<c10::TensorImpl>(obj)) {
        throw py::type_error(fmt::format("{} must be Tensor, not {}", where, Py_TYPE(obj.ptr())->tp_name));
      }
      return IValue(obj.cast<Tensor>());
    case Kind::Int: return IValue(index_from_object(obj, where.c_str()));
    case Kind::Float:
      if (!PyFloat_Check(obj.ptr()) && !(PyIndex_Check(obj.ptr()) && !PyBool_Check(obj.ptr()))) {
        throw py::type_error(fmt::format("{} must be float, not {}", where, Py_TYPE(obj.ptr())->tp_name));
      }
      return IValue(obj.cast<double>());
    case Kind::Bool:
      if (!PyBool_Check(obj.ptr())) {
        throw py::type_error(fmt::format("{} must be bool, not {}", where, Py_TYPE(obj.ptr())->tp_name));
      }
      return IValue(obj.ptr() == Py_True);
    case Kind::Str: return IValue(obj.cast<std::string>());
    case Kind::Scalar: return IValue(obj.cast<Scalar>());
    case Kind::ScalarType: return IValue(obj.cast<ScalarType>());
    case Kind::Device: return IValue(obj.cast<c10::Device>());
    case Kind::Generator: return IValue(obj.cast<Generator>());
    case Kind::MemoryFormat: return IValue(obj.cast<c10::MemoryFormat>());
    case Kind::Layout: break;
  }
  throw py::type_error(fmt::format("{}: arguments of this type cannot be passed from Python", where));
}

IValue to_ivalue(py::handle obj, const SchemaType& type, const std::string& where) {
  if (obj.is_none()) {
    // Only an optional parameter takes None: an undefined Tensor where the
    // kernel expects one would be dereferenced.
    if (type.optional) return IValue();
    throw py::type_error(fmt::format("{} must be {}, not NoneType", where, type.str()));
  }
  if (!type.is_list) return scalar_ivalue(obj, type.kind, where);
  if (type.kind == Kind::Int) return IValue(c10::IntArrayRef(obj.cast<IntList>().values));
  if (!PySequence_Check(obj.ptr())) {
    throw py::type_error(fmt::format("{} must be a sequence, not {}", where, Py_TYPE(obj.ptr())->tp_name));
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
  switch (type.kind) {
    case Kind::Float: return IValue(obj.cast<std::vector<double>>());
    case Kind::Bool: return IValue(obj.cast<std::vector<bool>>());
    case Kind::Tensor:
      if (type.elem_optional) return IValue(obj.cast<std::vector<std::optional<Tensor>>>());
      return IValue(obj.cast<std::vector<Tensor>>());
    default: break;
  }
  throw py::type_error(fmt::format("{}: lists of this type cannot be passed from Python", where));
}

// A schema default ("1", "None", "[0, 1]", "'mean'", "True") as an IValue.
IValue default_ivalue(const SchemaArgument& arg) {
  const std::string& d = *arg.default_value;
  if (d == "None") return IValue();
  if (arg.type.kind == SchemaType::Kind::MemoryFormat) {
    const auto format = c10::memory_format_named(d);
    EMBER_CHECK(format.has_value(), "{}: unknown memory format '{}'", arg.name, d);
    return IValue(*format);
  }
  py::object literal;
  if (d == "True" || d == "False") {
    literal = py::bool_(d == "True");
  } else {
    literal = py::module_::import("ast").attr("literal_eval")(d);
  }
  if (arg.type.is_list && PyLong_Check(literal.ptr())) {  // int[2] stride=1 means [1, 1]
    literal = py::list(py::make_tuple(literal) * py::int_(arg.type.list_size.value_or(1)));
  }
  return to_ivalue(literal, arg.type, arg.name);
}

// Python arguments -> a Stack in schema order, with defaults filled in.
Stack parse_arguments(const FunctionSchema& schema, const py::args& args, const py::kwargs& kwargs) {
  const auto& params = schema.arguments;
  size_t positional = 0;
  for (const auto& p : params) positional += p.kwarg_only ? 0 : 1;
  if (args.size() > positional) {
    throw py::type_error(fmt::format("{}() takes {} positional arguments but {} were given", schema.qualified_name(),
                                     positional, args.size()));
  }
  size_t used_kwargs = 0;
  Stack stack;
  stack.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const SchemaArgument& p = params[i];
    const std::string where = fmt::format("{}(): argument '{}'", schema.qualified_name(), p.name);
    const bool by_keyword = kwargs.contains(p.name.c_str());
    if (i < args.size()) {
      if (by_keyword) throw py::type_error(fmt::format("{} given by name and position", where));
      stack.push_back(to_ivalue(args[i], p.type, where));
    } else if (by_keyword) {
      ++used_kwargs;
      stack.push_back(to_ivalue(kwargs[p.name.c_str()], p.type, where));
    } else if (p.default_value) {
      stack.push_back(default_ivalue(p));
    } else {
      throw py::type_error(fmt::format("{}() missing required argument '{}'", schema.qualified_name(), p.name));
    }
  }
  if (used_kwargs != kwargs.size()) {
    for (auto [key, value] : kwargs) {
      bool known = false;
      for (const auto& p : params) known = known || p.name == key.cast<std::string>();
      if (!known) {
        throw py::type_error(fmt::format("{}() got an unexpected keyword argument '{}'", schema.qualified_name(),
                                         key.cast<std::string>()));
      }
    }
  }
  return stack;
}

py::object results_to_python(const FunctionSchema& schema, Stack& stack) {
  if (schema.returns.empty()) return py::none();
  if (schema.returns.size() == 1) return to_python(stack.back());
  py::tuple out(schema.returns.size());
  const size_t first = stack.size() - schema.returns.size();
  for (size_t i = 0; i < schema.returns.size(); ++i) out[i] = to_python(stack[first + i]);
  return out;
}

OperatorHandle find_op(const std::string& qualified) {
  const size_t dot = qualified.find('.');
  return Dispatcher::singleton().findSchemaOrThrow(qualified.substr(0, dot),
                                                   dot == std::string::npos ? "" : qualified.substr(dot + 1));
}

// `with ember._C._OperatorLog() as log: ...` then log.names: the overloads
// called at the top level inside the block (with nested=True, also those
// called inside them).
struct PyOperatorLog {
  bool nested = false;
  std::unique_ptr<OperatorLog> open;
  std::vector<std::string> names;
  std::vector<int64_t> starts_ns, durations_ns;
};

std::string kernel_id(const Library& lib, const std::string& name, c10::DispatchKey key) {
  return lib.qualify(name) + "@" + std::string(c10::toString(key));
}

}  // namespace

void PythonKernel::run(const OperatorHandle& op, Stack& stack) {
  py::gil_scoped_acquire gil;
  const FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments.size();
  const size_t first = stack.size() - n;
  auto [known, added] = kwarg_defaults.try_emplace(schema.qualified_name());
  std::vector<py::object>& defaults = known->second;
  if (added) {
    defaults.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const SchemaArgument& a = schema.arguments[i];
      if (a.kwarg_only && a.default_value) defaults[i] = to_python(default_ivalue(a));
    }
  }
  // Keyword-only arguments arrive by keyword and only when they differ from
  // their defaults, as in torch, so that a kernel written before an
  // operator grew one keeps working.
  py::list args;
  py::dict kwargs;
  if (pass_op_name) args.append(py::str(schema.qualified_name()));
  for (size_t i = 0; i < n; ++i) {
    const SchemaArgument& a = schema.arguments[i];
    if (a.kwarg_only) {
      py::object value = to_python(stack[first + i]);
      const py::object& fallback = defaults[i];
      const bool is_default = fallback && !stack[first + i].isTensor() && value.equal(fallback);
      if (!is_default) kwargs[py::str(a.name)] = value;
    } else {
      args.append(to_python(stack[first + i]));
    }
  }
  stack.resize(first);
  py::object result = fn(*args, **kwargs);
  if (schema.returns.size() == 1) {
    stack.push_back(to_ivalue(result, schema.returns[0].type, schema.qualified_name() + " result"));
  } else if (!schema.returns.empty()) {
    py::sequence items = result.cast<py::sequence>();
    EMBER_CHECK(items.size() == schema.returns.size(), "{}: the Python kernel returned {} values, expected {}",
                schema.qualified_name(), items.size(), schema.returns.size());
    for (size_t i = 0; i < items.size(); ++i) {
      stack.push_back(to_ivalue(items[i], schema.returns[i].type, schema.qualified_name() + " result"));
    }
  }
}

KernelFunction python_kernel(py::function fn, std::string id, bool pass_op_name) {
  // Dropped with the GIL: the dispatcher lets go of kernels without it.
  std::shared_ptr<PythonKernel> held(new PythonKernel{std::move(fn), pass_op_name, {}}, [](PythonKernel* k) {
    py::gil_scoped_acquire gil;
    delete k;
  });
  this_interpreter()->add_python_kernel(id, held);
  return KernelFunction::makeFromBoxed([held, id](const OperatorHandle& op, c10::DispatchKeySet, Stack& stack) {
    BindingInterpreter* mine = this_interpreter();
    auto* current = static_cast<BindingInterpreter*>(c10::current_python_interpreter());
    if (current != nullptr && current != mine) return current->run_python_kernel(id, op, stack);
    held->run(op, stack);
  });
}

py::object to_python(const IValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else {
          return py::cast(x);
        }
      },
      v.payload());
}

// `with ember._C._ExcludeDispatchKey("Autograd"): ...` runs the block below
// a key (what a Python kernel registered at that key does to call on);
// `_IncludeDispatchKey("Python")` turns a mode key on for the block.
template <typename Guard>
struct PyKeyGuard {
  c10::DispatchKey key;
  std::unique_ptr<Guard> guard;
};

template <typename Guard>
void bind_key_guard(py::module_& m, const char* name) {
  using Self = PyKeyGuard<Guard>;
  py::class_<Self>(m, name)
      .def(py::init([](const std::string& key) { return Self{c10::parseDispatchKey(key), nullptr}; }))
      .def("__enter__",
           [name](Self& self) {
             EMBER_CHECK(!self.guard, "{}: already entered", name);
             self.guard = std::make_unique<Guard>(self.key);
           })
      .def("__exit__", [](Self& self, const py::args&) { self.guard.reset(); });
}

void init_dispatch(py::module_& m) {
  bind_key_guard<c10::ExcludeDispatchKeyGuard>(m, "_ExcludeDispatchKey");
  bind_key_guard<c10::IncludeDispatchKeyGuard>(m, "_IncludeDispatchKey");
  py::class_<PyOperatorLog>(m, "_OperatorLog")
      .def(py::init([](bool nested) { return PyOperatorLog{nested, nullptr, {}, {}, {}}; }), py::arg("nested") = false)
      .def(
          "__enter__",
          [](PyOperatorLog& self) -> PyOperatorLog& {
            EMBER_CHECK(!self.open, "_OperatorLog: this log is already open");
            self.names.clear();
            self.starts_ns.clear();
            self.durations_ns.clear();
            self.open = std::make_unique<OperatorLog>(self.nested);
            return self;
          },
          py::return_value_policy::reference)
      .def("__exit__",
           [](PyOperatorLog& self, const py::args&) {
             if (!self.open) return;
             self.names = self.open->names();
             self.starts_ns = self.open->starts_ns();
             self.durations_ns = self.open->durations_ns();
             self.open.reset();
           })
      .def_property_readonly("names", [](const PyOperatorLog& self) {
        return self.open ? self.open->names() : self.names;
      })
      // (start, duration) in ns per call, once the log is closed.
      .def_property_readonly("times_ns", [](const PyOperatorLog& self) {
        std::vector<std::pair<int64_t, int64_t>> out;
        for (size_t i = 0; i < self.starts_ns.size(); ++i) out.emplace_back(self.starts_ns[i], self.durations_ns[i]);
        return out;
      });
  m.def("_parse_schema", [](const std::string& text) { return parse_schema(text).str(); });
  m.def("_schemas", [] {
    std::vector<std::string> out;
    for (const auto& op : Dispatcher::singleton().allOperators()) out.push_back(op.schema().str());
    std::sort(out.begin(), out.end());
    return out;
  });
  m.def("_has_operator", [](const std::string& name) { return !Dispatcher::singleton().findOverloads(name).empty(); });
  m.def("_schema", [](const std::string& qualified) { return find_op(qualified).schema().str(); });
  m.def("_registered_keys", [](const std::string& qualified) {
    std::vector<std::string> keys;
    for (auto k : find_op(qualified).entry().registeredKeys()) keys.emplace_back(c10::toString(k));
    return keys;
  });
  m.def("_call_op", [](const std::string& qualified, const py::args& args, const py::kwargs& kwargs) {
    const OperatorHandle op = find_op(qualified);
    Stack stack = parse_arguments(op.schema(), args, kwargs);
    op.callBoxed(stack);
    return results_to_python(op.schema(), stack);
  });
  // All overloads of "ns::name": the first whose schema accepts the arguments runs.
  m.def("_call_op_packet", [](const std::string& name, const py::args& args, const py::kwargs& kwargs) {
    const std::vector<OperatorHandle> candidates = Dispatcher::singleton().findOverloads(name);
    EMBER_CHECK(!candidates.empty(), "Could not find schema for {}", name);
    std::vector<std::string> tried;
    for (const auto& op : candidates) {
      Stack stack;
      try {
        stack = parse_arguments(op.schema(), args, kwargs);
      } catch (const py::error_already_set& e) {
        tried.push_back(op.schema().str() + "  (" + e.what() + ")");
        continue;
      } catch (const std::exception& e) {
        tried.push_back(op.schema().str() + "  (" + e.what() + ")");
        continue;
      }
      op.callBoxed(stack);
      return results_to_python(op.schema(), stack);
    }
    throw py::type_error(fmt::format("{}() received an invalid combination of arguments; expected one of:\n  {}",
                                     name, fmt::join(tried, "\n  ")));
  });

  py::class_<Library>(m, "_Library")
      .def(py::init([](const std::string& kind, const std::string& ns, std::optional<std::string> key) {
             const Library::Kind k = kind == "DEF" ? Library::Kind::DEF
                                     : kind == "IMPL" ? Library::Kind::IMPL
                                                      : Library::Kind::FRAGMENT;
             EMBER_CHECK_VALUE(kind == "DEF" || kind == "IMPL" || kind == "FRAGMENT",
                               "Library kind must be DEF, IMPL or FRAGMENT, got {}", kind);
             std::optional<c10::DispatchKey> dk;
             if (key) dk = c10::parseDispatchKey(*key);
             return std::make_unique<Library>(k, ns, dk);
           }),
           py::arg("kind"), py::arg("ns"), py::arg("dispatch_key") = py::none())
      .def("define", [](Library& lib, const std::string& schema) { lib.def(schema); }, py::arg("schema"))
      .def(
          "impl",
          [](Library& lib, const std::string& name, py::function fn, std::optional<std::string> key) {
            if (key) {
              const c10::DispatchKey k = c10::parseDispatchKey(*key);
              lib.impl(name, k, python_kernel(std::move(fn), kernel_id(lib, name, k)));
            } else {
              lib.impl(name, python_kernel(std::move(fn), kernel_id(lib, name, lib.library_key())));
            }
          },
          py::arg("name"), py::arg("fn"), py::arg("dispatch_key") = py::none())
      .def(
          "fallthrough",
          [](Library& lib, const std::string& name, const std::string& key) {
            lib.impl(name, c10::parseDispatchKey(key), KernelFunction::makeFallthrough());
          },
          py::arg("name"), py::arg("dispatch_key"))
      .def(
          "fallback",
          [](Library& lib, py::function fn, const std::string& key) {
            const c10::DispatchKey k = c10::parseDispatchKey(key);
            lib.fallback(k, python_kernel(std::move(fn), "fallback@" + std::string(c10::toString(k)),
                                          /*pass_op_name=*/true));
          },
          py::arg("fn"), py::arg("dispatch_key"))
      .def_property_readonly("ns", &Library::ns);
}

}  // namespace ember::python
