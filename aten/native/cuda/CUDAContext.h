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

// Copies on the current stream and waits for it: copies the host side of
// which may be reused or freed as soon as this returns.
inline void memcpy_sync(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind) {
  if (nbytes == 0) return;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, kind, current_stream()));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
}

}  // namespace ember::native::cuda
