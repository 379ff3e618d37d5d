#pragma once
// Picks a kernel instantiation for a TensorIterator's common dtype, and
// refuses the dtypes an op is not defined for with PyTorch's words.

#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/ElementwiseTraits.h>

#include <type_traits>

namespace ember::native::cpu {

[[noreturn]] inline void not_implemented(const char* name, ScalarType t) {
  EMBER_CHECK_NOT_IMPLEMENTED(false, "\"{}\" not implemented for '{}'", name, c10::toString(t));
}

// Calls body(tag) for the iterator's common dtype; `Supports<T>` picks the
// dtypes the op is defined for.
template <template <typename> class Supports, typename Body>
void visit_supported(const TensorIterator& iter, const char* name, Body&& body) {
  const ScalarType t = iter.common_dtype();
  c10::visit_scalar_type(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Supports<T>::value) {
      body(tag);
    } else {
      not_implemented(name, t);
    }
  });
}

template <typename T>
struct AnyType : std::true_type {};
template <typename T>
struct NotBool : std::bool_constant<!std::is_same_v<T, bool>> {};
template <typename T>
struct NotComplex : std::bool_constant<!c10::is_complex_v<T>> {};
template <typename T>
struct IntegralOrBool : std::bool_constant<std::is_integral_v<T>> {};
template <typename T>
struct IntegralOnly : std::bool_constant<std::is_integral_v<T> && !std::is_same_v<T, bool>> {};
template <typename T>
struct FloatingOnly : std::bool_constant<is_floating_v<T>> {};
template <typename T>
struct FloatingOrComplex : std::bool_constant<is_floating_v<T> || c10::is_complex_v<T>> {};

}  // namespace ember::native::cpu
