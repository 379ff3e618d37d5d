// Binary elementwise operators, comparisons, where and clamp.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/BinaryKernel.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/Loops.h>

#include <cmath>
#include <limits>
#include <type_traits>

namespace ember::native {

namespace {

using cpu::is_floating_v;
using cpu::is_integral_v;
using cpu::negate_wrapping;
using cpu::opmath_t;
using cpu::AnyType;
using cpu::FloatingOnly;
using cpu::IntegralOrBool;
using cpu::NotComplex;
using cpu::not_implemented;
using cpu::visit_supported;
using cpu::arithmetic;
using cpu::arithmetic_keeping_scalar;
using cpu::with_unrounded_scalar;

template <typename T>
T integer_div_check(T b) {
  EMBER_CHECK(b != T(0), "ZeroDivisionError");
  return b;
}

// Integer division by -1 is negation: done without the divide, since the
// hardware traps (SIGFPE) on the most negative value over -1; that value
// wraps to itself, as torch's CPU result. (torch itself dies on it with
// rounding_mode='trunc'.)
template <typename T>
bool is_minus_one(T b) {
  if constexpr (std::is_signed_v<T>) return b == T(-1);
  return false;
}

// Python's floor division for floats (NumPy's algorithm): exact for
// integral quotients, consistent with remainder().
template <typename M>
M floor_divide_float(M a, M b) {
  if (b == M(0)) return a / b;
  const M mod = std::fmod(a, b);
  M div = (a - mod) / b;
  if (mod != M(0) && ((b < M(0)) != (mod < M(0)))) div -= M(1);
  if (div == M(0)) return std::copysign(M(0), a / b);
  M floordiv = std::floor(div);
  if (div - floordiv > M(0.5)) floordiv += M(1);
  return floordiv;
}

Tensor comparison(const Tensor& self, const Tensor& other, const Tensor& out, const char* name, int kind) {
  auto iter = TensorIterator::comparison_op(out, self, other, name);
  const ScalarType t = iter.common_dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(kind <= 1 || !c10::isComplexType(t), "\"{}\" not implemented for '{}'", name,
                              c10::toString(t));
  // Writes bool results; an out= tensor of another dtype receives them cast.
  c10::visit_scalar_type(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (c10::is_complex_v<T>) {
      if (kind == 0) cpu::cpu_kernel(iter, [](T a, T b) -> bool { return a == b; });
      if (kind == 1) cpu::cpu_kernel(iter, [](T a, T b) -> bool { return a != b; });
    } else {
      switch (kind) {
        case 0: cpu::cpu_kernel(iter, [](T a, T b) -> bool { return M(a) == M(b); }); break;
        case 1: cpu::cpu_kernel(iter, [](T a, T b) -> bool { return M(a) != M(b); }); break;
        case 2: cpu::cpu_kernel(iter, [](T a, T b) -> bool { return M(a) < M(b); }); break;
        case 3: cpu::cpu_kernel(iter, [](T a, T b) -> bool { return M(a) <= M(b); }); break;
        case 4: cpu::cpu_kernel(iter, [](T a, T b) -> bool { return M(a) > M(b); }); break;
        default: cpu::cpu_kernel(iter, [](T a, T b) -> bool { return M(a) >= M(b); }); break;
      }
    }
  });
  return iter.output();
}

Tensor logical(const Tensor& self, const Tensor& other, const Tensor& out, const char* name, int kind) {
  TensorIteratorConfig config;
  config.name(name).add_output(out).add_input(self).add_input(other);
  config.promote_inputs_to_common_dtype().cast_common_dtype_to_outputs();
  config.declare_static_output_dtype(ScalarType::Bool);
  auto iter = config.build();
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto truth = [](T v) { return c10::convert<bool>(v); };
    if (kind == 0) cpu::cpu_kernel(iter, [truth](T a, T b) -> bool { return truth(a) && truth(b); });
    if (kind == 1) cpu::cpu_kernel(iter, [truth](T a, T b) -> bool { return truth(a) || truth(b); });
    if (kind == 2) cpu::cpu_kernel(iter, [truth](T a, T b) -> bool { return truth(a) != truth(b); });
  });
  return iter.output();
}

Tensor wrap(const Scalar& s) { return wrapped_scalar_tensor(s); }

}  // namespace

// ---- arithmetic ---------------------------------------------------------------

