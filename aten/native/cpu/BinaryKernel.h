#pragma once
// The loop most binary elementwise ops share: both operands converted to
// opmath_t, f applied, the result converted back to the common dtype; and
// the float32 ones that SLEEF's vector loops serve.

#include <aten/native/cpu/DtypeVisit.h>
#include <aten/native/cpu/FloatStaging.h>
#include <aten/native/cpu/Loops.h>
#include <aten/native/cpu/SleefMath.h>

namespace ember::native::cpu {

// Half and bfloat16 with a 0-d second operand: torch's mul and div (all
// rounding modes) compute with that operand's own value at float precision,
// not rounded to the tensor's dtype first (2 / 1.0039 truncates to 1, not 2);
// add and sub round it.
// Runs f(M a, M b) that way and returns true, or returns false.
template <typename T, typename F>
bool with_unrounded_scalar(TensorIterator& iter, F f) {
  if constexpr (c10::is_reduced_float_v<T>) {
    if (const std::optional<Scalar> b = iter.uncast_scalar(1)) {
      using M = opmath_t<T>;
      const M value = b->to<M>();
      cpu_kernel(iter, [f, value](T a, T) -> T { return static_cast<T>(f(static_cast<M>(a), value)); });
      return true;
    }
  }
  return false;
}

// Runs one of SLEEF's two-operand loops (SleefMath.h) over an iterator whose
// operands are all float32, whatever their strides (broadcast and strided
// runs are staged through buffers); false, having done nothing, otherwise.
inline bool sleef_binary(TensorIterator& iter, SleefBinary f) {
  for (int i = 0; i < iter.ntensors(); ++i) {
    if (iter.dtype(i) != ScalarType::Float) return false;
  }
  const FloatsFn2 kernel = sleef_floats(f);
  for_each_as_floats<2>(iter, [kernel](const auto& in, float* y, int64_t n) { kernel(in[0], in[1], y, n); });
  return true;
}

// Runs f(M a, M b) -> M over the iterator for the dtypes Supports allows.
template <template <typename> class Supports, typename F>
Tensor arithmetic(TensorIterator iter, const char* name, F f) {
  visit_supported<Supports>(iter, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    cpu_kernel(iter, [f](T a, T b) -> T { return static_cast<T>(f(static_cast<M>(a), static_cast<M>(b))); });
  });
  return iter.output();
}

// arithmetic, with torch's rule for a 0-d second operand of half/bfloat16 (above).
template <template <typename> class Supports, typename F>
Tensor arithmetic_keeping_scalar(TensorIterator iter, const char* name, F f) {
  visit_supported<Supports>(iter, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if (with_unrounded_scalar<T>(iter, f)) return;
    cpu_kernel(iter, [f](T a, T b) -> T { return static_cast<T>(f(static_cast<M>(a), static_cast<M>(b))); });
  });
  return iter.output();
}

}  // namespace ember::native::cpu
