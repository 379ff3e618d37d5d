#pragma once
// A sum or max over the threads of a block, through shared memory: the
// building block of the row kernels (softmax, its backward).

namespace ember::native::cuda {

constexpr int kRowThreads = 256;

template <typename T, typename Combine>
__device__ T block_reduce(T value, Combine combine, T* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int s = kRowThreads / 2; s > 0; s >>= 1) {
    if (static_cast<int>(threadIdx.x) < s) shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  const T result = shared[0];
  __syncthreads();  // shared may be reused right after
  return result;
}

}  // namespace ember::native::cuda
