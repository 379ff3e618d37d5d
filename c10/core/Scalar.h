#pragma once
// A number that is not a tensor: the value of a Python int, float, bool or
// complex, kept at full precision (int64, double, complex<double>) until an
// operation converts it to the dtype it needs.

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace c10 {

class Scalar {
 public:
  enum class Tag : uint8_t { Bool, Int, Double, Complex };

  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : tag_(Tag::Bool), i_(v) {}
  Scalar(double v) : tag_(Tag::Double), d_(v) {}
  Scalar(float v) : Scalar(static_cast<double>(v)) {}
  Scalar(c10::Half v) : Scalar(static_cast<double>(static_cast<float>(v))) {}
  Scalar(c10::BFloat16 v) : Scalar(static_cast<double>(static_cast<float>(v))) {}
  Scalar(complex<double> v) : tag_(Tag::Complex), d_(v.real()), imag_(v.imag()) {}
  Scalar(complex<float> v) : Scalar(complex<double>(v)) {}
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
  Scalar(T v) : tag_(Tag::Int), i_(static_cast<int64_t>(v)) {}

  Tag tag() const { return tag_; }
  bool isBoolean() const { return tag_ == Tag::Bool; }
  bool isIntegral(bool include_bool) const { return tag_ == Tag::Int || (include_bool && tag_ == Tag::Bool); }
  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  bool isComplex() const { return tag_ == Tag::Complex; }

  // The dtype a tensor made from this scalar alone would have.
  ScalarType type() const;

  // Converts to T with C++ conversion semantics (complex -> real keeps the
  // real part, anything -> bool tests for non-zero), as a copy_ would.
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return tag_ == Tag::Complex ? (d_ != 0 || imag_ != 0) : tag_ == Tag::Double ? d_ != 0 : i_ != 0;
    } else if constexpr (std::is_same_v<T, complex<float>> || std::is_same_v<T, complex<double>>) {
      using R = typename T::value_type;
      return tag_ == Tag::Complex ? T(static_cast<R>(d_), static_cast<R>(imag_))
                                  : T(tag_ == Tag::Double ? static_cast<R>(d_) : static_cast<R>(i_), R(0));
    } else if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) {
      return T(to<float>());
    } else {
      return (tag_ == Tag::Double || tag_ == Tag::Complex) ? static_cast<T>(d_) : static_cast<T>(i_);
    }
  }

  int64_t toLong() const { return to<int64_t>(); }
  double toDouble() const { return to<double>(); }
  bool toBool() const { return to<bool>(); }
  complex<double> toComplexDouble() const { return to<complex<double>>(); }

  Scalar operator-() const;
  Scalar conj() const { return tag_ == Tag::Complex ? Scalar(complex<double>(d_, -imag_)) : *this; }
  bool equal(const Scalar& other) const;
  std::string str() const;

 private:
  Tag tag_;
  union {
    int64_t i_;
    double d_;
  };
  double imag_ = 0;
};

}  // namespace c10
