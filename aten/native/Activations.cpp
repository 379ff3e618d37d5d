// The activations of nn.functional (elu and its selu/celu forms,
// leaky_relu, hardswish, hardsigmoid, hardtanh, threshold, softplus) and
// their gradients, each one pass over memory. Float, bfloat16 and float16
// run on dense float arrays (FloatStaging.h); the exponentials of elu and
// softplus go through the vector exp/expm1/log1p in blocks that stay in L1.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/DtypeVisit.h>
#include <aten/native/cpu/FloatStaging.h>
#include <aten/native/cpu/Loops.h>
#include <aten/native/cpu/SleefMath.h>
#include <aten/native/cpu/VecMath.h>

#include <algorithm>
#include <cmath>

namespace ember::native {

namespace {

using cpu::opmath_t;

// f(x) (f(a, b) for gradients) over floating dtypes, computed in float for
// the 16-bit ones; `kernel_name` is torch's name in its dtype error. float
// and double take cpu_kernel's loops (vectorized per instruction set);
// bfloat16 and float16 are converted a chunk at a time.
template <size_t kInputs, template <typename> class Supports = cpu::FloatingOnly, typename F>
void pointwise(TensorIterator& iter, const char* kernel_name, F f) {
  if (cpu::is_reduced_float(iter.common_dtype()) && cpu::float_kernel_serves(iter)) {
    cpu::for_each_as_floats<kInputs>(iter, [f](const auto& in, float* y, int64_t n) {
      const F local = f;  // not the closure's members, which y might alias
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (kInputs == 1) {
          y[i] = local(in[0][i]);
        } else {
          y[i] = local(in[0][i], in[1][i]);
        }
      }
    });
    return;
  }
  cpu::visit_supported<Supports>(iter, kernel_name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (kInputs == 1) {
      cpu::cpu_kernel(iter, [f](T x) -> T { return static_cast<T>(f(M(x))); });
    } else {
      cpu::cpu_kernel(iter, [f](T a, T b) -> T { return static_cast<T>(f(M(a), M(b))); });
    }
  });
}

// Kernels of vector passes over blocks of floats that stay in L1: t =
// pre(x), vec(t, m) (SLEEF's or VecMath's loops, in place), then y =
// post(t, x) or, with a gradient g as first input, post(t, g, x).
constexpr int64_t kBlock = 512;

template <size_t kInputs, typename Pre, typename Vec, typename Post>
void in_float_blocks(TensorIterator& iter, Pre pre, Vec vec, Post post) {
  cpu::for_each_as_floats<kInputs>(iter, [pre, vec, post](const auto& in, float* y, int64_t n) {
    const Pre first = pre;  // local copies: y might alias the closure's members
    const Post last = post;
    float t[kBlock];
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t m = std::min(kBlock, n - start);
      const float* x = in[kInputs - 1] + start;
      for (int64_t i = 0; i < m; ++i) t[i] = first(x[i]);
      vec(t, m);
      if constexpr (kInputs == 1) {
        for (int64_t i = 0; i < m; ++i) y[start + i] = last(t[i], x[i]);
      } else {
        const float* g = in[0] + start;
        for (int64_t i = 0; i < m; ++i) y[start + i] = last(t[i], g[i], x[i]);
      }
    }
  });
}

bool uses_float_kernels(const TensorIterator& iter) {
  return c10::isFloatingType(iter.common_dtype()) && cpu::float_kernel_pays(iter);
}

// Gradients: the incoming gradient is often a broadcast (sum()'s), which the
// staged float loop reads where it lies; the generic loop would call libm's
// exp element by element (elu fwd+bwd [64,64,512]: 3x torch's time).
bool gradient_uses_float_kernels(const TensorIterator& iter) {
  return c10::isFloatingType(iter.common_dtype()) && cpu::float_kernel_serves(iter);
}

void check_floating(const TensorIterator& iter, const char* kernel_name) {
  if (!c10::isFloatingType(iter.common_dtype())) cpu::not_implemented(kernel_name, iter.common_dtype());
}

}  // namespace

