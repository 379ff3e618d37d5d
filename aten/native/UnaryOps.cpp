// Unary elementwise operators. Each out= kernel builds a TensorIterator
// (which also serves Meta tensors: shapes and dtypes without a loop) and
// applies one scalar function; functional and in-place forms delegate here.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/Resize.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/Loops.h>
#include <aten/native/cpu/FloatStaging.h>
#include <aten/native/cpu/SleefMath.h>
#include <aten/native/cpu/VecMath.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ember::native {

namespace {

using cpu::opmath_t;

// Which dtypes an op accepts; an op rejects the others with PyTorch's words.
enum Accepts : unsigned { kBool = 1, kIntegral = 2, kFloating = 4, kComplex = 8, kAll = 15, kReal = 7, kNumber = 14 };

bool accepts(unsigned mask, ScalarType t) {
  switch (c10::info(t).kind) {
    case c10::TypeKind::Bool: return mask & kBool;
    case c10::TypeKind::Integral: return mask & kIntegral;
    case c10::TypeKind::Floating: return mask & kFloating;
    case c10::TypeKind::Complex: return mask & kComplex;
  }
  return false;
}

// Runs Op{}(x) over the iterator's common dtype, computing in opmath_t.
template <typename Op>
void apply_same_type(TensorIterator& iter, const char* name, unsigned mask) {
  const ScalarType t = iter.common_dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(accepts(mask, t), "\"{}\" not implemented for '{}'", name, c10::toString(t));
  c10::visit_scalar_type(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (Op::template supports<T>) {
      cpu::cpu_kernel(iter, [](T x) -> T { return static_cast<T>(Op{}(static_cast<M>(x))); });
    }
  });
}

template <typename Op>
Tensor float_unary(const Tensor& self, const Tensor& out, const char* name, unsigned mask = kNumber) {
  auto iter = TensorIterator::unary_float_op(out, self, name);
  apply_same_type<Op>(iter, name, mask);
  return iter.output();
}

template <typename Op>
Tensor same_type_unary(const Tensor& self, const Tensor& out, const char* name, unsigned mask) {
  auto iter = TensorIterator::unary_op(out, self, name);
  apply_same_type<Op>(iter, name, mask);
  return iter.output();
}

template <typename T>
inline constexpr bool not_bool = !std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool real_float = cpu::is_floating_v<T>;
template <typename T>
inline constexpr bool float_or_complex = cpu::is_floating_v<T> || c10::is_complex_v<T>;

// The inverse error function (the C++ library has none): Giles' (2010)
// single-precision polynomial as the first guess, then two Newton steps on
// erf, which bring it to double precision on (-1, 1).
double erfinv_double(double y) {
  if (!(std::abs(y) < 1)) return std::abs(y) == 1 ? std::copysign(INFINITY, y) : NAN;
  if (y == 0) return y;  // keeps the sign of -0
  const double w = -std::log((1 - y) * (1 + y));
  double p;
  if (w < 5) {
    const double v = w - 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                     0.246640727, 1.50140941})
      p = p * v + c;
  } else {
    const double v = std::sqrt(w) - 3;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682})
      p = p * v + c;
  }
  double x = p * y;
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (M_2_SQRTPI * std::exp(-x * x));
  return x;
}

