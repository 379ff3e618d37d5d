#include "arg_errors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string_view>

namespace ember::python {
namespace {

// The first positional argument of the explaining overload. Its caster
// refuses in pybind11's first (no-conversion) pass over the overloads, so
// the explaining overload runs only after every real overload has also
// failed with conversions allowed.
struct FirstArgument {
  py::object value;
};

// Stands for "no positional argument was given".
py::object& no_argument() {
  static py::object* sentinel = new py::object(py::module_::import("builtins").attr("object")());
  return *sentinel;
}

std::string type_name_of(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__"));
}

struct Mismatch {
  std::string why;  // empty: the signature fits as far as these checks see
  size_t matched;   // how close the signature came: the closest one explains best
};

Mismatch check(const std::string& name, const Signature& sig, const py::tuple& args, const py::dict& kwargs) {
  std::vector<const ParamSpec*> positional;
  for (const ParamSpec& p : sig) {
    if (!p.kwarg_only) positional.push_back(&p);
  }
  if (args.size() > positional.size()) {
    return {fmt::format("{}() takes {} positional argument{} but {} were given", name, positional.size(),
                        positional.size() == 1 ? "" : "s", args.size()),
            0};
  }
  std::vector<py::handle> bound(sig.size());
  std::vector<int> position(sig.size(), 0);  // 1-based position when given positionally
  for (size_t i = 0; i < args.size(); ++i) {
    const size_t index = static_cast<size_t>(positional[i] - sig.data());
    bound[index] = args[i];
    position[index] = static_cast<int>(i) + 1;
  }
  for (auto item : kwargs) {
    const std::string key = py::str(item.first);
    size_t index = 0;
    while (index < sig.size() && key != sig[index].name) ++index;
    if (index == sig.size()) return {fmt::format("{}() got an unexpected keyword argument '{}'", name, key), 0};
    if (bound[index]) return {fmt::format("{}() got multiple values for argument '{}'", name, key), 0};
    bound[index] = item.second;
  }
  size_t matched = 0;
  for (size_t i = 0; i < sig.size(); ++i) {
    const ParamSpec& p = sig[i];
    if (!bound[i]) {
      if (p.default_text) continue;
      return {fmt::format("{}() missing required argument '{}' ({})", name, p.name, p.type_name), matched};
    }
    if (!p.accepts(bound[i])) {
      // A wrong value is a closer miss than a wrong count or keyword: rank it above those.
      const std::string where = position[i] ? fmt::format(" (position {})", position[i]) : "";
      const py::handle value = bound[i];
      if (std::string_view(p.type_name).substr(0, 9) == "tuple of " &&
          (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value))) {
        // A sequence of the wrong things: name the first element that does not fit.
        size_t k = 0;
        for (py::handle element : value) {
          if (!p.accepts(py::make_tuple(element))) {
            return {fmt::format("{}(): argument '{}'{} must be {}, but found element of type {} at pos {}", name,
                                p.name, where, p.type_name, type_name_of(element), k),
                    matched + 1};
          }
          ++k;
        }
      }
      return {fmt::format("{}(): argument '{}'{} must be {}, not {}", name, p.name, where, p.type_name,
                          type_name_of(value)),
              matched + 1};
    }
    ++matched;
  }
  return {"", matched};
}

std::string render(const std::string& name, const Signature& sig) {
  std::string out = name + "(";
  bool first = true;
  bool kw_marker = false;
  for (const ParamSpec& p : sig) {
    if (!first) out += ", ";
    first = false;
    if (p.kwarg_only && !kw_marker) {
      out += "*, ";
      kw_marker = true;
    }
    out += fmt::format("{} {}", p.type_name, p.name);
    if (p.default_text) out += fmt::format("={}", p.default_text);
  }
  return out + ")";
}

std::string got(const py::tuple& args, const py::dict& kwargs) {
  std::vector<std::string> parts;
  for (py::handle a : args) parts.push_back(type_name_of(a));
  for (auto item : kwargs) parts.push_back(fmt::format("{}={}", py::str(item.first).cast<std::string>(), type_name_of(item.second)));
  return fmt::format("({})", fmt::join(parts, ", "));
}

}  // namespace

std::string mismatch_message(const std::string& name, const std::vector<Signature>& signatures, const py::tuple& args,
                             const py::dict& kwargs) {
  const Mismatch* best = nullptr;
  std::vector<Mismatch> all;
  all.reserve(signatures.size());
  for (const Signature& sig : signatures) all.push_back(check(name, sig, args, kwargs));
  for (const Mismatch& m : all) {
    if (!m.why.empty() && (!best || m.matched > best->matched)) best = &m;
  }
  std::string message = best ? best->why
                             : fmt::format("{}() received arguments it cannot take: got {}", name, got(args, kwargs));
  if (signatures.size() > 1) {
    message += fmt::format("\n(got {}; {}() takes one of:", got(args, kwargs), name);
    for (const Signature& sig : signatures) message += "\n * " + render(name, sig);
    message += ")";
  }
  return message;
}

}  // namespace ember::python

namespace pybind11::detail {
template <>
struct type_caster<ember::python::FirstArgument> {
  PYBIND11_TYPE_CASTER(ember::python::FirstArgument, const_name("object"));
  bool load(handle src, bool convert) {
    if (!convert) return false;
    value.value = reinterpret_borrow<object>(src);
    return true;
  }
  static handle cast(const ember::python::FirstArgument&, return_value_policy, handle) { return none().release(); }
};
}  // namespace pybind11::detail

namespace ember::python {
namespace {

py::tuple all_positional(const FirstArgument& first, const py::args& rest) {
  if (first.value.is(no_argument())) return rest;
  py::list items;
  items.append(first.value);
  for (py::handle a : rest) items.append(a);
  return py::tuple(items);
}

// The body of the explaining overload, the same for functions and methods.
struct Explainer {
  std::string op;
  std::shared_ptr<const std::vector<Signature>> signatures;

  [[noreturn]] void raise(const FirstArgument& first, const py::args& rest, const py::kwargs& kwargs) const {
    throw py::type_error(mismatch_message(op, *signatures, all_positional(first, rest), kwargs));
  }
};

Explainer explainer(const char* name, std::vector<Signature> signatures) {
  return {name, std::make_shared<const std::vector<Signature>>(std::move(signatures))};
}

}  // namespace

void explain_mismatches(py::module_& m, const char* name, std::vector<Signature> signatures) {
  m.def(
      name,
      [e = explainer(name, std::move(signatures))](const FirstArgument& first, const py::args& rest,
                                                   const py::kwargs& kwargs) -> py::object { e.raise(first, rest, kwargs); },
      py::arg("__first") = no_argument());
}

void explain_mismatches(TensorClass& cls, const char* name, std::vector<Signature> signatures) {
  cls.def(
      name,
      [e = explainer(name, std::move(signatures))](const py::object& /*self*/, const FirstArgument& first,
                                                   const py::args& rest,
                                                   const py::kwargs& kwargs) -> py::object { e.raise(first, rest, kwargs); },
      py::arg("__first") = no_argument());
}

}  // namespace ember::python
