// ember.special's kernels: each op is a TensorIterator loop (floating
// results, integers promoted) over a scalar function of SpecialMath.h,
// computed in double (a few in single precision for float inputs, see compute_t).

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/SpecialMath.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/FloatStaging.h>
#include <aten/native/cpu/Loops.h>
#include <aten/native/cpu/SleefMath.h>

#include <cmath>

namespace ember::native {

namespace {

// The argument type a unary kernel's function is called with: float for
// float and the 16-bit types, double for double. A function that takes
// double (most of SpecialMath.h) computes in double either way; the
// generic ones (lgamma, i0e, i1e) run in single precision for float as
// torch's do.
template <typename T>
using compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// `floats`, where given, serves float and 16-bit operands (a vector kernel
// over dense floats, FloatStaging.h).
template <typename F>
Tensor special_unary(const Tensor& self, const Tensor& out, const char* name, F f,
                     void (*floats)(const float*, float*, int64_t) = nullptr) {
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_complex(), "\"{}\" not implemented for '{}'", name,
                              c10::toString(self.scalar_type()));
  auto iter = TensorIterator::unary_float_op(out, self, name);
  if (floats && cpu::float_kernel_pays(iter)) {
    cpu::for_each_as_floats<1>(iter, [floats](const auto& in, float* y, int64_t n) { floats(in[0], y, n); });
    return iter.output();
  }
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      cpu::cpu_kernel(iter, [f](T x) -> T { return static_cast<T>(f(static_cast<compute_t<T>>(x))); });
    }
  });
  return iter.output();
}

template <typename F>
Tensor special_binary(const Tensor& a, const Tensor& b, const Tensor& out, const char* name, F f) {
  EMBER_CHECK_NOT_IMPLEMENTED(!a.is_complex() && !b.is_complex(), "\"{}\" not implemented for '{}'", name,
                              c10::toString(a.is_complex() ? a.scalar_type() : b.scalar_type()));
  auto iter = TensorIterator::binary_float_op(out, a, b, name);
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      cpu::cpu_kernel(iter, [f](T x, T y) -> T {
        return static_cast<T>(f(static_cast<double>(x), static_cast<double>(y)));
      });
    }
  });
  return iter.output();
}

// P_n(x) (P_n(2x - 1) for the shifted ones); n is read as an integer (NaN stays NaN).
template <special::Polynomial Kind, bool Shifted>
Tensor polynomial_out(const Tensor& x, const Tensor& n, const Tensor& out, const char* name) {
  return special_binary(x, n, out, name, [](double v, double degree) {
    if (std::isnan(degree)) return degree;
    return special::polynomial(Kind, Shifted ? 2 * v - 1 : v, static_cast<int64_t>(degree));
  });
}

}  // namespace

// float, bfloat16 and float16 through SLEEF's vector lgamma (as torch).
Tensor lgamma_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "lgamma", [](auto x) { return std::lgamma(x); },
                       cpu::sleef_floats(cpu::SleefUnary::Lgamma));
}

Tensor digamma_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "digamma", [](double x) { return special::digamma(x); });
}

Tensor i0_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "i0", [](double x) { return special::bessel_i0(x); });
}

Tensor special_i0e_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_i0e", [](auto x) { return special::bessel_i0e(x); });
}

Tensor special_i1_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_i1", [](double x) { return special::bessel_i1(x); });
}

Tensor special_i1e_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_i1e", [](auto x) { return special::bessel_i1e(x); });
}

Tensor special_erfcx_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_erfcx", [](double x) { return special::erfcx(x); });
}

Tensor special_ndtr_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_ndtr", [](double x) { return special::ndtr(x); });
}

Tensor special_ndtri_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_ndtri", [](double x) { return special::ndtri(x); });
}

Tensor special_log_ndtr_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_log_ndtr", [](double x) { return special::log_ndtr(x); });
}

Tensor special_entr_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_entr", [](double x) { return (std::isnan(x) ? x : x > 0 ? -x * std::log(x) : x == 0 ? 0.0 : -INFINITY); });
}

Tensor special_bessel_j0_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_bessel_j0", [](double x) { return special::bessel_j0(x); });
}

Tensor special_bessel_j1_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_bessel_j1", [](double x) { return special::bessel_j1(x); });
}

Tensor special_bessel_y0_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_bessel_y0", [](double x) { return special::bessel_y0(x); });
}

Tensor special_bessel_y1_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_bessel_y1", [](double x) { return special::bessel_y1(x); });
}

Tensor special_modified_bessel_i0_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_modified_bessel_i0", [](double x) { return special::bessel_i0(x); });
}