// One functor per op. `supports<T>` limits instantiation to the dtypes the op
// can compute (the runtime check above gives the error for the rest).
struct Exp { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::exp(x); } };
struct Exp2 { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { if constexpr (c10::is_complex_v<T>) return std::exp(x * typename T::value_type(M_LN2)); else return std::exp2(x); } };
struct Log { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::log(x); } };
struct Log2 { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { if constexpr (c10::is_complex_v<T>) return std::log(x) / typename T::value_type(M_LN2); else return std::log2(x); } };
struct Log10 { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::log10(x); } };
struct Log1p { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { if constexpr (c10::is_complex_v<T>) return std::log(T(1) + x); else return std::log1p(x); } };
struct Expm1 { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { if constexpr (c10::is_complex_v<T>) return std::exp(x) - T(1); else return std::expm1(x); } };
struct Sqrt { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::sqrt(x); } };
struct Rsqrt { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return T(1) / std::sqrt(x); } };
struct Sin { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::sin(x); } };
struct Cos { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::cos(x); } };
struct Tan { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::tan(x); } };
struct Asin { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::asin(x); } };
struct Acos { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::acos(x); } };
struct Atan { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::atan(x); } };
struct Sinh { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::sinh(x); } };
struct Cosh { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::cosh(x); } };
struct Tanh { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::tanh(x); } };
struct Asinh { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::asinh(x); } };
struct Acosh { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::acosh(x); } };
struct Atanh { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return std::atanh(x); } };
// The normalized sinc, sin(pi x) / (pi x), and 1 at 0.
struct Sinc { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { if (x == T(0)) return T(1); const T px = x * T(M_PI); return std::sin(px) / px; } };
struct Deg2rad { template <typename T> static constexpr bool supports = real_float<T>; template <typename T> T operator()(T x) const { return x * T(M_PI / 180.0); } };
struct Rad2deg { template <typename T> static constexpr bool supports = real_float<T>; template <typename T> T operator()(T x) const { return x * T(180.0 / M_PI); } };
struct Sigmoid { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return T(1) / (T(1) + std::exp(-x)); } };
struct Erf { template <typename T> static constexpr bool supports = real_float<T>; template <typename T> T operator()(T x) const { return std::erf(x); } };
struct Erfc { template <typename T> static constexpr bool supports = real_float<T>; template <typename T> T operator()(T x) const { return std::erfc(x); } };
struct Erfinv { template <typename T> static constexpr bool supports = real_float<T>; template <typename T> T operator()(T x) const { return static_cast<T>(erfinv_double(static_cast<double>(x))); } };
struct Reciprocal { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return T(1) / x; } };
struct Silu { template <typename T> static constexpr bool supports = float_or_complex<T>; template <typename T> T operator()(T x) const { return x / (T(1) + std::exp(-x)); } };
struct Neg { template <typename T> static constexpr bool supports = not_bool<T>; template <typename T> T operator()(T x) const { return cpu::negate_wrapping(x); } };
struct Floor { template <typename T> static constexpr bool supports = !c10::is_complex_v<T> && not_bool<T>; template <typename T> T operator()(T x) const { if constexpr (cpu::is_integral_v<T>) return x; else return std::floor(x); } };
struct Ceil { template <typename T> static constexpr bool supports = !c10::is_complex_v<T> && not_bool<T>; template <typename T> T operator()(T x) const { if constexpr (cpu::is_integral_v<T>) return x; else return std::ceil(x); } };
struct Trunc { template <typename T> static constexpr bool supports = !c10::is_complex_v<T> && not_bool<T>; template <typename T> T operator()(T x) const { if constexpr (cpu::is_integral_v<T>) return x; else return std::trunc(x); } };
// Round half to even, as torch.round and NumPy do.
struct Round { template <typename T> static constexpr bool supports = !c10::is_complex_v<T> && not_bool<T>; template <typename T> T operator()(T x) const { if constexpr (cpu::is_integral_v<T>) return x; else return std::nearbyint(x); } };
struct Frac { template <typename T> static constexpr bool supports = real_float<T>; template <typename T> T operator()(T x) const { return x - std::trunc(x); } };
struct Sign { template <typename T> static constexpr bool supports = !c10::is_complex_v<T>; template <typename T> T operator()(T x) const { if constexpr (std::is_same_v<T, bool>) return x; else return static_cast<T>((T(0) < x) - (x < T(0))); } };
struct Relu { template <typename T> static constexpr bool supports = !c10::is_complex_v<T> && not_bool<T>; template <typename T> T operator()(T x) const { return x < T(0) ? T(0) : x; } };
struct BitwiseNot { template <typename T> static constexpr bool supports = std::is_integral_v<T>; template <typename T> T operator()(T x) const { if constexpr (std::is_same_v<T, bool>) return !x; else return static_cast<T>(~x); } };

}  // namespace

