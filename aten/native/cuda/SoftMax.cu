// CUDA softmax_rows_stub and softmax_backward_rows_stub: one block per row,
// threads striding over it, block-wide max and sums in shared memory.

#include <aten/native/DeviceKernels.h>
#include <aten/native/cuda/BlockReduce.cuh>
#include <aten/native/cuda/CUDAContext.h>
#include <aten/native/cuda/DtypeVisit.cuh>

#include <cmath>

namespace ember::native::cuda {

namespace {

template <typename T>
__device__ T device_exp(T x) {
  if constexpr (std::is_same_v<T, float>) return ::expf(x);
  else return ::exp(x);
}

template <typename T>
__device__ T device_log(T x) {
  if constexpr (std::is_same_v<T, float>) return ::logf(x);
  else return ::log(x);
}

template <typename T>
__global__ void softmax_rows_kernel(const T* in, T* out, int64_t n, bool log, bool safe) {
  __shared__ T shared[kRowThreads];
  const T* x = in + blockIdx.x * n;
  T* y = out + blockIdx.x * n;
  T m = -INFINITY;
  for (int64_t i = threadIdx.x; i < n; i += kRowThreads) m = x[i] > m ? x[i] : m;
  m = block_reduce(m, [](T a, T b) { return a > b ? a : b; }, shared);
  if (safe && m == -INFINITY) {
    for (int64_t i = threadIdx.x; i < n; i += kRowThreads) y[i] = T(0);
    return;
  }
  if (isinf(m)) m = m > 0 ? m : T(0);  // as the CPU kernel: +inf rows give NaN, -inf rows 0/0
  T total = 0;
  for (int64_t i = threadIdx.x; i < n; i += kRowThreads) total += device_exp(x[i] - m);
  total = block_reduce(total, [](T a, T b) { return a + b; }, shared);
  if (log) {
    const T shift = m + device_log(total);
    for (int64_t i = threadIdx.x; i < n; i += kRowThreads) y[i] = x[i] - shift;
  } else {
    const T inv = T(1) / total;
    for (int64_t i = threadIdx.x; i < n; i += kRowThreads) y[i] = device_exp(x[i] - m) * inv;
  }
}

template <typename T>
__global__ void softmax_backward_rows_kernel(const T* grad, const T* out, T* dx, int64_t n, bool log) {
  __shared__ T shared[kRowThreads];
  const T* g = grad + blockIdx.x * n;
  const T* y = out + blockIdx.x * n;
  T* d = dx + blockIdx.x * n;
  T total = 0;
  for (int64_t i = threadIdx.x; i < n; i += kRowThreads) total += log ? g[i] : g[i] * y[i];
  total = block_reduce(total, [](T a, T b) { return a + b; }, shared);
  for (int64_t i = threadIdx.x; i < n; i += kRowThreads) d[i] = log ? g[i] - device_exp(y[i]) * total : y[i] * (g[i] - total);
}

unsigned row_blocks(const Tensor& rows) {
  EMBER_CHECK(rows.size(0) < (int64_t{1} << 31), "softmax: {} rows are too many for one CUDA launch", rows.size(0));
  return static_cast<unsigned>(rows.size(0));
}

void cuda_softmax_rows(const Tensor& in, const Tensor& out, bool log, bool safe) {
  if (in.numel() == 0) return;
  EMBER_CUDA_DISPATCH_FLOATING(in.dtype(), log ? "log_softmax" : "softmax", [&] {
    softmax_rows_kernel<scalar_t><<<row_blocks(in), kRowThreads, 0, current_stream()>>>(
        static_cast<const scalar_t*>(in.data_ptr()), static_cast<scalar_t*>(out.data_ptr()), in.size(1), log, safe);
  });
  check_launch("softmax_rows_kernel");
}

void cuda_softmax_backward_rows(const Tensor& grad, const Tensor& y, const Tensor& out, bool log) {
  if (y.numel() == 0) return;
  EMBER_CUDA_DISPATCH_FLOATING(y.dtype(), log ? "_log_softmax_backward_data" : "_softmax_backward_data", [&] {
    softmax_backward_rows_kernel<scalar_t><<<row_blocks(y), kRowThreads, 0, current_stream()>>>(
        static_cast<const scalar_t*>(grad.data_ptr()), static_cast<const scalar_t*>(y.data_ptr()),
        static_cast<scalar_t*>(out.data_ptr()), y.size(1), log);
  });
  check_launch("softmax_backward_rows_kernel");
}

}  // namespace

EMBER_REGISTER_STUB(softmax_rows_stub, CUDA, &cuda_softmax_rows);
EMBER_REGISTER_STUB(softmax_backward_rows_stub, CUDA, &cuda_softmax_backward_rows);

}  // namespace ember::native::cuda