Tensor add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "add");
  if (iter.common_dtype() == ScalarType::Bool) {
    cpu::cpu_kernel(iter, [](bool a, bool b) -> bool { return a || b; });
    return iter.output();
  }
  EMBER_CHECK(!alpha.isFloatingPoint() || !c10::isIntegralType(iter.common_dtype(), true),
              "For integral input tensors, argument alpha must not be a floating point number.");
  visit_supported<AnyType>(iter, "add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (!std::is_same_v<T, bool>) {
      const M a = alpha.to<M>();
      cpu::cpu_kernel(iter,
                      [a](T x, T y) -> T { return static_cast<T>(cpu::wrapping_add(M(x), cpu::wrapping_mul(a, M(y)))); });
    }
  });
  return iter.output();
}

Tensor sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  EMBER_CHECK(self.dtype() != ScalarType::Bool || other.dtype() != ScalarType::Bool,
              "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
              "operator instead.");
  EMBER_CHECK(self.dtype() != ScalarType::Bool && other.dtype() != ScalarType::Bool,
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
              "mask, use the `~` or `logical_not()` operator instead.");
  return ember::add_outf(self, other, -alpha, out);
}

Tensor mul_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "mul");
  if (iter.common_dtype() == ScalarType::Bool) {
    cpu::cpu_kernel(iter, [](bool a, bool b) -> bool { return a && b; });
    return iter.output();
  }
  return arithmetic_keeping_scalar<AnyType>(std::move(iter), "mul",
                                           [](auto a, auto b) { return cpu::wrapping_mul(a, b); });
}

Tensor div_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return arithmetic_keeping_scalar<AnyType>(TensorIterator::binary_float_op(out, self, other, "div"), "div",
                                           [](auto a, auto b) { return a / b; });
}

Tensor div_out(const Tensor& self, const Tensor& other, std::optional<std::string_view> mode, const Tensor& out) {
  if (!mode) return ember::div_outf(self, other, out);
  EMBER_CHECK(*mode == "trunc" || *mode == "floor",
                    "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", *mode);
  const bool floor = *mode == "floor";
  auto iter = TensorIterator::binary_op(out, self, other, "div");
  EMBER_CHECK_NOT_IMPLEMENTED(iter.common_dtype() != ScalarType::Bool, "\"div_{}\" not implemented for 'Bool'",
                              floor ? "floor" : "trunc");
  visit_supported<NotComplex>(iter, "div_floor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (is_integral_v<T>) {
      cpu::cpu_kernel(iter, [floor](T a, T b) -> T {
        integer_div_check(b);
        if (is_minus_one(b)) return negate_wrapping(a);
        T q = a / b;
        if (floor && (a % b != 0) && ((a < 0) != (b < 0))) --q;
        return q;
      });
    } else if constexpr (std::is_same_v<T, bool>) {
      cpu::cpu_kernel(iter, [](T a, T b) -> T { return integer_div_check(b) ? a : a; });
    } else {
      auto quotient = [floor](M a, M b) { return floor ? floor_divide_float(a, b) : std::trunc(a / b); };
      if (with_unrounded_scalar<T>(iter, quotient)) return;
      if (std::is_same_v<T, float> && floor && cpu::sleef_binary(iter, cpu::SleefBinary::FloorDivide)) return;
      cpu::cpu_kernel(iter, [quotient](T a, T b) -> T { return static_cast<T>(quotient(M(a), M(b))); });
    }
  });
  return iter.output();
}

namespace {

// The remainder of a / b: C's (fmod: the sign of a) or Python's (remainder: the sign of b).
template <bool SignOfDivisor>
Tensor remainder_kernel(const Tensor& self, const Tensor& other, const Tensor& out, const char* name) {
  auto iter = TensorIterator::binary_op(out, self, other, name);
  visit_supported<NotComplex>(iter, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      not_implemented(name, ScalarType::Bool);
    } else if constexpr (is_integral_v<T>) {
      cpu::cpu_kernel(iter, [](T a, T b) -> T {
        integer_div_check(b);
        if (is_minus_one(b)) return T(0);
        T r = static_cast<T>(a % b);
        if (SignOfDivisor && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
        return r;
      });
    } else if (!(std::is_same_v<T, float> &&
                 cpu::sleef_binary(iter, SignOfDivisor ? cpu::SleefBinary::Remainder : cpu::SleefBinary::Fmod))) {
      cpu::cpu_kernel(iter, [](T a, T b) -> T {
        M r = std::fmod(M(a), M(b));
        if (SignOfDivisor && r != M(0) && ((r < M(0)) != (M(b) < M(0)))) r += M(b);
        return static_cast<T>(r);
      });
    }
  });
  return iter.output();
}

}  // namespace