// Contiguous float32, and bfloat16/float16 through staging buffers, go
// through the vectorized loop, contiguous float64 through `doubles` where
// given; everything else through the generic kernel of Op.
template <typename Op>
Tensor float_unary_vectorized(const Tensor& self, const Tensor& out, const char* name,
                              void (*floats)(const float*, float*, int64_t), cpu::DoublesFn doubles = nullptr,
                              unsigned mask = kNumber) {
  auto iter = TensorIterator::unary_float_op(out, self, name);
  if (cpu::float_kernel_pays(iter)) {
    cpu::for_each_as_floats<1>(iter, [floats](const auto& in, float* y, int64_t n) { floats(in[0], y, n); });
    return iter.output();
  }
  if (doubles != nullptr && iter.is_contiguous() && iter.dtype(0) == ScalarType::Double &&
      iter.dtype(1) == ScalarType::Double) {
    iter.for_each([doubles](char** data, const int64_t*, int64_t n) {
      doubles(reinterpret_cast<const double*>(data[1]), reinterpret_cast<double*>(data[0]), n);
    });
    return iter.output();
  }
  apply_same_type<Op>(iter, name, mask);
  return iter.output();
}

// SLEEF's loops of f for both widths.
template <typename Op>
Tensor sleef_unary(const Tensor& self, const Tensor& out, const char* name, cpu::SleefUnary f) {
  return float_unary_vectorized<Op>(self, out, name, cpu::sleef_floats(f), cpu::sleef_doubles(f));
}

