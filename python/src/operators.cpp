// Tensor's Python operators: + - * / // % ** & | ^ << >> @, their reflected
// and in-place forms, the comparisons and the unary ones.
//
// Each is a C++ method that calls the operator PyTorch uses (a + b is
// add.Tensor) directly: as Python functions they cost a frame per `a + b`.
// As in torch, an operand that is neither a tensor nor a number makes the
// method return NotImplemented, so that Python tries the other operand's
// reflected method (`a + thing` reaches thing.__radd__) and otherwise
// raises "unsupported operand type(s)".

#include "fast_calls.h"
#include "pybind_tensor.h"

#include <iterator>
#include <optional>
#include <string>
#include <utility>

namespace ember::python {
namespace {

// `other` as an operand: a tensor, or a Python number as a weak 0-d
// "wrapped number" tensor (x + 1.5 keeps x's dtype); nothing for any other
// object. A number too large for int64 raises, as in torch.
std::optional<Tensor> operand(py::handle other, bool numbers = true) {
  py::detail::make_caster<Tensor> tensor;
  if (tensor.load(other, false)) return py::detail::cast_op<Tensor&>(tensor);
  if (!numbers) return std::nullopt;
  py::detail::make_caster<TensorOrNumber> number;
  if (number.load(other, true)) return py::detail::cast_op<TensorOrNumber&>(number).tensor;
  return std::nullopt;
}

using Binary = Tensor (*)(const Tensor& self, const Tensor& other);

struct BinaryOperator {
  const char* name;   // Python's name for it: "add" gives __add__, __radd__, __iadd__
  Binary forward;     // self <op> other
  Binary reflected;   // other <op> self, called on self
  Binary in_place;    // self <op>= other; nullptr: Python falls back to self = self <op> other
  bool numbers;       // whether a Python number is an operand (not for @)
};

// A wrapped number operand as the Scalar it came from.
Scalar number_of(const Tensor& t) { return t.item(); }
bool is_number(const Tensor& t) { return t.unsafeGetTensorImpl()->is_wrapped_number(); }

const BinaryOperator kBinaryOperators[] = {
    {"add", [](const Tensor& a, const Tensor& b) { return ember::add(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::add(a, b); },
     [](const Tensor& a, const Tensor& b) { return a.add_(b); }, true},
    {"sub", [](const Tensor& a, const Tensor& b) { return ember::sub(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::rsub(a, b); },
     [](const Tensor& a, const Tensor& b) { return a.sub_(b); }, true},
    {"mul", [](const Tensor& a, const Tensor& b) { return ember::mul(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::mul(a, b); },
     [](const Tensor& a, const Tensor& b) { return a.mul_(b); }, true},
    {"truediv", [](const Tensor& a, const Tensor& b) { return ember::div(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::div(b, a); },
     [](const Tensor& a, const Tensor& b) { return a.div_(b); }, true},
    {"floordiv", [](const Tensor& a, const Tensor& b) { return ember::floor_divide(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::floor_divide(b, a); },
     [](const Tensor& a, const Tensor& b) { return a.div_(b, "floor"); }, true},
    {"mod", [](const Tensor& a, const Tensor& b) { return ember::remainder(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::remainder(b, a); },
     [](const Tensor& a, const Tensor& b) { return a.remainder_(b); }, true},
    {"pow", [](const Tensor& a, const Tensor& b) { return is_number(b) ? ember::pow(a, number_of(b)) : ember::pow(a, b); },
     [](const Tensor& a, const Tensor& b) { return is_number(b) ? ember::pow(number_of(b), a) : ember::pow(b, a); },
     [](const Tensor& a, const Tensor& b) { return is_number(b) ? a.pow_(number_of(b)) : a.pow_(b); }, true},
    {"and", [](const Tensor& a, const Tensor& b) { return ember::bitwise_and(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::bitwise_and(a, b); },
     [](const Tensor& a, const Tensor& b) { return a.bitwise_and_(b); }, true},
    {"or", [](const Tensor& a, const Tensor& b) { return ember::bitwise_or(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::bitwise_or(a, b); },
     [](const Tensor& a, const Tensor& b) { return a.bitwise_or_(b); }, true},
    {"xor", [](const Tensor& a, const Tensor& b) { return ember::bitwise_xor(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::bitwise_xor(a, b); },
     [](const Tensor& a, const Tensor& b) { return a.bitwise_xor_(b); }, true},
    {"lshift", [](const Tensor& a, const Tensor& b) { return ember::bitwise_left_shift(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::bitwise_left_shift(b, a); },
     [](const Tensor& a, const Tensor& b) { return a.bitwise_left_shift_(b); }, true},
    {"rshift", [](const Tensor& a, const Tensor& b) { return ember::bitwise_right_shift(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::bitwise_right_shift(b, a); },
     [](const Tensor& a, const Tensor& b) { return a.bitwise_right_shift_(b); }, true},
    {"matmul", [](const Tensor& a, const Tensor& b) { return ember::matmul(a, b); },
     [](const Tensor& a, const Tensor& b) { return ember::matmul(b, a); }, nullptr, false},
};

// Comparisons: == and != with anything else are False and True (Python's
// identity fallback after NotImplemented); < <= > >= raise TypeError.
const std::pair<const char*, Binary> kComparisons[] = {
    {"eq", [](const Tensor& a, const Tensor& b) { return ember::eq(a, b); }},
    {"ne", [](const Tensor& a, const Tensor& b) { return ember::ne(a, b); }},
    {"lt", [](const Tensor& a, const Tensor& b) { return ember::lt(a, b); }},
    {"le", [](const Tensor& a, const Tensor& b) { return ember::le(a, b); }},
    {"gt", [](const Tensor& a, const Tensor& b) { return ember::gt(a, b); }},
    {"ge", [](const Tensor& a, const Tensor& b) { return ember::ge(a, b); }},
};

std::string dunder(const char* prefix, const char* name) { return std::string("__") + prefix + name + "__"; }

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

void def_binary(TensorClass& cls, const std::string& method, Binary f, bool numbers) {
  cls.def(method.c_str(), [f, numbers](const Tensor& self, py::handle other) -> py::object {
    std::optional<Tensor> b = operand(other, numbers);
    if (!b) return not_implemented();
    return py::cast(without_gil([&] { return f(self, *b); }));
  }, py::is_operator());
}

// `a + b` with two tensors through a vectorcall entry (fast_calls.h) in
// front of the method just defined, which still takes numbers and others.
constexpr std::size_t kFastOperators = std::size(kBinaryOperators) + std::size(kComparisons);
FastCall kOperatorCalls[kFastOperators];

template <std::size_t I>
Tensor operator_call(const Tensor* t) {
  if constexpr (I < std::size(kBinaryOperators)) {
    return kBinaryOperators[I].forward(t[0], t[1]);
  } else {
    return kComparisons[I - std::size(kBinaryOperators)].second(t[0], t[1]);
  }
}

template <std::size_t... I>
void install_fast_operators(TensorClass& cls, std::index_sequence<I...> all) {
  static std::string names[kFastOperators];
  std::size_t i = 0;
  for (const BinaryOperator& op : kBinaryOperators) names[i++] = dunder("", op.name);
  for (const auto& comparison : kComparisons) names[i++] = dunder("", comparison.first);
  ((kOperatorCalls[I] = FastCall{names[I].c_str(), 2, &operator_call<I>, nullptr}), ...);
  FastCallTable<kOperatorCalls, kFastOperators>::install(cls, true, all);
}

}  // namespace

void init_operators(TensorClass& cls) {
  for (const BinaryOperator& op : kBinaryOperators) {
    def_binary(cls, dunder("", op.name), op.forward, op.numbers);
    def_binary(cls, dunder("r", op.name), op.reflected, op.numbers);
    if (op.in_place == nullptr) continue;
    cls.def(dunder("i", op.name).c_str(), [f = op.in_place](py::handle self, py::handle other) -> py::object {
      std::optional<Tensor> b = operand(other);
      if (!b) return not_implemented();
      const Tensor a = py::cast<Tensor>(self);
      without_gil([&] { return f(a, *b); });
      return py::reinterpret_borrow<py::object>(self);  // the same object, subclass and attributes intact
    }, py::is_operator());
  }
  for (const auto& [name, f] : kComparisons) def_binary(cls, dunder("", name), f, true);
  install_fast_operators(cls, std::make_index_sequence<kFastOperators>{});
  // Defining __eq__ removes the default hash: tensors hash by identity, as in torch.
  cls.attr("__hash__") = py::module_::import("builtins").attr("object").attr("__hash__");
  cls.def("__neg__", [](const Tensor& self) { return without_gil([&] { return ember::neg(self); }); });
  cls.def("__abs__", [](const Tensor& self) { return without_gil([&] { return ember::abs(self); }); });
  cls.def("__pos__", [](py::handle self) { return py::reinterpret_borrow<py::object>(self); });
  cls.def("__invert__", [](const Tensor& self) {
    // TypeError for floats, as torch's ~ (ember.bitwise_not raises NotImplementedError like torch.bitwise_not).
    EMBER_CHECK_TYPE(!self.is_floating_point() && !self.is_complex(),
                     "~ (bitwise_not) is only supported for integer and boolean tensors, got ember.{}",
                     c10::python_name(self.dtype()));
    return without_gil([&] { return ember::bitwise_not(self); });
  });
}

}  // namespace ember::python
