#pragma once
// Why a call matched none of a binding's signatures.
//
// pybind11 answers a call that fits no overload with a generic TypeError
// that lists every signature. PyTorch names the op and the first argument
// that does not fit ("add(): argument 'other' (position 2) must be Tensor,
// not NoneType"), and so does Ember: each generated binding gets one last
// overload that only runs once every real one has failed, and explains the
// failure from a description of the signatures that codegen writes.

#include "pybind_tensor.h"

#include <memory>
#include <vector>

namespace ember::python {

// One parameter as Python sees it.
struct ParamSpec {
  const char* name;
  const char* type_name;        // as messages name it: "Tensor", "int", "tuple of ints"...
  bool (*accepts)(py::handle);  // whether the binding's caster takes the value
  const char* default_text;     // nullptr when required
  bool kwarg_only;
};
using Signature = std::vector<ParamSpec>;

// Whether pybind11's caster for T (with conversions) takes `value`.
template <class T>
bool accepts(py::handle value) {
  py::detail::make_caster<T> caster;
  try {
    return caster.load(value, /*convert=*/true);
  } catch (py::error_already_set&) {
    return false;  // e.g. an int too large for int64: it does not fit
  } catch (std::exception&) {
    return false;
  }
}

// Adds the explaining overload to function `name` of module `m`.
void explain_mismatches(py::module_& m, const char* name, std::vector<Signature> signatures);
// Adds the explaining overload to method `name` of the Tensor class.
void explain_mismatches(TensorClass& cls, const char* name, std::vector<Signature> signatures);

// The message for a call of `name` with `args` and `kwargs` that fits none
// of `signatures` (exposed for tests through ember._C._explain_mismatch).
std::string mismatch_message(const std::string& name, const std::vector<Signature>& signatures, const py::tuple& args,
                             const py::dict& kwargs);

}  // namespace ember::python