Tensor exp_out(const Tensor& self, const Tensor& out) {
  return float_unary_vectorized<Exp>(self, out, "exp", &cpu::exp_floats, cpu::sleef_doubles(cpu::SleefUnary::Exp));
}
Tensor exp2_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Exp2>(self, out, "exp2", cpu::SleefUnary::Exp2);
}
Tensor log_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Log>(self, out, "log", cpu::SleefUnary::Log);
}
Tensor log2_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Log2>(self, out, "log2", cpu::SleefUnary::Log2);
}
Tensor log10_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Log10>(self, out, "log10", cpu::SleefUnary::Log10);
}
Tensor log1p_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Log1p>(self, out, "log1p", cpu::SleefUnary::Log1p);
}
Tensor expm1_out(const Tensor& self, const Tensor& out) {
  return float_unary_vectorized<Expm1>(self, out, "expm1", &cpu::expm1_floats, cpu::sleef_doubles(cpu::SleefUnary::Expm1));
}
Tensor sqrt_out(const Tensor& self, const Tensor& out) { return float_unary<Sqrt>(self, out, "sqrt"); }
Tensor rsqrt_out(const Tensor& self, const Tensor& out) { return float_unary<Rsqrt>(self, out, "rsqrt"); }
Tensor sin_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Sin>(self, out, "sin", cpu::SleefUnary::Sin);
}
Tensor cos_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Cos>(self, out, "cos", cpu::SleefUnary::Cos);
}
Tensor tan_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Tan>(self, out, "tan", cpu::SleefUnary::Tan);
}
Tensor asin_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Asin>(self, out, "asin", cpu::SleefUnary::Asin);
}
Tensor acos_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Acos>(self, out, "acos", cpu::SleefUnary::Acos);
}
Tensor atan_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Atan>(self, out, "atan", cpu::SleefUnary::Atan);
}
Tensor sinh_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Sinh>(self, out, "sinh", cpu::SleefUnary::Sinh);
}
Tensor cosh_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Cosh>(self, out, "cosh", cpu::SleefUnary::Cosh);
}
Tensor tanh_out(const Tensor& self, const Tensor& out) {
  return float_unary_vectorized<Tanh>(self, out, "tanh", &cpu::tanh_floats, cpu::sleef_doubles(cpu::SleefUnary::Tanh));
}
Tensor sigmoid_out(const Tensor& self, const Tensor& out) {
  return float_unary_vectorized<Sigmoid>(self, out, "sigmoid", &cpu::sigmoid_floats);
}
Tensor asinh_out(const Tensor& self, const Tensor& out) { return float_unary<Asinh>(self, out, "asinh"); }
Tensor acosh_out(const Tensor& self, const Tensor& out) { return float_unary<Acosh>(self, out, "acosh"); }
Tensor atanh_out(const Tensor& self, const Tensor& out) {
  return sleef_unary<Atanh>(self, out, "atanh", cpu::SleefUnary::Atanh);
}
Tensor sinc_out(const Tensor& self, const Tensor& out) { return float_unary<Sinc>(self, out, "sinc"); }
Tensor deg2rad_out(const Tensor& self, const Tensor& out) {
  EMBER_CHECK(!self.is_complex(), "deg2rad is not supported for complex tensors.");
  return float_unary<Deg2rad>(self, out, "deg2rad", kReal);
}
Tensor rad2deg_out(const Tensor& self, const Tensor& out) {
  EMBER_CHECK(!self.is_complex(), "rad2deg is not supported for complex tensors.");
  return float_unary<Rad2deg>(self, out, "rad2deg", kReal);
}
Tensor erf_out(const Tensor& self, const Tensor& out) {
  return float_unary_vectorized<Erf>(self, out, "erf", &cpu::erf_floats, nullptr, kReal);
}
Tensor erfc_out(const Tensor& self, const Tensor& out) {
  return float_unary_vectorized<Erfc>(self, out, "erfc", &cpu::erfc_floats, nullptr, kReal);
}
Tensor erfinv_out(const Tensor& self, const Tensor& out) {
  return float_unary_vectorized<Erfinv>(self, out, "erfinv", &cpu::erfinv_floats, nullptr, kReal);
}
Tensor reciprocal_out(const Tensor& self, const Tensor& out) { return float_unary<Reciprocal>(self, out, "reciprocal"); }
Tensor silu_out(const Tensor& self, const Tensor& out) {
  // Only floating and complex inputs, as torch (no integer promotion).
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point() || self.is_complex(), "\"silu\" not implemented for '{}'",
                              c10::toString(self.dtype()));
  return float_unary_vectorized<Silu>(self, out, "silu", &cpu::silu_floats);
}
Tensor neg_out(const Tensor& self, const Tensor& out) {
  EMBER_CHECK(self.dtype() != ScalarType::Bool,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
              "use the `~` or `logical_not()` operator instead.");
  return same_type_unary<Neg>(self, out, "neg", kNumber);
}
Tensor floor_out(const Tensor& self, const Tensor& out) { return same_type_unary<Floor>(self, out, "floor", kReal & ~kBool); }
Tensor ceil_out(const Tensor& self, const Tensor& out) { return same_type_unary<Ceil>(self, out, "ceil", kReal & ~kBool); }
Tensor trunc_out(const Tensor& self, const Tensor& out) { return same_type_unary<Trunc>(self, out, "trunc", kReal & ~kBool); }
Tensor round_out(const Tensor& self, const Tensor& out) { return same_type_unary<Round>(self, out, "round", kReal & ~kBool); }
Tensor frac_out(const Tensor& self, const Tensor& out) { return same_type_unary<Frac>(self, out, "frac", kFloating); }
Tensor sign_out(const Tensor& self, const Tensor& out) {
  EMBER_CHECK_NOT_IMPLEMENTED(
      !self.is_complex(),
      "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.");
  return same_type_unary<Sign>(self, out, "sign", kReal);
}
Tensor relu_out(const Tensor& self, const Tensor& out) {
  EMBER_CHECK(self.dtype() != ScalarType::Bool, "Boolean inputs not supported for relu");
  return same_type_unary<Relu>(self, out, "relu", kReal & ~kBool);
}
// relu's gradient (threshold's too): grad where self > threshold, else 0,
// one pass instead of a comparison, a bool tensor and a product. NaN in self
// lets the gradient through, as in torch.
Tensor threshold_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& threshold,
                              const Tensor& grad_input) {
  auto iter = TensorIterator::binary_op(grad_input, grad_output, self, "threshold_backward");
  EMBER_CHECK_NOT_IMPLEMENTED(accepts(kReal & ~kBool, iter.common_dtype()),
                              "\"threshold_backward\" not implemented for '{}'", c10::toString(iter.common_dtype()));
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!c10::is_complex_v<T> && !std::is_same_v<T, bool>) {
      using M = opmath_t<T>;
      const M limit = threshold.to<M>();
      cpu::cpu_kernel(iter, [limit](T grad, T x) -> T { return M(x) <= limit ? T(0) : grad; });
    }
  });
  return iter.output();
}

