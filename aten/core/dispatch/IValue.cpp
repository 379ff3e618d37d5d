#include <aten/core/dispatch/IValue.h>

namespace ember {

IValue::IValue(const Scalar& s) {
  switch (s.tag()) {
    case Scalar::Tag::Bool: value_ = s.toBool(); break;
    case Scalar::Tag::Int: value_ = s.toLong(); break;
    case Scalar::Tag::Double: value_ = s.toDouble(); break;
    case Scalar::Tag::Complex: value_ = s.toComplexDouble(); break;
  }
}

double IValue::toDouble() const {
  if (isInt()) return static_cast<double>(toInt());  // schema floats accept ints, as in Python
  return get<double>("float");
}

Scalar IValue::toScalar() const {
  if (isDouble()) return Scalar(std::get<double>(value_));
  if (isInt()) return Scalar(std::get<int64_t>(value_));
  if (isBool()) return Scalar(std::get<bool>(value_));
  if (isComplexDouble()) return Scalar(std::get<c10::complex<double>>(value_));
  if (isTensor()) return toTensor().item();  // a 0-d tensor passed as a number
  EMBER_CHECK(false, "expected an IValue holding a number but got {}", tagName());
}

std::string IValue::tagName() const {
  constexpr const char* names[] = {"None", "Tensor",   "float",     "int",   "bool",   "complex", "int[]",
                                   "float[]", "bool[]", "Tensor[]", "Tensor?[]", "str", "ScalarType", "Device", "Generator",
                                   "MemoryFormat"};
  static_assert(std::size(names) == std::variant_size_v<Payload>);
  return names[value_.index()];
}

}  // namespace ember
