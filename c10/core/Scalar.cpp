#include <c10/core/Scalar.h>

#include <fmt/format.h>

namespace c10 {

ScalarType Scalar::type() const {
  switch (tag_) {
    case Tag::Bool: return ScalarType::Bool;
    case Tag::Int: return ScalarType::Long;
    case Tag::Double: return ScalarType::Double;
    case Tag::Complex: return ScalarType::ComplexDouble;
  }
  return ScalarType::Undefined;
}

Scalar Scalar::operator-() const {
  switch (tag_) {
    case Tag::Bool: EMBER_CHECK(false, "negation of a boolean scalar is not supported");
    // Wraps (the most negative value stays itself), as torch's int64 result;
    // plain negation of it is undefined behaviour.
    case Tag::Int: return Scalar(static_cast<int64_t>(0 - static_cast<uint64_t>(i_)));
    case Tag::Double: return Scalar(-d_);
    case Tag::Complex: return Scalar(complex<double>(-d_, -imag_));
  }
  return *this;
}

bool Scalar::equal(const Scalar& other) const {
  if (isComplex() || other.isComplex()) return toComplexDouble() == other.toComplexDouble();
  if (isFloatingPoint() || other.isFloatingPoint()) return toDouble() == other.toDouble();
  return toLong() == other.toLong();
}

std::string Scalar::str() const {
  switch (tag_) {
    case Tag::Bool: return i_ ? "True" : "False";
    case Tag::Int: return std::to_string(i_);
    case Tag::Double: return fmt::format("{}", d_);
    case Tag::Complex: return fmt::format("({}{:+}j)", d_, imag_);
  }
  return "";
}

}  // namespace c10