Tensor bitwise_not_out(const Tensor& self, const Tensor& out) {
  return same_type_unary<BitwiseNot>(self, out, "bitwise_not", kBool | kIntegral);
}

Tensor abs_out(const Tensor& self, const Tensor& out) {
  // The absolute value of a complex number is real.
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Bool, "\"abs\" not implemented for 'Bool'");
  EMBER_CHECK(!(self.is_complex() && out.defined() && out.is_same(self)),
              "In-place abs is not supported for complex tensors.");
  TensorIteratorConfig config;
  config.name("abs").add_output(out).add_input(self);
  if (self.is_complex()) config.declare_static_output_dtype(c10::toRealValueType(self.dtype()));
  auto iter = config.cast_common_dtype_to_outputs().enforce_safe_casting_to_output().build();
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (c10::is_complex_v<T>) {
      using R = typename T::value_type;
      if (iter.dtype(0) == c10::cpp_to_scalar_type<R>) {
        cpu::cpu_kernel(iter, [](T x) -> R { return std::abs(x); });
      } else {
        cpu::cpu_kernel(iter, [](T x) -> T { return T(std::abs(x)); });
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      cpu::cpu_kernel(iter, [](T x) -> T { return x; });
    } else {
      using M = opmath_t<T>;
      cpu::cpu_kernel(iter, [](T x) -> T {
        // The most negative integer stays itself, as in torch (std::abs of it is undefined).
        if constexpr (cpu::is_integral_v<T>) return x < T(0) ? cpu::negate_wrapping(x) : x;
        else return static_cast<T>(std::abs(static_cast<M>(x)));
      });
    }
  });
  return iter.output();
}

Tensor signbit_out(const Tensor& self, const Tensor& out) {
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_complex(), "signbit is not implemented for complex tensors.");
  TensorIteratorConfig config;
  config.name("signbit").add_output(out).add_input(self);
  config.declare_static_output_dtype(ScalarType::Bool);
  auto iter = config.cast_common_dtype_to_outputs().build();
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
      cpu::cpu_kernel(iter, [](T) -> bool { return false; });
    } else if constexpr (!c10::is_complex_v<T>) {
      // Read from the bits: GCC 12 fails to compile the vectorized std::signbit (an internal error).
      cpu::cpu_kernel(iter, [](T x) -> bool {
        if constexpr (std::is_integral_v<T>) {
          return x < 0;
        } else {
          using M = opmath_t<T>;
          using Bits = std::conditional_t<sizeof(M) == 8, uint64_t, uint32_t>;
          const M value = static_cast<M>(x);
          Bits bits;
          std::memcpy(&bits, &value, sizeof bits);
          return (bits >> (8 * sizeof(Bits) - 1)) != 0;
        }
      });
    }
  });
  return iter.output();
}

// sign() for real numbers; z / |z| (0 at 0) for complex ones.
Tensor sgn_out(const Tensor& self, const Tensor& out) {
  if (!self.is_complex()) return ember::sign_outf(self, out);
  auto iter = TensorIterator::unary_op(out, self, "sgn");
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (c10::is_complex_v<T>) {
      cpu::cpu_kernel(iter, [](T z) -> T {
        const auto magnitude = std::abs(z);
        return magnitude == 0 ? T(0) : z / magnitude;
      });
    }
  });
  return iter.output();
}

// log(x / (1 - x)), with x first clamped to [eps, 1 - eps] when eps is given.
Tensor logit_out(const Tensor& self, std::optional<double> eps, const Tensor& out) {
  auto iter = TensorIterator::unary_float_op(out, self, "logit");
  const ScalarType t = iter.common_dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(accepts(kReal, t), "\"logit\" not implemented for '{}'", c10::toString(t));
  c10::visit_scalar_type(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (real_float<T>) {
      const M lo = eps ? M(*eps) : M(0), hi = eps ? M(1 - *eps) : M(1);
      const bool clamp = eps.has_value();
      cpu::cpu_kernel(iter, [=](T v) -> T {
        M x = M(v);
        if (clamp) x = x < lo ? lo : (x > hi ? hi : x);
        return static_cast<T>(std::log(x / (M(1) - x)));
      });
    }
  });
  return iter.output();
}

