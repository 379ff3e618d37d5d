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

// opmath_t as a dtype: what half and bfloat16 kernels keep statistics in.
inline ScalarType opmath_type(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 ? ScalarType::Float : t;
}

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

// What reductions and scans accumulate in: double for floating types,
// complex<double> for complex ones, int64 for integers and bool.
template <typename T>
using acc_t = std::conditional_t<c10::is_complex_v<T>, c10::complex<double>,
                                 std::conditional_t<is_floating_v<T>, double, int64_t>>;

}  // namespace ember::native::cpu
