// CUDA nll_forward_stub and nll_backward_stub: one thread per row. Targets
// are checked on the host first (a kernel cannot raise an IndexError; a
// device-side assert would break the whole CUDA context).

#include <aten/Functions.h>
#include <aten/native/DeviceKernels.h>
#include <aten/native/LossTargets.h>
#include <aten/native/cuda/CUDAContext.h>
#include <aten/native/cuda/DtypeVisit.cuh>

namespace ember::native::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kNone = 0, kMean = 1;

void check_targets(const Tensor& target, int64_t classes, int64_t ignore_index) {
  const Tensor host = target.to(Device(DeviceType::CPU));
  const int64_t* t = host.data_ptr<int64_t>();
  for (int64_t i = 0; i < host.numel(); ++i) {
    if (t[i] != ignore_index) check_target_class(t[i], classes);
  }
}

unsigned blocks_for(int64_t rows) {
  EMBER_CHECK(rows < (int64_t{1} << 40), "nll_loss: {} rows are too many", rows);
  return static_cast<unsigned>((rows + kThreads - 1) / kThreads);
}

// loss[i] = -logp[i, t[i]] * w[t[i]] and weight[i] = w[t[i]] (0 where ignored).
template <typename T>
__global__ void nll_forward_kernel(const T* logp, const int64_t* target, const T* weight, T* loss, T* weights,
                                   int64_t rows, int64_t classes, int64_t ignore_index) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const int64_t c = target[i];
  if (c == ignore_index) {
    loss[i] = T(0);
    weights[i] = T(0);
    return;
  }
  const T w = weight ? weight[c] : T(1);
  loss[i] = -logp[i * classes + c] * w;
  weights[i] = w;
}

template <typename T>
__global__ void nll_backward_kernel(const T* grad, const int64_t* target, const T* weight, const T* total_weight,
                                    T* out, int64_t rows, int64_t classes, int64_t reduction, int64_t ignore_index) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const int64_t c = target[i];
  if (c == ignore_index) return;
  T g = reduction == kNone ? grad[i] : grad[0];
  if (reduction == kMean) g /= total_weight[0];
  out[i * classes + c] = -g * (weight ? weight[c] : T(1));
}

void cuda_nll_forward(const Tensor& logp, const Tensor& target, const Tensor& weight, const Tensor& output,
                      const Tensor& total_weight, int64_t reduction, int64_t ignore_index) {
  const int64_t rows = logp.size(0), classes = logp.size(1);
  check_targets(target, classes, ignore_index);
  const Tensor losses = ember::empty({rows}, logp.dtype(), logp.device());
  const Tensor weights = ember::empty({rows}, logp.dtype(), logp.device());
  if (rows > 0) {
    EMBER_CUDA_DISPATCH_FLOATING(logp.dtype(), "nll_loss", [&] {
      nll_forward_kernel<scalar_t><<<blocks_for(rows), kThreads, 0, current_stream()>>>(
          static_cast<const scalar_t*>(logp.data_ptr()), target.data_ptr<int64_t>(),
          weight.defined() ? static_cast<const scalar_t*>(weight.data_ptr()) : nullptr,
          static_cast<scalar_t*>(losses.data_ptr()), static_cast<scalar_t*>(weights.data_ptr()), rows, classes,
          ignore_index);
    });
    check_launch("nll_forward_kernel");
  }
  const Tensor weight_sum = weights.sum();
  total_weight.copy_(weight_sum);
  if (reduction == kNone) {
    output.copy_(losses.view(output.sizes()));
  } else {
    // As torch: a mean over no (or zero-weight) samples is 0 / 0 = NaN.
    const Tensor loss_sum = losses.sum();
    output.copy_(reduction == kMean ? loss_sum / weight_sum : loss_sum);
  }
}

void cuda_nll_backward(const Tensor& grad_output, const Tensor& target, const Tensor& weight, const Tensor& grad_rows,
                       const Tensor& total_weight, int64_t reduction, int64_t ignore_index) {
  const int64_t rows = grad_rows.size(0), classes = grad_rows.size(1);
  check_targets(target, classes, ignore_index);
  if (rows == 0) return;
  const Tensor tw = total_weight.to(grad_rows.device(), grad_rows.dtype()).contiguous();
  EMBER_CUDA_DISPATCH_FLOATING(grad_rows.dtype(), "nll_loss_backward", [&] {
    nll_backward_kernel<scalar_t><<<blocks_for(rows), kThreads, 0, current_stream()>>>(
        static_cast<const scalar_t*>(grad_output.data_ptr()), target.data_ptr<int64_t>(),
        weight.defined() ? static_cast<const scalar_t*>(weight.data_ptr()) : nullptr,
        static_cast<const scalar_t*>(tw.data_ptr()), static_cast<scalar_t*>(grad_rows.data_ptr()), rows, classes,
        reduction, ignore_index);
  });
  check_launch("nll_backward_kernel");
}

}  // namespace

EMBER_REGISTER_STUB(nll_forward_stub, CUDA, &cuda_nll_forward);
EMBER_REGISTER_STUB(nll_backward_stub, CUDA, &cuda_nll_backward);

}  // namespace ember::native::cuda
