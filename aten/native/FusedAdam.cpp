// One Adam/AdamW step for one parameter in a single pass over param, grad
// and both moments. The optimizer's per-tensor path is ten operator calls
// (and as many passes over memory) per parameter; this is one.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/DeviceKernels.h>
#include <aten/native/cpu/VecMath.h>

#include <cmath>
#include <type_traits>

namespace ember::native {

namespace {

// The CPU's adam_step_stub.
void cpu_adam_step(const Tensor& self, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                   const AdamHyper& h) {
  const double step = h.step, lr = h.lr, beta1 = h.beta1, beta2 = h.beta2, weight_decay = h.weight_decay, eps = h.eps;
  const bool maximize = h.maximize, decoupled_weight_decay = h.decoupled_weight_decay;
  const double step_size = lr / (1 - std::pow(beta1, step));
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, step));
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      T* p = self.data_ptr<T>();
      const T* g = grad.data_ptr<T>();
      T* m = exp_avg.data_ptr<T>();
      T* v = exp_avg_sq.data_ptr<T>();
      const T sign = maximize ? T(-1) : T(1), wd = static_cast<T>(weight_decay);
      const T decay = static_cast<T>(decoupled_weight_decay ? 1 - lr * weight_decay : 1);
      const T coupled = decoupled_weight_decay ? T(0) : wd;
      const T w1 = static_cast<T>(1 - beta1), b2 = static_cast<T>(beta2), w2 = static_cast<T>(1 - beta2);
      const T inv_bc2 = static_cast<T>(1 / bias_correction2_sqrt), e = static_cast<T>(eps);
      const T neg_step = static_cast<T>(-step_size);
      if constexpr (std::is_same_v<T, float>) {
        const cpu::AdamCoefficients k{sign, decay, coupled, w1, b2, w2, inv_bc2, e, neg_step};
        parallel_for(0, self.numel(), 16384, [&](int64_t begin, int64_t end) {
          cpu::adam_step_floats(p + begin, g + begin, m + begin, v + begin, end - begin, k);
        });
        return;
      }
      parallel_for(0, self.numel(), 16384, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const T pi = p[i] * decay;
          const T gi = sign * g[i] + coupled * p[i];
          const T mi = m[i] + w1 * (gi - m[i]);
          const T vi = v[i] * b2 + w2 * gi * gi;
          m[i] = mi;
          v[i] = vi;
          p[i] = pi + neg_step * (mi / (std::sqrt(vi) * inv_bc2 + e));
        }
      });
    }
  });
}

}  // namespace

DispatchStub<AdamStepFn> adam_step_stub("_adam_step_");
EMBER_REGISTER_STUB(adam_step_stub, CPU, &cpu_adam_step);

Tensor _adam_step_(const Tensor& self, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                   double step, double lr, double beta1, double beta2, double weight_decay, double eps, bool maximize,
                   bool decoupled_weight_decay) {
  const auto same = [&](const Tensor& t, const char* name) {
    EMBER_CHECK(t.sizes() == self.sizes() && t.dtype() == self.dtype() && t.is_contiguous() && !t.is_conj() &&
                    !t.is_neg(),
                "_adam_step_: {} must be a contiguous {} tensor of size {}, got {} of size {}", name,
                c10::toString(self.dtype()), c10::str_sizes(self.sizes()), c10::toString(t.dtype()),
                c10::str_sizes(t.sizes()));
  };
  EMBER_CHECK(self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double,
              "_adam_step_: expected a float or double parameter, got {}", c10::toString(self.dtype()));
  same(self, "param");
  same(grad, "grad");
  same(exp_avg, "exp_avg");
  same(exp_avg_sq, "exp_avg_sq");
  EMBER_CHECK(step >= 1, "_adam_step_: step must be at least 1, got {}", step);
  if (self.is_meta()) return self;
  adam_step_stub(self.device().type, self, grad, exp_avg, exp_avg_sq,
                 AdamHyper{step, lr, beta1, beta2, weight_decay, eps, maximize, decoupled_weight_decay});
  for (const Tensor* t : {&self, &exp_avg, &exp_avg_sq}) t->unsafeGetTensorImpl()->bump_version();
  return self;
}

}  // namespace ember::native