Tensor logical_not_out(const Tensor& self, const Tensor& out) {
  TensorIteratorConfig config;
  config.name("logical_not").add_output(out).add_input(self);
  config.declare_static_output_dtype(ScalarType::Bool);
  auto iter = config.cast_common_dtype_to_outputs().build();
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu::cpu_kernel(iter, [](T x) -> bool { return !c10::convert<bool>(x); });
  });
  return iter.output();
}

Tensor gelu_out(const Tensor& self, std::string_view approximate, const Tensor& out) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point(), "\"gelu\" not implemented for '{}'",
                              c10::toString(self.dtype()));
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
                    "approximate argument must be either none or tanh, got '{}'", approximate);
  auto iter = TensorIterator::unary_float_op(out, self, "gelu");
  const bool use_tanh = approximate == "tanh";
  if (cpu::float_kernel_pays(iter)) {
    const auto kernel = use_tanh ? cpu::gelu_tanh_floats : cpu::gelu_floats;
    cpu::for_each_as_floats<1>(iter, [kernel](const auto& in, float* y, int64_t n) { kernel(in[0], y, n); });
    return iter.output();
  }
  EMBER_CHECK_NOT_IMPLEMENTED(accepts(kReal, iter.common_dtype()), "\"gelu\" not implemented for '{}'",
                              c10::toString(iter.common_dtype()));
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = opmath_t<T>;
      cpu::cpu_kernel(iter, [use_tanh](T value) -> T {
        const M x = static_cast<M>(value);
        if (use_tanh) {
          const M inner = M(0.7978845608028654) * (x + M(0.044715) * x * x * x);  // sqrt(2/pi)
          return static_cast<T>(M(0.5) * x * (M(1) + std::tanh(inner)));
        }
        return static_cast<T>(M(0.5) * x * (M(1) + std::erf(x * M(0.7071067811865476))));  // 1/sqrt(2)
      });
    }
  });
  return iter.output();
}

// d gelu / dx, times the incoming gradient, in one pass: the composition
// (erf, exp and four products) costs several passes over memory.
Tensor gelu_backward_out(const Tensor& grad_output, const Tensor& self, std::string_view approximate,
                         const Tensor& grad_input) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "approximate argument must be either none or tanh, got '{}'", approximate);
  auto iter = TensorIterator::binary_op(grad_input, grad_output, self, "gelu_backward");
  EMBER_CHECK_NOT_IMPLEMENTED(accepts(kFloating, iter.common_dtype()),
                              "\"GeluBackwardCPUKernelImpl\" not implemented for '{}'",
                              c10::toString(iter.common_dtype()));
  const bool use_tanh = approximate == "tanh";
  if (cpu::float_kernel_serves(iter)) {
    // Strided runs (a broadcast grad, as sum() sends back) and 16-bit
    // operands are staged through small buffers.
    const auto kernel = use_tanh ? cpu::gelu_tanh_backward_floats : cpu::gelu_backward_floats;
    cpu::for_each_as_floats<2>(iter, [kernel](const auto& in, float* y, int64_t n) { kernel(in[0], in[1], y, n); });
    return iter.output();
  }
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = opmath_t<T>;
      cpu::cpu_kernel(iter, [use_tanh](T grad, T value) -> T {
        const M x = static_cast<M>(value);
        if (use_tanh) {
          const M k = M(0.7978845608028654), c = M(0.044715);  // sqrt(2/pi)
          const M t = std::tanh(k * (x + c * x * x * x));
          const M du = k * (M(1) + M(3) * c * x * x);
          return static_cast<T>(M(grad) * (M(0.5) * (M(1) + t) + M(0.5) * x * (M(1) - t * t) * du));
        }
        const M cdf = M(0.5) * (M(1) + std::erf(x * M(0.7071067811865476)));
        const M pdf = std::exp(M(-0.5) * x * x) * M(0.3989422804014327);  // 1/sqrt(2 pi)
        return static_cast<T>(M(grad) * (cdf + x * pdf));
      });
    }
  });
  return iter.output();
}

