#pragma once
// What every CUDA kernel launch needs: the stream to run on and a check of
// the launch itself.

#include <c10/cuda/CUDAException.h>
#include <cuda_runtime_api.h>

namespace ember::native::cuda {

// All work runs on the default stream for now; streams as a user-visible
// concept (ember.cuda.Stream) will change only this function's answer.
inline cudaStream_t current_stream() { return nullptr; }

// Turns a failed launch (bad configuration, no kernel image for this GPU)
// into an error naming the kernel.
inline void check_launch(const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) c10::cuda::raise_cuda_error(err, kernel, __FILE__, __LINE__);
}

}  // namespace ember::native::cuda
