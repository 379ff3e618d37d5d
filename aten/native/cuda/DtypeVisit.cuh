#pragma once
// The dtypes the CUDA kernels are instantiated for. Half, bfloat16 and the
// complex types have no CUDA kernels yet: ops refuse them by name.
//
// The switch is a macro, as PyTorch's AT_DISPATCH: nvcc does not allow a
// __host__ __device__ lambda inside a generic lambda, so the body is a plain
// lambda that names the element type `scalar_t`.

#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>

namespace ember::native::cuda {

[[noreturn]] inline void dtype_not_implemented(const char* name, c10::ScalarType t) {
  EMBER_CHECK_NOT_IMPLEMENTED(false, "\"{}\" not implemented for '{}' on CUDA yet", name, c10::toString(t));
}

// The error for a dtype the op does not take on any device.
[[noreturn]] inline void dtype_not_supported(const char* name, c10::ScalarType t) {
  using c10::ScalarType;
  if (t == ScalarType::Half || t == ScalarType::BFloat16 || c10::isComplexType(t)) dtype_not_implemented(name, t);
  EMBER_CHECK_NOT_IMPLEMENTED(false, "\"{}\" not implemented for '{}'", name, c10::toString(t));
}

}  // namespace ember::native::cuda

#define EMBER_CUDA_CASE(enum_name, cpp_type, ...) \
  case ::c10::ScalarType::enum_name: {            \
    using scalar_t = cpp_type;                    \
    return __VA_ARGS__();                         \
  }

// The cases of each dtype family, composed into the dispatches below.
#define EMBER_CUDA_FLOATING_CASES(...)            \
  EMBER_CUDA_CASE(Float, float, __VA_ARGS__)      \
  EMBER_CUDA_CASE(Double, double, __VA_ARGS__)
#define EMBER_CUDA_INTEGER_CASES(...)             \
  EMBER_CUDA_CASE(Byte, uint8_t, __VA_ARGS__)     \
  EMBER_CUDA_CASE(Char, int8_t, __VA_ARGS__)      \
  EMBER_CUDA_CASE(Short, int16_t, __VA_ARGS__)    \
  EMBER_CUDA_CASE(Int, int32_t, __VA_ARGS__)      \
  EMBER_CUDA_CASE(Long, int64_t, __VA_ARGS__)

// A switch over `dtype` with the given cases; `on_other` names the error.
#define EMBER_CUDA_SWITCH(dtype, name, on_other, cases)                 \
  [&] {                                                                 \
    const ::c10::ScalarType ember_dtype_ = (dtype);                     \
    switch (ember_dtype_) {                                             \
      cases                                                             \
      default: ::ember::native::cuda::on_other(name, ember_dtype_);     \
    }                                                                   \
  }()

// Floating dtypes.
#define EMBER_CUDA_DISPATCH_FLOATING(dtype, name, ...) \
  EMBER_CUDA_SWITCH(dtype, name, dtype_not_supported, EMBER_CUDA_FLOATING_CASES(__VA_ARGS__))

// Integer and floating dtypes (not bool).
#define EMBER_CUDA_DISPATCH_NUMBERS(dtype, name, ...) \
  EMBER_CUDA_SWITCH(dtype, name, dtype_not_supported,  \
                    EMBER_CUDA_INTEGER_CASES(__VA_ARGS__) EMBER_CUDA_FLOATING_CASES(__VA_ARGS__))

// Every dtype with CUDA kernels: bool, integers and floating.
#define EMBER_CUDA_DISPATCH_ALL(dtype, name, ...)                                            \
  EMBER_CUDA_SWITCH(dtype, name, dtype_not_implemented,                                      \
                    EMBER_CUDA_CASE(Bool, bool, __VA_ARGS__) EMBER_CUDA_INTEGER_CASES(__VA_ARGS__) \
                        EMBER_CUDA_FLOATING_CASES(__VA_ARGS__))