// ---- floating-point classification (composites) -------------------------------
// Integers and bools are always finite; x - x is 0 exactly when x is finite
// (inf - inf and NaN - NaN are NaN), for real and complex x alike.

Tensor isnan(const Tensor& self) { return ember::ne(self, self); }

Tensor isfinite(const Tensor& self) {
  if (!self.is_floating_point() && !self.is_complex()) return ember::ones_like(self, ScalarType::Bool);
  return ember::eq(ember::sub(self, self), 0);
}

Tensor isinf(const Tensor& self) {
  if (!self.is_floating_point() && !self.is_complex()) return ember::zeros_like(self, ScalarType::Bool);
  return ember::eq(ember::abs(self), INFINITY);
}

namespace {
Tensor signed_inf(const Tensor& self, double inf, const char* name) {
  EMBER_CHECK(!self.is_complex(), "{} does not support complex inputs.", name);
  if (!self.is_floating_point()) return ember::zeros_like(self, ScalarType::Bool);
  return ember::eq(self, inf);
}
}  // namespace

Tensor isposinf(const Tensor& self) { return signed_inf(self, INFINITY, "isposinf"); }
Tensor isneginf(const Tensor& self) { return signed_inf(self, -INFINITY, "isneginf"); }

// ---- compositions -----------------------------------------------------------------

// self * self as pow(self, 2); bools square as int64, as torch.
Tensor square(const Tensor& self) {
  return ember::pow(self.scalar_type() == ScalarType::Bool ? self.to(ScalarType::Long) : self, 2);
}
Tensor square_(const Tensor& self) { return self.pow_(2); }
Tensor square_out(const Tensor& self, const Tensor& out) {
  return ember::pow_outf(self.scalar_type() == ScalarType::Bool ? self.to(ScalarType::Long) : self,
                         wrapped_scalar_tensor(2), out);
}

// Unary plus: self itself.
Tensor positive(const Tensor& self) {
  EMBER_CHECK(self.scalar_type() != ScalarType::Bool,
              "positive: the `+` operator, on a bool tensor, is not supported.");
  return self;
}

// self = mantissa * 2^exponent with |mantissa| in [0.5, 1) (0, inf and NaN
// keep themselves with exponent 0), as C's frexp; reduced floats through float.
std::tuple<Tensor, Tensor> frexp_out(const Tensor& self, const Tensor& mantissa, const Tensor& exponent) {
  EMBER_CHECK(self.is_floating_point(), "torch.frexp() only supports floating-point dtypes");
  EMBER_CHECK(mantissa.scalar_type() == self.scalar_type(), "torch.frexp() expects mantissa to have dtype {} but got {}",
              c10::python_name(self.dtype()), c10::python_name(mantissa.dtype()));
  EMBER_CHECK(exponent.scalar_type() == ScalarType::Int, "torch.frexp() expects exponent to have int dtype but got {}",
              c10::python_name(exponent.dtype()));
  Tensor m = ember::empty(self.sizes(), self.dtype(), self.device());
  Tensor e = ember::empty(self.sizes(), ScalarType::Int, self.device());
  if (!self.is_meta()) {
    const Tensor in = self.contiguous();
    int32_t* exps = e.data_ptr<int32_t>();
    c10::visit_scalar_type(self.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
        using M = opmath_t<T>;
        const T* x = in.data_ptr<T>();
        T* out = m.data_ptr<T>();
        for (int64_t i = 0; i < in.numel(); ++i) {
          int power = 0;
          out[i] = c10::convert<T>(std::frexp(static_cast<M>(x[i]), &power));
          exps[i] = power;
        }
      }
    });
  }
  resize_out(mantissa, m);
  resize_out(exponent, e);
  return {mantissa, exponent};
}

std::tuple<Tensor, Tensor> frexp(const Tensor& self) {
  Tensor mantissa = ember::empty({0}, self.dtype(), self.device());
  Tensor exponent = ember::empty({0}, ScalarType::Int, self.device());
  return ember::frexp_out(mantissa, exponent, self);
}

}  // namespace ember::native