// torch's form: x <= 0 takes the exponential branch (so NaN takes the other).
Tensor elu_out(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
               const Tensor& out) {
  auto iter = TensorIterator::unary_op(out, self, "elu");
  check_floating(iter, "elu_cpu");
  const double neg = alpha.toDouble() * scale.toDouble(), pos = scale.toDouble(), in_scale = input_scale.toDouble();
  if (uses_float_kernels(iter)) {
    const auto expm1 = &cpu::expm1_floats;
    const float fneg = float(neg), fpos = float(pos), fin = float(in_scale);
    in_float_blocks<1>(
        iter, [fin](float x) { return std::min(x, 0.0f) * fin; }, [expm1](float* t, int64_t m) { expm1(t, t, m); },
        [fneg, fpos](float e, float x) { return x <= 0 ? e * fneg : x * fpos; });
    return iter.output();
  }
  pointwise<1>(iter, "elu_cpu", [=](auto x) {
    using M = decltype(x);
    return x <= M(0) ? std::expm1(x * M(in_scale)) * M(neg) : x * M(pos);
  });
  return iter.output();
}

// From the input x: scale for x > 0, else scale alpha input_scale
// exp(input_scale x); from the result r (in-place elu): input_scale (r +
// scale alpha) below.
Tensor elu_backward_out(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                        bool is_result, const Tensor& self_or_result, const Tensor& grad_input) {
  auto iter = TensorIterator::binary_op(grad_input, grad_output, self_or_result, "elu_backward");
  check_floating(iter, "elu_backward_cpu");
  const double neg = alpha.toDouble() * scale.toDouble(), pos = scale.toDouble(), in_scale = input_scale.toDouble();
  if (is_result) {
    pointwise<2>(iter, "elu_backward_cpu", [=](auto g, auto r) {
      using M = decltype(g);
      return r <= M(0) ? g * M(in_scale) * (r + M(neg)) : g * M(pos);
    });
    return iter.output();
  }
  if (gradient_uses_float_kernels(iter)) {
    const float fneg = float(neg * in_scale), fpos = float(pos), fin = float(in_scale);
    in_float_blocks<2>(
        iter, [fin](float x) { return std::min(x, 0.0f) * fin; }, [](float* t, int64_t m) { cpu::exp_floats(t, t, m); },
        [fneg, fpos](float e, float g, float x) { return x <= 0 ? g * e * fneg : g * fpos; });
    return iter.output();
  }
  pointwise<2>(iter, "elu_backward_cpu", [=](auto g, auto x) {
    using M = decltype(g);
    return x <= M(0) ? g * M(neg * in_scale) * std::exp(x * M(in_scale)) : g * M(pos);
  });
  return iter.output();
}

namespace {
constexpr double kSeluAlpha = 1.6732632423543772848170429916717, kSeluScale = 1.0507009873554804934193349852946;

// selu and celu name themselves in elu's dtype error.
void check_elu_form(const Tensor& self, const char* name) {
  EMBER_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(self.scalar_type()), "\"{}\" not implemented for '{}'", name,
                              c10::toString(self.scalar_type()));
}

double celu_alpha(const Tensor& self, const Scalar& alpha) {
  check_elu_form(self, "celu");
  EMBER_CHECK(alpha.toDouble() != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return alpha.toDouble();
}
}  // namespace

Tensor selu(const Tensor& self) {
  check_elu_form(self, "selu");
  return ember::elu(self, kSeluAlpha, kSeluScale);
}
Tensor selu_(const Tensor& self) {
  check_elu_form(self, "selu");
  return ember::elu_(self, kSeluAlpha, kSeluScale);
}
Tensor celu(const Tensor& self, const Scalar& alpha) {
  const double a = celu_alpha(self, alpha);
  return ember::elu(self, a, 1.0, 1.0 / a);
}
Tensor celu_(const Tensor& self, const Scalar& alpha) {
  const double a = celu_alpha(self, alpha);
  return ember::elu_(self, a, 1.0, 1.0 / a);
}

Tensor leaky_relu_out(const Tensor& self, const Scalar& negative_slope, const Tensor& out) {
  auto iter = TensorIterator::unary_op(out, self, "leaky_relu");
  const double slope = negative_slope.toDouble();
  pointwise<1>(iter, "leaky_relu_cpu", [slope](auto x) {
    using M = decltype(x);
    return x > M(0) ? x : x * M(slope);
  });
  return iter.output();
}

// self_is_result only says what torch's in-place form passes; a positive
// slope keeps the sign, so the same mask serves.
Tensor leaky_relu_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                               bool self_is_result, const Tensor& grad_input) {
  EMBER_CHECK(!self_is_result || negative_slope.toDouble() >= 0.0,
              "leaky_relu_backward: the in-place forward with a negative slope ({}) leaves no way to tell the sign "
              "of its input; call the out-of-place version instead",
              negative_slope.toDouble());
  auto iter = TensorIterator::binary_op(grad_input, grad_output, self, "leaky_relu_backward");
  const double slope = negative_slope.toDouble();
  pointwise<2>(iter, "leaky_relu_backward", [slope](auto g, auto x) {
    using M = decltype(g);
    return x > M(0) ? g : g * M(slope);
  });
  return iter.output();
}

