// isclose / allclose: |self - other| <= atol + rtol * |other|, elementwise,
// with infinities close only to themselves and NaN close to NaN only when
// equal_nan says so (torch's definition, not NumPy's symmetric one).

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>

namespace ember::native {

namespace {

void check_arguments(const char* op, const Tensor& self, const Tensor& other, double rtol, double atol) {
  EMBER_CHECK(self.scalar_type() == other.scalar_type(), "{}(): {} did not match {}", op,
              c10::toString(self.scalar_type()), c10::toString(other.scalar_type()));
  EMBER_CHECK(self.device() == other.device(), "{}(): expected both tensors on the same device, got {} and {}", op,
              self.device().str(), other.device().str());
  EMBER_CHECK(rtol >= 0, "{}(): rtol must be greater than or equal to zero, but got {}", op, rtol);
  EMBER_CHECK(atol >= 0, "{}(): atol must be greater than or equal to zero, but got {}", op, atol);
}

}  // namespace

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  check_arguments("isclose", self, other, rtol, atol);
  Tensor close = ember::eq(self, other);
  const bool floating = self.is_floating_point() || self.is_complex();
  if (equal_nan && floating) close = ember::logical_or(close, ember::logical_and(self.isnan(), other.isnan()));
  if ((rtol == 0 && atol == 0) || self.scalar_type() == ScalarType::Bool) return close;
  // Integers are compared in the default float dtype, as the tolerances are.
  const ScalarType compute = floating ? self.scalar_type() : c10::get_default_dtype();
  const Tensor a = self.to(compute), b = other.to(compute);
  const Tensor allowed = ember::add(ember::abs(ember::mul(b, Scalar(rtol))), Scalar(atol));
  const Tensor actual = ember::abs(ember::sub(a, b));
  return ember::logical_or(close, ember::logical_and(actual.isfinite(), ember::le(actual, allowed)));
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  check_arguments("allclose", self, other, rtol, atol);
  return ember::isclose(self, other, rtol, atol, equal_nan).all().item<bool>();
}

}  // namespace ember::native