Tensor remainder_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return remainder_kernel<true>(self, other, out, "remainder");
}

Tensor fmod_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return remainder_kernel<false>(self, other, out, "fmod");
}

Tensor fmod(const Tensor& self, const Scalar& other) { return ember::fmod(self, wrap(other)); }
Tensor fmod_(const Tensor& self, const Scalar& other) { return self.fmod_(wrap(other)); }

Tensor maximum_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  EMBER_CHECK(!self.is_complex() && !other.is_complex(), "maximum not implemented for complex tensors.");
  return arithmetic<NotComplex>(TensorIterator::binary_op(out, self, other, "maximum"), "maximum", [](auto a, auto b) {
    if constexpr (std::is_floating_point_v<decltype(a)>) {
      if (std::isnan(a) || std::isnan(b)) return a + b;  // NaN propagates
    }
    return a > b ? a : b;
  });
}

Tensor minimum_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  EMBER_CHECK(!self.is_complex() && !other.is_complex(), "minimum not implemented for complex tensors.");
  return arithmetic<NotComplex>(TensorIterator::binary_op(out, self, other, "minimum"), "minimum", [](auto a, auto b) {
    if constexpr (std::is_floating_point_v<decltype(a)>) {
      if (std::isnan(a) || std::isnan(b)) return a + b;
    }
    return a < b ? a : b;
  });
}

Tensor atan2_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_float_op(out, self, other, "atan2");
  if (cpu::sleef_binary(iter, cpu::SleefBinary::Atan2)) return iter.output();
  return arithmetic<FloatingOnly>(iter, "atan2", [](auto a, auto b) { return std::atan2(a, b); });
}

namespace {
// A real exponent given as one number (a Python scalar or a 0-dim CPU
// tensor), for pow's special cases; NaN otherwise.
double fixed_exponent(const Tensor& exponent) {
  if (exponent.dim() != 0 || !exponent.device().is_cpu() || exponent.is_complex() || exponent.is_meta()) return NAN;
  return exponent.item().toDouble();
}
}  // namespace

Tensor pow_out(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  // A Python number as the exponent is torch's pow.Tensor_Scalar, and its check.
  EMBER_CHECK(!(exponent.unsafeGetTensorImpl()->is_wrapped_number() && c10::isIntegralType(self.dtype(), false) &&
                c10::isIntegralType(exponent.dtype(), false) && exponent.item().toLong() < 0),
              "Integers to negative integer powers are not allowed.");
  auto iter = TensorIterator::binary_op(out, self, exponent, "pow");
  EMBER_CHECK_NOT_IMPLEMENTED(iter.common_dtype() != ScalarType::Bool, "\"pow\" not implemented for 'Bool'");
  visit_supported<AnyType>(iter, "pow", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (std::is_integral_v<T>) {
      cpu::cpu_kernel(iter, [](T base, T exp) -> T {
        if constexpr (std::is_signed_v<T>) {
          // Integer division semantics, as torch: 1/base^k truncates to 0 unless
          // |base| is 1, and torch's kernel gives 0 for a zero base too (no error:
          // the check against negative powers is pow.Tensor_Scalar's alone).
          if (exp < 0) {
            if (base == 1) return T(1);
            if (base == -1) return static_cast<T>((exp % 2) ? -1 : 1);
            return T(0);
          }
        }
        int64_t result = 1, b = base;
        for (uint64_t e = static_cast<uint64_t>(exp); e; e >>= 1, b = cpu::wrapping_mul(b, b))
          if (e & 1) result = cpu::wrapping_mul(result, b);
        return static_cast<T>(result);
      });
    } else {
      // The exponents torch also special-cases, when the exponent is one
      // number: exact products and roots that vectorize, not pow per element.
      const double e = fixed_exponent(exponent);
      if (e == 2) {
        cpu::cpu_kernel(iter, [](T a, T) -> T { return static_cast<T>(M(a) * M(a)); });
      } else if (e == 3) {
        cpu::cpu_kernel(iter, [](T a, T) -> T { return static_cast<T>(M(a) * M(a) * M(a)); });
      } else if (e == 0.5) {
        cpu::cpu_kernel(iter, [](T a, T) -> T { return static_cast<T>(std::sqrt(M(a))); });
      } else if (e == -0.5) {
        cpu::cpu_kernel(iter, [](T a, T) -> T { return static_cast<T>(M(1) / std::sqrt(M(a))); });
      } else if (e == -1) {
        cpu::cpu_kernel(iter, [](T a, T) -> T { return static_cast<T>(M(1) / M(a)); });
      } else if (e == -2) {
        cpu::cpu_kernel(iter, [](T a, T) -> T { return static_cast<T>(M(1) / (M(a) * M(a))); });
      } else if (!(std::is_same_v<T, float> && cpu::sleef_binary(iter, cpu::SleefBinary::Pow))) {
        cpu::cpu_kernel(iter, [](T a, T b) -> T { return static_cast<T>(std::pow(M(a), M(b))); });
      }
    }
  });
  return iter.output();
}