Tensor hardswish_out(const Tensor& self, const Tensor& out) {
  auto iter = TensorIterator::unary_op(out, self, "hardswish");
  pointwise<1>(iter, "hardswish_cpu", [](auto x) {
    using M = decltype(x);
    return x * std::min(std::max(x + M(3), M(0)), M(6)) / M(6);
  });
  return iter.output();
}

// torch 2.13's masks: 0 up to -3, x / 3 + 1/2 below 3, 1 from 3 on.
Tensor hardswish_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, grad_output, self, "hardswish_backward");
  pointwise<2>(iter, "hardswish_backward", [](auto g, auto x) {
    using M = decltype(g);
    return x <= M(-3) ? M(0) : (x < M(3) ? g * (x / M(3) + M(0.5)) : g);
  });
  return iter.output();
}

Tensor hardsigmoid_out(const Tensor& self, const Tensor& out) {
  auto iter = TensorIterator::unary_op(out, self, "hardsigmoid");
  pointwise<1>(iter, "hardsigmoid_cpu", [](auto x) {
    using M = decltype(x);
    return std::min(std::max(x + M(3), M(0)), M(6)) / M(6);
  });
  return iter.output();
}

Tensor hardsigmoid_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& grad_input) {
  auto iter = TensorIterator::binary_op(grad_input, grad_output, self, "hardsigmoid_backward");
  pointwise<2>(iter, "hardsigmoid_backward", [](auto g, auto x) {
    using M = decltype(g);
    return x > M(-3) && x < M(3) ? g / M(6) : M(0);
  });
  return iter.output();
}

namespace {
template <typename T>
struct RealNotBool : std::bool_constant<!c10::is_complex_v<T> && !std::is_same_v<T, bool>> {};

// A limit for an integer kernel as torch converts it: truncated, then
// wrapped into the type (threshold's value -3 is 253 for uint8).
template <typename M>
M limit_as(double v) {
  if constexpr (std::is_integral_v<M>) {
    return static_cast<M>(static_cast<int64_t>(v));
  } else {
    return M(v);
  }
}
}  // namespace

// clamp's values (integers too); the difference is the gradient.
Tensor hardtanh_out(const Tensor& self, const Scalar& min_val, const Scalar& max_val, const Tensor& out) {
  EMBER_CHECK(self.scalar_type() != ScalarType::Bool, "Bool inputs not supported for hardtanh");
  const double lo = min_val.toDouble(), hi = max_val.toDouble();
  if (c10::isIntegralType(self.scalar_type(), false)) {
    const auto& info = c10::info(self.scalar_type());
    EMBER_CHECK(info.is_signed || (lo >= 0 && hi >= 0), "cannot do hardtanh on an unsigned type with negative limits");
    for (double limit : {lo, hi}) {
      EMBER_CHECK(limit >= double(info.int_min) && limit <= double(info.int_max),
                  "hardtanh: value {} cannot be converted to type {} without overflow", limit,
                  c10::toString(self.scalar_type()));
    }
  }
  auto iter = TensorIterator::unary_op(out, self, "hardtanh");
  pointwise<1, RealNotBool>(iter, "hardtanh", [lo, hi](auto x) {
    using M = decltype(x);
    const M low = limit_as<M>(lo), high = limit_as<M>(hi);
    // NaN stays NaN, as clamp keeps it.
    return x < low ? low : (x > high ? high : x);
  });
  return iter.output();
}

Tensor hardtanh_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                             const Scalar& max_val, const Tensor& grad_input) {
  auto iter = TensorIterator::binary_op(grad_input, grad_output, self, "hardtanh_backward");
  const double lo = min_val.toDouble(), hi = max_val.toDouble();
  pointwise<2, RealNotBool>(iter, "hardtanh_backward", [lo, hi](auto g, auto x) {
    using M = decltype(g);
    return x <= limit_as<M>(lo) || x >= limit_as<M>(hi) ? M(0) : g;
  });
  return iter.output();
}

Tensor threshold_out(const Tensor& self, const Scalar& threshold, const Scalar& value, const Tensor& out) {
  auto iter = TensorIterator::unary_op(out, self, "threshold");
  const double limit = threshold.toDouble(), replacement = value.toDouble();
  pointwise<1, RealNotBool>(iter, "threshold_cpu", [limit, replacement](auto x) {
    using M = decltype(x);
    return x <= limit_as<M>(limit) ? limit_as<M>(replacement) : x;
  });
  return iter.output();
}

