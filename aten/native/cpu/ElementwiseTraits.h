#pragma once
// Type helpers shared by elementwise kernels.

#include <c10/core/ScalarType.h>
#include <c10/util/TypeCast.h>

#include <cmath>
#include <type_traits>

namespace ember::native::cpu {

// The type arithmetic happens in: float for half/bfloat16, else T itself.
template <typename T>
using opmath_t = std::conditional_t<c10::is_reduced_float_v<T>, float, T>;

// Half and bfloat16, as dtypes (c10::is_reduced_float_v for the types).
inline bool is_reduced_float(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

// opmath_t as a dtype: what half and bfloat16 kernels keep statistics in.
inline ScalarType opmath_type(ScalarType t) { return is_reduced_float(t) ? ScalarType::Float : t; }

template <typename T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || c10::is_reduced_float_v<T>;

// Calls f(T{}, M{}) for a floating dtype T (float, double, half, bfloat16)
// and its opmath type M; other dtypes call nothing.
template <typename F>
void visit_floating(ScalarType t, F&& f) {
  c10::visit_scalar_type(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) f(T{}, opmath_t<T>{});
  });
}

template <typename T>
inline constexpr bool is_integral_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Integer arithmetic wraps around on overflow (two's complement), as torch's
// results do, instead of being undefined behaviour: done in the unsigned
// type. Other types use the plain operators.
template <typename T>
inline T wrapping_add(T a, T b) {
  if constexpr (is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T wrapping_mul(T a, T b) {
  if constexpr (is_integral_v<T>) {
    // At least unsigned int: narrower types would be promoted to int, where
    // 65535 * 65535 overflows again.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}
template <typename T>
inline T negate_wrapping(T a) {
  if constexpr (is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U(0) - static_cast<U>(a));
  } else {
    return -a;
  }
}

// What reductions and scans accumulate in: double for floating types,
// complex<double> for complex ones, int64 for integers and bool.
template <typename T>
using acc_t = std::conditional_t<c10::is_complex_v<T>, c10::complex<double>,
                                 std::conditional_t<is_floating_v<T>, double, int64_t>>;

}  // namespace ember::native::cpu
