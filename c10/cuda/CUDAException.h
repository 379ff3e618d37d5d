#pragma once
// Every CUDA runtime call goes through EMBER_CUDA_CHECK, so a failure becomes
// an ember error that names the call and CUDA's own description of the code.

#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

namespace c10::cuda {

[[noreturn]] void raise_cuda_error(cudaError_t err, const char* call, const char* file, int line);

}  // namespace c10::cuda

#define EMBER_CUDA_CHECK(expr)                                                       \
  do {                                                                               \
    const cudaError_t ember_cuda_err_ = (expr);                                      \
    if (__builtin_expect(ember_cuda_err_ != cudaSuccess, 0)) {                       \
      ::c10::cuda::raise_cuda_error(ember_cuda_err_, #expr, __FILE__, __LINE__);     \
    }                                                                                \
  } while (0)