// log1p(exp(beta x)) / beta, x itself where beta x > threshold (torch's form).
Tensor softplus_out(const Tensor& self, const Scalar& beta, const Scalar& threshold, const Tensor& out) {
  auto iter = TensorIterator::unary_op(out, self, "softplus");
  check_floating(iter, "softplus_cpu");
  const double b = beta.toDouble(), limit = threshold.toDouble();
  if (uses_float_kernels(iter)) {
    const auto log1p = cpu::sleef_floats(cpu::SleefUnary::Log1p);
    const float fb = float(b), flimit = float(limit);
    in_float_blocks<1>(
        iter, [fb](float x) { return x * fb; },
        [log1p](float* t, int64_t m) {
          cpu::exp_floats(t, t, m);
          log1p(t, t, m);
        },
        [fb, flimit](float soft, float x) { return x * fb > flimit ? x : soft / fb; });
    return iter.output();
  }
  pointwise<1>(iter, "softplus_cpu", [b, limit](auto x) {
    using M = decltype(x);
    return x * M(b) > M(limit) ? x : std::log1p(std::exp(x * M(b))) / M(b);
  });
  return iter.output();
}

// sigmoid(beta x) = z / (z + 1) with z = exp(beta x); 1 above the threshold.
Tensor softplus_backward_out(const Tensor& grad_output, const Tensor& self, const Scalar& beta,
                             const Scalar& threshold, const Tensor& grad_input) {
  auto iter = TensorIterator::binary_op(grad_input, grad_output, self, "softplus_backward");
  check_floating(iter, "softplus_backward_cpu");
  const double b = beta.toDouble(), limit = threshold.toDouble();
  if (gradient_uses_float_kernels(iter)) {
    const float fb = float(b), flimit = float(limit);
    in_float_blocks<2>(
        iter, [fb](float x) { return x * fb; }, [](float* t, int64_t m) { cpu::exp_floats(t, t, m); },
        [fb, flimit](float z, float g, float x) { return x * fb > flimit ? g : g * z / (z + 1.0f); });
    return iter.output();
  }
  pointwise<2>(iter, "softplus_backward_cpu", [b, limit](auto g, auto x) {
    using M = decltype(g);
    const M z = std::exp(x * M(b));
    return x * M(b) > M(limit) ? g : g * z / (z + M(1));
  });
  return iter.output();
}

namespace {
template <typename T>
struct RealPart { using type = T; };
template <typename R>
struct RealPart<c10::complex<R>> { using type = R; };
}  // namespace

// NaN, +inf and -inf replaced (by 0 and the dtype's extremes unless given),
// in one pass; complex numbers part by part; integers and bools copied.
Tensor nan_to_num_out(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                      std::optional<double> neginf, const Tensor& out) {
  auto iter = TensorIterator::unary_op(out, self, "nan_to_num");
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (c10::is_complex_v<T> || cpu::is_floating_v<T>) {
      using R = typename RealPart<T>::type;
      using M = opmath_t<R>;
      const double largest = c10::info(c10::cpp_to_scalar_type<R>).max;
      const M nan_value = M(nan.value_or(0.0)), pos = M(posinf.value_or(largest)), neg = M(neginf.value_or(-largest));
      const auto replace = [=](M v) { return v != v ? nan_value : (v == M(INFINITY) ? pos : (v == M(-INFINITY) ? neg : v)); };
      if constexpr (c10::is_complex_v<T>) {
        cpu::cpu_kernel(iter, [replace](T z) -> T { return T(R(replace(M(z.real()))), R(replace(M(z.imag())))); });
      } else if (pos >= M(largest) && neg <= M(-largest)) {
        // Replacements beyond every finite value (the defaults): the
        // infinities are clamped to them, a min and a max instead of two
        // compares and blends (1M floats: 129 -> 90 us, torch 87). NaN
        // fails both comparisons and is replaced last.
        cpu::cpu_kernel(iter, [=](T x) -> T {
          M v = M(x);
          v = v > pos ? pos : v;
          v = v < neg ? neg : v;
          return static_cast<T>(v != v ? nan_value : v);
        });
      } else if constexpr (std::is_same_v<T, float>) {
        cpu::cpu_kernel(iter, replace);
      } else {
        cpu::cpu_kernel(iter, [replace](T x) -> T { return static_cast<T>(replace(M(x))); });
      }
    } else {
      cpu::cpu_kernel(iter, [](T x) -> T { return x; });
    }
  });
  return iter.output();
}

}  // namespace ember::native