// ---- comparisons and logic ----------------------------------------------------

Tensor eq_out(const Tensor& self, const Tensor& other, const Tensor& out) { return comparison(self, other, out, "eq", 0); }
Tensor ne_out(const Tensor& self, const Tensor& other, const Tensor& out) { return comparison(self, other, out, "ne", 1); }
Tensor lt_out(const Tensor& self, const Tensor& other, const Tensor& out) { return comparison(self, other, out, "lt", 2); }
Tensor le_out(const Tensor& self, const Tensor& other, const Tensor& out) { return comparison(self, other, out, "le", 3); }
Tensor gt_out(const Tensor& self, const Tensor& other, const Tensor& out) { return comparison(self, other, out, "gt", 4); }
Tensor ge_out(const Tensor& self, const Tensor& other, const Tensor& out) { return comparison(self, other, out, "ge", 5); }

Tensor logical_and_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return logical(self, other, out, "logical_and", 0);
}
Tensor logical_or_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return logical(self, other, out, "logical_or", 1);
}
Tensor logical_xor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return logical(self, other, out, "logical_xor", 2);
}

Tensor bitwise_and_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return arithmetic<IntegralOrBool>(TensorIterator::binary_op(out, self, other, "bitwise_and"), "bitwise_and",
                                    [](auto a, auto b) { return a & b; });
}
Tensor bitwise_or_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return arithmetic<IntegralOrBool>(TensorIterator::binary_op(out, self, other, "bitwise_or"), "bitwise_or",
                                    [](auto a, auto b) { return a | b; });
}
Tensor bitwise_xor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return arithmetic<IntegralOrBool>(TensorIterator::binary_op(out, self, other, "bitwise_xor"), "bitwise_xor",
                                    [](auto a, auto b) { return a ^ b; });
}

// Shifts by a negative amount or by the width of the type or more are
// undefined in C++ (and differ between CPUs); as in PyTorch, they shift
// every bit out: 0, or -1 for a negative value shifted right.
template <typename T>
constexpr bool shift_in_range(T amount) {
  return amount >= 0 && static_cast<uint64_t>(amount) < sizeof(T) * 8;
}

Tensor bitwise_left_shift_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "bitwise_left_shift");
  visit_supported<cpu::IntegralOnly>(iter, "bitwise_left_shift", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu::cpu_kernel(iter, [](T a, T b) -> T {
      // Shifted as unsigned: a signed left shift into the sign bit is undefined too.
      return shift_in_range(b) ? static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) << b) : T(0);
    });
  });
  return iter.output();
}

Tensor bitwise_right_shift_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "bitwise_right_shift");
  visit_supported<cpu::IntegralOnly>(iter, "bitwise_right_shift", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu::cpu_kernel(iter, [](T a, T b) -> T {
      if (shift_in_range(b)) return static_cast<T>(a >> b);
      return a < 0 ? static_cast<T>(-1) : T(0);  // arithmetic shift: the sign fills
    });
  });
  return iter.output();
}

