// Binary math functions beyond arithmetic: log-sum-exp of pairs, hypot,
// xlogy, sign transfer, the next float, step and the NaN-ignoring extrema,
// greatest common divisor and least common multiple.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/BinaryKernel.h>
#include <aten/native/cpu/LogAddExp.h>

#include <cmath>
#include <numeric>
#include <type_traits>

namespace ember::native {

namespace {

using cpu::arithmetic;
using cpu::log_add_exp;
using cpu::FloatingOnly;
using cpu::FloatingOrComplex;
using cpu::IntegralOnly;
using cpu::NotComplex;

Tensor wrap(const Scalar& s) { return wrapped_scalar_tensor(s); }

template <typename M>
M log_add_exp2(M a, M b) {
  const M larger = std::max(a, b);
  if (std::isinf(larger) && a == b) return a;
  return larger + std::log1p(std::exp2(-std::abs(a - b))) / M(M_LN2);
}

// The next value of T after a towards b. Half and bfloat16 step on their own
// bits: through float, the next float would round back to a.
template <typename T>
T next_after(T a, T b) {
  if constexpr (c10::is_reduced_float_v<T>) {
    const float fa = a, fb = b;
    if (std::isnan(fa) || std::isnan(fb)) return T(fa + fb);
    if (fa == fb) return b;
    if (fa == 0) return T(static_cast<uint16_t>(std::signbit(fb) ? 0x8001 : 0x0001), T::from_bits());
    const bool away_from_zero = (fa < fb) == (fa > 0);
    return T(static_cast<uint16_t>(away_from_zero ? a.x + 1 : a.x - 1), T::from_bits());
  } else {
    return std::nextafter(a, b);
  }
}

// fmax/fmin: a NaN operand gives the other one (NaN only when both are).
template <bool IsMax, typename M>
M extremum_ignoring_nan(M a, M b) {
  if constexpr (std::is_floating_point_v<M>) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
  }
  return IsMax ? (a < b ? b : a) : (b < a ? b : a);
}

}  // namespace

Tensor logaddexp_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "logaddexp");
  if (cpu::sleef_binary(iter, cpu::SleefBinary::Logaddexp)) return iter.output();
  return arithmetic<FloatingOrComplex>(iter, "logaddexp", [](auto a, auto b) { return log_add_exp(a, b); });
}

Tensor logaddexp2_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return arithmetic<FloatingOnly>(TensorIterator::binary_op(out, self, other, "logaddexp2"), "logaddexp2",
                                  [](auto a, auto b) { return log_add_exp2(a, b); });
}

Tensor hypot_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "hypot");
  if (cpu::sleef_binary(iter, cpu::SleefBinary::Hypot)) return iter.output();
  return arithmetic<FloatingOnly>(iter, "hypot", [](auto a, auto b) { return std::hypot(a, b); });
}

Tensor nextafter_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "nextafter");
  cpu::visit_supported<FloatingOnly>(iter, "nextafter", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu::cpu_kernel(iter, [](T a, T b) -> T { return next_after(a, b); });
  });
  return iter.output();
}

// x * log(y), 0 where x is 0 (unless y is NaN): the entropy convention.
Tensor xlogy_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_float_op(out, self, other, "xlogy");
  return arithmetic<FloatingOnly>(std::move(iter), "xlogy", [](auto x, auto y) {
    using M = decltype(x);
    if (std::isnan(y)) return y;
    return x == M(0) ? M(0) : x * std::log(y);
  });
}
Tensor xlogy_out(const Scalar& self, const Tensor& other, const Tensor& out) {
  return ember::xlogy_outf(wrap(self), other, out);
}
Tensor xlogy(const Scalar& self, const Tensor& other) { return ember::xlogy(wrap(self), other); }
Tensor xlogy(const Tensor& self, const Scalar& other) { return ember::xlogy(self, wrap(other)); }
Tensor xlogy_(const Tensor& self, const Scalar& other) { return self.xlogy_(wrap(other)); }

Tensor copysign_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return arithmetic<FloatingOnly>(TensorIterator::binary_float_op(out, self, other, "copysign"), "copysign",
                                  [](auto a, auto b) { return std::copysign(a, b); });
}
Tensor copysign(const Tensor& self, const Scalar& other) { return ember::copysign(self, wrap(other)); }
Tensor copysign_(const Tensor& self, const Scalar& other) { return self.copysign_(wrap(other)); }

// The step function: 0 below zero, 1 above it, `values` at zero (0 at NaN, as torch; NumPy gives NaN).
Tensor heaviside_out(const Tensor& self, const Tensor& values, const Tensor& out) {
  EMBER_CHECK(!self.is_complex() && !values.is_complex(), "heaviside is not yet implemented for complex tensors.");
  EMBER_CHECK(self.scalar_type() == values.scalar_type(),
              "heaviside is not yet implemented for tensors with different dtypes.");
  return arithmetic<NotComplex>(TensorIterator::binary_op(out, self, values, "heaviside"), "heaviside",
                                [](auto x, auto v) {
                                  using M = decltype(x);
                                  return x == M(0) ? v : static_cast<M>(x > M(0));
                                });
}

Tensor fmax_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  EMBER_CHECK(!self.is_complex() && !other.is_complex(), "fmax not implemented for complex tensors.");
  return arithmetic<NotComplex>(TensorIterator::binary_op(out, self, other, "fmax"), "fmax",
                                [](auto a, auto b) { return extremum_ignoring_nan<true>(a, b); });
}

Tensor fmin_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  EMBER_CHECK(!self.is_complex() && !other.is_complex(), "fmin not implemented for complex tensors.");
  return arithmetic<NotComplex>(TensorIterator::binary_op(out, self, other, "fmin"), "fmin",
                                [](auto a, auto b) { return extremum_ignoring_nan<false>(a, b); });
}

// Euclid on the magnitudes as unsigned numbers, so that the most negative
// value has one (std::gcd's abs of it is undefined); cast back, its gcd
// wraps to itself, as torch's does.
template <typename T>
T wrapping_gcd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  const auto magnitude = [](T v) -> U {
    if constexpr (std::is_signed_v<T>) return v < 0 ? static_cast<U>(U(0) - static_cast<U>(v)) : static_cast<U>(v);
    return static_cast<U>(v);
  };
  U x = magnitude(a), y = magnitude(b);
  while (y != 0) {
    const U rest = static_cast<U>(x % y);
    x = y;
    y = rest;
  }
  return static_cast<T>(x);
}

// Computed in the common dtype itself (not its opmath type, which for small
// integers is wider): the results wrap as torch's do.
Tensor gcd_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "gcd");
  cpu::visit_supported<IntegralOnly>(iter, "gcd", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu::cpu_kernel(iter, [](T a, T b) -> T { return wrapping_gcd(a, b); });
  });
  return iter.output();
}

Tensor lcm_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "lcm");
  cpu::visit_supported<IntegralOnly>(iter, "lcm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // |a / g * b| in 64 bits, then wrapped into T (torch's results for overflowing lcms).
    cpu::cpu_kernel(iter, [](T a, T b) -> T {
      const int64_t g = wrapping_gcd(int64_t(a), int64_t(b));
      if (g == 0) return T(0);
      const int64_t l = cpu::wrapping_mul(int64_t(a) / g, int64_t(b));
      return static_cast<T>(l < 0 ? cpu::negate_wrapping(l) : l);
    });
  });
  return iter.output();
}

}  // namespace ember::native
