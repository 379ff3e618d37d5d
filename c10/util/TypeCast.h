#pragma once
// Element conversion between any two dtypes, with the semantics of
// Tensor.to(dtype): complex -> real keeps the real part, anything -> bool
// tests for non-zero (both parts of a complex), half/bfloat16 go through float.

#include <c10/core/ScalarType.h>

#include <type_traits>

namespace c10 {

template <typename T>
struct is_complex_t : std::false_type {};
template <typename T>
struct is_complex_t<complex<T>> : std::true_type {};
template <typename T>
inline constexpr bool is_complex_v = is_complex_t<T>::value;

template <typename T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From>) {
    if constexpr (std::is_same_v<To, bool>) {
      return v.real() != 0 || v.imag() != 0;  // non-zero, not "real part non-zero"
    } else if constexpr (is_complex_v<To>) {
      using R = typename To::value_type;
      return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    } else {
      return convert<To>(v.real());
    }
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    return To(convert<R>(v), R(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_reduced_float_v<From>) {
      return static_cast<float>(v) != 0.0f;
    } else {
      return v != From(0);
    }
  } else if constexpr (is_reduced_float_v<From>) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace c10
