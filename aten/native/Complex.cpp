// Complex numbers from and into their parts: real/imag views, complex(),
// polar(), angle(), and the eager conjugate (conj() itself is a lazy view,
// TensorShape.cpp).

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/Resize.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/Loops.h>

#include <cmath>

namespace ember::native {

Tensor real(const Tensor& self) {
  if (!self.is_complex()) return self;
  // The real parts of conj(z) are those of z.
  const Tensor parts = ember::view_as_real(self.is_conj() ? ember::conj(self) : self);
  return ember::select(parts, -1, 0);
}

Tensor imag(const Tensor& self) {
  EMBER_CHECK(self.is_complex(), "imag is not implemented for tensors with non-complex dtypes.");
  if (!self.is_conj()) return ember::select(ember::view_as_real(self), -1, 1);
  // Im(conj(z)) = -Im(z): a negative view of z's imaginary parts.
  return ember::_neg_view(ember::select(ember::view_as_real(ember::conj(self)), -1, 1));
}

Tensor conj_physical_out(const Tensor& self, const Tensor& out) {
  auto iter = TensorIterator::unary_op(out, self, "conj_physical");
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (c10::is_complex_v<T>) {
      cpu::cpu_kernel(iter, [](T z) -> T { return std::conj(z); });
    } else {
      cpu::cpu_kernel(iter, [](T x) -> T { return x; });
    }
  });
  return iter.output();
}

// A real tensor is its own conjugate: returned as it is (torch does the same).
Tensor conj_physical(const Tensor& self) {
  if (!self.is_complex()) return self;
  return ember::conj_physical_out(Tensor(), self);
}

Tensor complex_out(const Tensor& real, const Tensor& imag, const Tensor& out) {
  const ScalarType t = real.scalar_type();
  EMBER_CHECK(t == ScalarType::Float || t == ScalarType::Double,
              "complex: Expected both inputs to be Half, Float or Double tensors but got {} and {}", c10::toString(t),
              c10::toString(imag.scalar_type()));
  EMBER_CHECK(imag.scalar_type() == t,
              "complex: Expected object of scalar type {} but got scalar type {} for second argument",
              c10::toString(t), c10::toString(imag.scalar_type()));
  TensorIteratorConfig config;
  config.name("complex").add_output(out).add_input(real).add_input(imag);
  config.declare_static_output_dtype(c10::toComplexType(t));
  auto iter = config.build();
  if (t == ScalarType::Float) {
    cpu::cpu_kernel(iter, [](float re, float im) { return c10::complex<float>(re, im); });
  } else {
    cpu::cpu_kernel(iter, [](double re, double im) { return c10::complex<double>(re, im); });
  }
  return iter.output();
}

Tensor complex(const Tensor& real, const Tensor& imag) { return ember::complex_out(Tensor(), real, imag); }

Tensor polar(const Tensor& abs, const Tensor& angle) {
  EMBER_CHECK(abs.device() == angle.device(),
              "polar: expected all tensors to be on the same device, but found at least two devices, {} and {}",
              abs.device().str(), angle.device().str());
  EMBER_CHECK(abs.scalar_type() == angle.scalar_type(),
              "polar: Expected object of scalar type {} but got scalar type {} for second argument",
              c10::toString(abs.scalar_type()), c10::toString(angle.scalar_type()));
  return ember::complex(abs * ember::cos(angle), abs * ember::sin(angle));
}

Tensor polar_out(const Tensor& abs, const Tensor& angle, const Tensor& out) {
  return resize_out(out, ember::polar(abs, angle));
}

// The argument of z; for reals 0, pi below zero, NaN kept.
Tensor angle_out(const Tensor& self, const Tensor& out) {
  if (self.is_complex()) {
    TensorIteratorConfig config;
    config.name("angle").add_output(out).add_input(self);
    config.declare_static_output_dtype(c10::toRealValueType(self.scalar_type()));
    auto iter = config.cast_common_dtype_to_outputs().enforce_safe_casting_to_output().build();
    c10::visit_scalar_type(self.scalar_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (c10::is_complex_v<T>) {
        cpu::cpu_kernel(iter, [](T z) -> typename T::value_type { return std::atan2(z.imag(), z.real()); });
      }
    });
    return iter.output();
  }
  auto iter = TensorIterator::unary_float_op(out, self, "angle");
  c10::visit_scalar_type(iter.common_dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
      using M = cpu::opmath_t<T>;
      cpu::cpu_kernel(iter, [](T x) -> T {
        const M v = static_cast<M>(x);
        return static_cast<T>(std::isnan(v) ? v : (v < 0 ? M(M_PI) : M(0)));
      });
    }
  });
  return iter.output();
}

}  // namespace ember::native
