// CUDA adam_step_stub: one thread per element updates the parameter and both
// moments in one pass, as the CPU kernel does.

#include <aten/native/DeviceKernels.h>
#include <aten/native/cuda/CUDAContext.h>
#include <aten/native/cuda/DtypeVisit.cuh>

#include <cmath>

namespace ember::native::cuda {

namespace {

template <typename T>
struct AdamCoefficients {
  T sign, decay, coupled, w1, b2, w2, inv_bc2, eps, neg_step;
};

template <typename T>
__global__ void adam_step_kernel(T* p, const T* g, T* m, T* v, int64_t n, AdamCoefficients<T> k) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const T pi = p[i] * k.decay;
    const T gi = k.sign * g[i] + k.coupled * p[i];
    const T mi = m[i] + k.w1 * (gi - m[i]);
    const T vi = v[i] * k.b2 + k.w2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = pi + k.neg_step * (mi / (sqrt(vi) * k.inv_bc2 + k.eps));
  }
}

void cuda_adam_step(const Tensor& self, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                    const AdamHyper& h) {
  const int64_t n = self.numel();
  if (n == 0) return;
  const double step_size = h.lr / (1 - std::pow(h.beta1, h.step));
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(h.beta2, h.step));
  EMBER_CUDA_DISPATCH_FLOATING(self.dtype(), "_adam_step_", [&] {
    using T = scalar_t;
    const AdamCoefficients<T> k{h.maximize ? T(-1) : T(1),
                                static_cast<T>(h.decoupled_weight_decay ? 1 - h.lr * h.weight_decay : 1),
                                h.decoupled_weight_decay ? T(0) : static_cast<T>(h.weight_decay),
                                static_cast<T>(1 - h.beta1),
                                static_cast<T>(h.beta2),
                                static_cast<T>(1 - h.beta2),
                                static_cast<T>(1 / bias_correction2_sqrt),
                                static_cast<T>(h.eps),
                                static_cast<T>(-step_size)};
    const int64_t blocks = std::min<int64_t>((n + 255) / 256, int64_t{1} << 16);
    adam_step_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, current_stream()>>>(
        static_cast<T*>(self.data_ptr()), static_cast<const T*>(grad.data_ptr()), static_cast<T*>(exp_avg.data_ptr()),
        static_cast<T*>(exp_avg_sq.data_ptr()), n, k);
  });
  check_launch("adam_step_kernel");
}

}  // namespace

EMBER_REGISTER_STUB(adam_step_stub, CUDA, &cuda_adam_step);

}  // namespace ember::native::cuda
