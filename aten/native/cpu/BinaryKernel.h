#pragma once
// The loop most binary elementwise ops share: both operands converted to
// opmath_t, f applied, the result converted back to the common dtype.

#include <aten/native/cpu/DtypeVisit.h>
#include <aten/native/cpu/Loops.h>

namespace ember::native::cpu {

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

}  // namespace ember::native::cpu