// ---- Scalar overloads: a Python number becomes a wrapped 0-d tensor ----------

Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) { return ember::add(self, wrap(other), alpha); }
Tensor add_(const Tensor& self, const Scalar& other, const Scalar& alpha) { return self.add_(wrap(other), alpha); }
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) { return ember::sub(self, wrap(other), alpha); }
Tensor sub_(const Tensor& self, const Scalar& other, const Scalar& alpha) { return self.sub_(wrap(other), alpha); }
Tensor mul(const Tensor& self, const Scalar& other) { return ember::mul(self, wrap(other)); }
Tensor mul_(const Tensor& self, const Scalar& other) { return self.mul_(wrap(other)); }
Tensor div(const Tensor& self, const Scalar& other) { return ember::div(self, wrap(other)); }
Tensor div_(const Tensor& self, const Scalar& other) { return self.div_(wrap(other)); }
Tensor remainder(const Tensor& self, const Scalar& other) { return ember::remainder(self, wrap(other)); }
Tensor remainder_(const Tensor& self, const Scalar& other) { return self.remainder_(wrap(other)); }
Tensor eq(const Tensor& self, const Scalar& other) { return ember::eq(self, wrap(other)); }
Tensor eq_(const Tensor& self, const Scalar& other) { return self.eq_(wrap(other)); }
Tensor ne(const Tensor& self, const Scalar& other) { return ember::ne(self, wrap(other)); }
Tensor ne_(const Tensor& self, const Scalar& other) { return self.ne_(wrap(other)); }
Tensor lt(const Tensor& self, const Scalar& other) { return ember::lt(self, wrap(other)); }
Tensor lt_(const Tensor& self, const Scalar& other) { return self.lt_(wrap(other)); }
Tensor le(const Tensor& self, const Scalar& other) { return ember::le(self, wrap(other)); }
Tensor le_(const Tensor& self, const Scalar& other) { return self.le_(wrap(other)); }
Tensor gt(const Tensor& self, const Scalar& other) { return ember::gt(self, wrap(other)); }
Tensor gt_(const Tensor& self, const Scalar& other) { return self.gt_(wrap(other)); }
Tensor ge(const Tensor& self, const Scalar& other) { return ember::ge(self, wrap(other)); }
Tensor ge_(const Tensor& self, const Scalar& other) { return self.ge_(wrap(other)); }
Tensor bitwise_and(const Tensor& self, const Scalar& other) { return ember::bitwise_and(self, wrap(other)); }
Tensor bitwise_and_(const Tensor& self, const Scalar& other) { return self.bitwise_and_(wrap(other)); }
Tensor bitwise_or(const Tensor& self, const Scalar& other) { return ember::bitwise_or(self, wrap(other)); }
Tensor bitwise_or_(const Tensor& self, const Scalar& other) { return self.bitwise_or_(wrap(other)); }
Tensor bitwise_xor(const Tensor& self, const Scalar& other) { return ember::bitwise_xor(self, wrap(other)); }
Tensor bitwise_xor_(const Tensor& self, const Scalar& other) { return self.bitwise_xor_(wrap(other)); }

Tensor bitwise_left_shift(const Tensor& self, const Scalar& other) {
  return ember::bitwise_left_shift(self, wrap(other));
}
Tensor bitwise_left_shift_(const Tensor& self, const Scalar& other) { return self.bitwise_left_shift_(wrap(other)); }
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other) {
  return ember::bitwise_left_shift(wrap(self), other);
}
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other) {
  return ember::bitwise_right_shift(self, wrap(other));
}
Tensor bitwise_right_shift_(const Tensor& self, const Scalar& other) { return self.bitwise_right_shift_(wrap(other)); }
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other) {
  return ember::bitwise_right_shift(wrap(self), other);
}

Tensor floor_divide(const Tensor& self, const Tensor& other) { return ember::div(self, other, "floor"); }
Tensor floor_divide(const Tensor& self, const Scalar& other) { return ember::div(self, wrap(other), "floor"); }
Tensor true_divide(const Tensor& self, const Tensor& other) { return ember::div(self, other); }
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) { return ember::sub(other, self, alpha); }
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha) { return ember::sub(wrap(other), self, alpha); }
Tensor pow(const Tensor& self, const Scalar& exponent) {
  EMBER_CHECK(!(c10::isIntegralType(self.dtype(), false) && exponent.isIntegral(false) && exponent.toLong() < 0),
              "Integers to negative integer powers are not allowed.");
  return ember::pow(self, wrap(exponent));
}
Tensor pow_(const Tensor& self, const Scalar& exponent) { return self.pow_(wrap(exponent)); }
Tensor pow(const Scalar& self, const Tensor& exponent) { return ember::pow(wrap(self), exponent); }