Tensor special_modified_bessel_i1_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_modified_bessel_i1", [](double x) { return special::bessel_i1(x); });
}

Tensor special_modified_bessel_k0_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_modified_bessel_k0", [](double x) { return special::bessel_k0(x); });
}

Tensor special_modified_bessel_k1_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_modified_bessel_k1", [](double x) { return special::bessel_k1(x); });
}

Tensor special_scaled_modified_bessel_k0_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_scaled_modified_bessel_k0", [](double x) { return special::bessel_k0e(x); });
}

Tensor special_scaled_modified_bessel_k1_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_scaled_modified_bessel_k1", [](double x) { return special::bessel_k1e(x); });
}

Tensor special_spherical_bessel_j0_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_spherical_bessel_j0", [](double x) { return special::spherical_bessel_j0(x); });
}

Tensor special_airy_ai_out(const Tensor& self, const Tensor& out) {
  return special_unary(self, out, "special_airy_ai", [](double x) { return special::airy_ai(x); });
}

Tensor igamma_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return special_binary(self, other, out, "igamma", [](double a, double b) { return special::gammainc(a, b); });
}

Tensor igammac_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return special_binary(self, other, out, "igammac", [](double a, double b) { return special::gammaincc(a, b); });
}

Tensor special_zeta_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return special_binary(self, other, out, "special_zeta", [](double a, double b) { return special::zeta(a, b); });
}

Tensor special_xlog1py_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return special_binary(self, other, out, "special_xlog1py", [](double a, double b) { return (std::isnan(b) ? b : a == 0 ? 0.0 : a * std::log1p(b)); });
}

Tensor special_chebyshev_polynomial_t_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::ChebyshevT, false>(x, n, out, "special_chebyshev_polynomial_t");
}

Tensor special_chebyshev_polynomial_u_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::ChebyshevU, false>(x, n, out, "special_chebyshev_polynomial_u");
}

Tensor special_chebyshev_polynomial_v_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::ChebyshevV, false>(x, n, out, "special_chebyshev_polynomial_v");
}

Tensor special_chebyshev_polynomial_w_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::ChebyshevW, false>(x, n, out, "special_chebyshev_polynomial_w");
}

Tensor special_shifted_chebyshev_polynomial_t_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::ChebyshevT, true>(x, n, out, "special_shifted_chebyshev_polynomial_t");
}

Tensor special_shifted_chebyshev_polynomial_u_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::ChebyshevU, true>(x, n, out, "special_shifted_chebyshev_polynomial_u");
}

Tensor special_shifted_chebyshev_polynomial_v_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::ChebyshevV, true>(x, n, out, "special_shifted_chebyshev_polynomial_v");
}

Tensor special_shifted_chebyshev_polynomial_w_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::ChebyshevW, true>(x, n, out, "special_shifted_chebyshev_polynomial_w");
}

Tensor special_hermite_polynomial_h_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::HermiteH, false>(x, n, out, "special_hermite_polynomial_h");
}

Tensor special_hermite_polynomial_he_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::HermiteHe, false>(x, n, out, "special_hermite_polynomial_he");
}

Tensor special_laguerre_polynomial_l_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::LaguerreL, false>(x, n, out, "special_laguerre_polynomial_l");
}

Tensor special_legendre_polynomial_p_out(const Tensor& x, const Tensor& n, const Tensor& out) {
  return polynomial_out<special::Polynomial::LegendreP, false>(x, n, out, "special_legendre_polynomial_p");
}

Tensor polygamma_out(int64_t n, const Tensor& self, const Tensor& out) {
  EMBER_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  return special_unary(self, out, "polygamma", [n](double x) { return special::polygamma(n, x); });
}

Tensor polygamma_(const Tensor& self, int64_t n) { return ember::polygamma_outf(n, self, self); }

// log Gamma_p(a) = p(p-1)/4 log(pi) + sum_j lgamma(a - j/2), for a > (p-1)/2.
Tensor mvlgamma(const Tensor& self, int64_t p) {
  EMBER_CHECK(p >= 1, "p has to be greater than or equal to 1");
  EMBER_CHECK(self.is_floating_point(), "mvlgamma: expected a floating point input, but got {}",
              c10::toString(self.scalar_type()));
  EMBER_CHECK(self.is_meta() || self.gt((p - 1) / 2.0).all().item().toBool(),
              "All elements must be greater than (p-1)/2");
  const Tensor offsets = ember::arange(0, -p / 2.0, -0.5, self.scalar_type(), self.device());
  return ember::lgamma(self.unsqueeze(-1) + offsets).sum(IntArrayRef({-1})) + p * (p - 1) / 4.0 * std::log(M_PI);
}

}  // namespace ember::native