// float_power: pow computed in double (complex double where an operand is complex).
namespace {
ScalarType float_power_dtype(bool any_complex) { return any_complex ? ScalarType::ComplexDouble : ScalarType::Double; }
ScalarType float_power_dtype(const Tensor& self, const Tensor& exponent) {
  return float_power_dtype(self.is_complex() || exponent.is_complex());
}
ScalarType float_power_dtype(const Tensor& self, const Scalar& exponent) {
  return float_power_dtype(self.is_complex() || exponent.isComplex());
}
ScalarType float_power_dtype(const Scalar& self, const Tensor& exponent) {
  return float_power_dtype(self.isComplex() || exponent.is_complex());
}
void check_float_power_out(const Tensor& out, ScalarType dtype) {
  EMBER_CHECK(out.scalar_type() == dtype, "the output given to float_power has dtype {} but the operation's result "
              "requires dtype {}", c10::toString(out.scalar_type()), c10::toString(dtype));
}
void check_float_power_inplace(const Tensor& self, ScalarType dtype) {
  EMBER_CHECK(self.scalar_type() == dtype, "the base given to float_power_ has dtype {} but the operation's result "
              "requires dtype {}", c10::toString(self.scalar_type()), c10::toString(dtype));
}
}  // namespace

Tensor float_power(const Tensor& self, const Tensor& exponent) {
  const ScalarType dtype = float_power_dtype(self, exponent);
  return ember::pow(self.to(dtype), exponent.to(dtype));
}
Tensor float_power(const Tensor& self, const Scalar& exponent) {
  return ember::pow(self.to(float_power_dtype(self, exponent)), exponent);
}
Tensor float_power(const Scalar& self, const Tensor& exponent) {
  return ember::pow(self, exponent.to(float_power_dtype(self, exponent)));
}
Tensor float_power_out(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  const ScalarType dtype = float_power_dtype(self, exponent);
  check_float_power_out(out, dtype);
  return ember::pow_outf(self.to(dtype), exponent.to(dtype), out);
}
Tensor float_power_out(const Scalar& self, const Tensor& exponent, const Tensor& out) {
  const ScalarType dtype = float_power_dtype(self, exponent);
  check_float_power_out(out, dtype);
  return ember::pow_outf(self, exponent.to(dtype), out);
}
Tensor float_power_(const Tensor& self, const Tensor& exponent) {
  const ScalarType dtype = float_power_dtype(self, exponent);
  check_float_power_inplace(self, dtype);
  return self.pow_(exponent.to(dtype));
}
Tensor float_power_(const Tensor& self, const Scalar& exponent) {
  check_float_power_inplace(self, float_power_dtype(self, exponent));
  return self.pow_(exponent);
}

// ---- where and clamp ----------------------------------------------------------

Tensor where_out(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::where_op(out, condition, self, other);
  c10::visit_scalar_type(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    // The condition read as bytes: GCC vectorizes the select over uint8_t, not over bool.
    cpu::cpu_kernel(iter, [](uint8_t c, T a, T b) -> T { return c ? a : b; });
  });
  return iter.output();
}

Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return ember::where(condition, self, wrap(other));
}
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return ember::where(condition, wrap(self), other);
}

Tensor clamp_out(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                 const Tensor& out) {
  EMBER_CHECK(min.has_value() || max.has_value(), "torch.clamp: At least one of 'min' or 'max' must not be None");
  TensorIteratorConfig config;
  config.name("clamp").add_output(out).add_input(self);
  if (min) config.add_input(*min);
  if (max) config.add_input(*max);
  auto iter = config.promote_inputs_to_common_dtype().cast_common_dtype_to_outputs().enforce_safe_casting_to_output().build();
  EMBER_CHECK_NOT_IMPLEMENTED(iter.common_dtype() != ScalarType::Bool, "\"clamp\" not implemented for 'Bool'");
  visit_supported<NotComplex>(iter, "clamp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    // A NaN input or bound gives NaN; min applies first, then max (PyTorch).
    auto lower = [](M x, M lo) { return x != x ? x : (lo != lo ? lo : (x < lo ? lo : x)); };
    auto upper = [](M x, M hi) { return x != x ? x : (hi != hi ? hi : (x > hi ? hi : x)); };
    if (min && max) {
      cpu::cpu_kernel(iter, [=](T x, T lo, T hi) -> T { return static_cast<T>(upper(lower(M(x), M(lo)), M(hi))); });
    } else if (min) {
      cpu::cpu_kernel(iter, [=](T x, T lo) -> T { return static_cast<T>(lower(M(x), M(lo))); });
    } else {
      cpu::cpu_kernel(iter, [=](T x, T hi) -> T { return static_cast<T>(upper(M(x), M(hi))); });
    }
  });
  return iter.output();
}

Tensor clamp_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                 const Tensor& out) {
  // A floating tensor between real, non-NaN number bounds (clamp(x, -1, 1),
  // clamp(min=0)): the bounds are constants of the loop and each one is a
  // single max or min instruction (a NaN x fails both comparisons and stays
  // NaN). The general kernel below tests every bound for NaN on every
  // element: 134 us against torch's 93 for 1M floats.
  auto plain = [](const std::optional<Scalar>& s) {
    return !s || (!s->isComplex() && !s->isBoolean() && !std::isnan(s->toDouble()));
  };
  if ((min || max) && plain(min) && plain(max) && c10::isFloatingType(self.scalar_type()) &&
      (!out.defined() || out.scalar_type() == self.scalar_type())) {
    auto iter = TensorIterator::unary_op(out, self, "clamp");
    visit_supported<FloatingOnly>(iter, "clamp", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using M = opmath_t<T>;
      const M lo = min ? M(min->toDouble()) : -std::numeric_limits<M>::infinity();
      const M hi = max ? M(max->toDouble()) : std::numeric_limits<M>::infinity();
      cpu::cpu_kernel(iter, [lo, hi](T x) -> T {
        M v = M(x);
        v = v < lo ? lo : v;
        return static_cast<T>(v > hi ? hi : v);
      });
    });
    return iter.output();
  }
  auto as_tensor = [](const std::optional<Scalar>& s) -> std::optional<Tensor> {
    if (!s) return std::nullopt;
    return wrap(*s);
  };
  return ember::clamp_outf(self, as_tensor(min), as_tensor(max), out);
}

Tensor clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return ember::clamp(self, min, max);
}

}  // namespace ember::native

namespace ember::native {
Tensor div(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return ember::div(self, wrapped_scalar_tensor(other), rounding_mode);
}
Tensor div_(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return self.div_(wrapped_scalar_tensor(other), rounding_mode);
}
}  // namespace ember::native

namespace ember::native {
Tensor true_divide(const Tensor& self, const Scalar& other) { return ember::div(self, wrapped_scalar_tensor(other)); }
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return ember::where(condition, wrapped_scalar_tensor(self), wrapped_scalar_tensor(other));
}
}  // namespace ember::native

namespace ember::native {
Tensor floor_divide_(const Tensor& self, const Tensor& other) { return self.div_(other, "floor"); }
Tensor true_divide_(const Tensor& self, const Tensor& other) { return self.div_(other); }
Tensor clip_(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return self.clamp_(min, max);
}
}  // namespace ember::native

namespace ember::native {
Tensor floor_divide_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return ember::div_outf(self, other, "floor", out);
}
Tensor true_divide_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return ember::div_outf(self, other, out);
}
Tensor clip_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                const Tensor& out) {
  return ember::clamp_outf(self, min, max, out);
}
Tensor pow_out(const Scalar& self, const Tensor& exponent, const Tensor& out) {
  return ember::pow_outf(wrapped_scalar_tensor(self), exponent, out);
}
// clamp with one bound.
Tensor clamp_min(const Tensor& self, const Scalar& min) { return ember::clamp(self, min, std::nullopt); }
Tensor clamp_max(const Tensor& self, const Scalar& max) { return ember::clamp(self, std::nullopt, max); }
Tensor clamp_min(const Tensor& self, const Tensor& min) { return ember::clamp(self, min, std::nullopt); }
Tensor clamp_max(const Tensor& self, const Tensor& max) { return ember::clamp(self, std::nullopt, max); }
Tensor clamp_min_(const Tensor& self, const Scalar& min) { return ember::clamp_(self, min, std::nullopt); }
Tensor clamp_max_(const Tensor& self, const Scalar& max) { return ember::clamp_(self, std::nullopt, max); }
Tensor clamp_min_(const Tensor& self, const Tensor& min) { return ember::clamp_(self, min, std::nullopt); }
Tensor clamp_max_(const Tensor& self, const Tensor& max) { return ember::clamp_(self, std::nullopt, max); }

}  // namespace ember::native
