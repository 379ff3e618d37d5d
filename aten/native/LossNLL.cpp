// nll_loss as a pair of kernels: the forward picks each sample's
// log-probability in one pass and returns the total weight the mean divides
// by; the backward writes -weight (/ total weight) at each target and zero
// elsewhere. Both see the input as rows of classes.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/DeviceKernels.h>
#include <aten/native/LossTargets.h>
#include <aten/native/cpu/ElementwiseTraits.h>

#include <tuple>
#include <vector>

namespace ember::native {

namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// The input as [rows, classes] (the class dim moved last) and the targets as [rows].
struct NllRows {
  Tensor logp, target, weight;
  int64_t rows = 0, classes = 0;
};

NllRows nll_rows(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction) {
  EMBER_CHECK(self.dim() >= 1, "nll_loss: expected input of 1 or more dims");
  EMBER_CHECK(target.dtype() == ScalarType::Long, "nll_loss: expected target of dtype Long but got {}",
              c10::toString(target.dtype()));
  EMBER_CHECK_VALUE(reduction >= kNone && reduction <= kSum, "{} is not a valid value for reduction", reduction);
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point(), "\"nll_loss\" not implemented for '{}'",
                              c10::toString(self.dtype()));
  NllRows r;
  r.classes = self.size(self.dim() == 1 ? 0 : 1);
  const Tensor rows = self.dim() == 1 ? self.unsqueeze(0) : ember::movedim(self, 1, -1).reshape({-1, r.classes});
  r.rows = rows.size(0);
  EMBER_CHECK_VALUE(r.rows == target.numel() || (self.dim() == 1 && target.numel() == 1),
                    "Expected input batch_size ({}) to match target batch_size ({}).", r.rows, target.numel());
  if (weight && weight->defined()) {
    EMBER_CHECK(weight->dim() == 1 && weight->numel() == r.classes,
                "weight tensor should be defined either for all {} classes or no classes but got weight tensor of "
                "shape: {}",
                r.classes, c10::str_sizes(weight->sizes()));
    r.weight = weight->to(self.dtype()).contiguous();
  }
  r.logp = rows.contiguous();
  r.target = target.reshape({-1}).contiguous();
  return r;
}

template <typename T>
T weight_of(const T* w, int64_t c) {
  return w ? w[c] : T(1);
}

// The CPU's nll_forward_stub.
void cpu_nll_forward(const Tensor& logp_rows, const Tensor& target, const Tensor& weight, const Tensor& output,
                     const Tensor& total_weight, int64_t reduction, int64_t ignore_index) {
  const int64_t rows = logp_rows.size(0), classes = logp_rows.size(1);
  const int64_t* t = target.data_ptr<int64_t>();
  c10::visit_scalar_type(logp_rows.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = cpu::opmath_t<T>;
      const T* logp = logp_rows.data_ptr<T>();
      const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
      T* out = output.data_ptr<T>();
      double sum = 0, weights = 0;
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t c = t[i];
        M loss = 0;
        if (c != ignore_index) {
          check_target_class(c, classes);
          const M wi = static_cast<M>(weight_of(w, c));
          loss = -static_cast<M>(logp[i * classes + c]) * wi;
          weights += wi;
        }
        if (reduction == kNone) out[i] = static_cast<T>(loss);
        sum += loss;
      }
      // As torch: a mean over no (or zero-weight) samples is 0 / 0 = NaN.
      if (reduction == kMean) out[0] = static_cast<T>(sum / weights);
      if (reduction == kSum) out[0] = static_cast<T>(sum);
      total_weight.data_ptr<T>()[0] = static_cast<T>(weights);
    }
  });
}

// The CPU's nll_backward_stub.
void cpu_nll_backward(const Tensor& go, const Tensor& target, const Tensor& weight, const Tensor& grad_rows,
                      const Tensor& total_weight, int64_t reduction, int64_t ignore_index) {
  const int64_t rows = grad_rows.size(0), classes = grad_rows.size(1);
  const int64_t* t = target.data_ptr<int64_t>();
  c10::visit_scalar_type(grad_rows.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = cpu::opmath_t<T>;
      const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
      const T* g = go.data_ptr<T>();
      T* out = grad_rows.data_ptr<T>();
      M scale = reduction == kNone ? M(1) : static_cast<M>(g[0]);
      if (reduction == kMean) scale /= static_cast<M>(total_weight.to(ScalarType::Double).item<double>());
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t c = t[i];
        if (c == ignore_index) continue;
        check_target_class(c, classes);
        const M gi = reduction == kNone ? static_cast<M>(g[i]) : scale;
        out[i * classes + c] = static_cast<T>(-gi * static_cast<M>(weight_of(w, c)));
      }
    }
  });
}

}  // namespace

DispatchStub<NllForwardFn> nll_forward_stub("nll_loss_forward");
DispatchStub<NllBackwardFn> nll_backward_stub("nll_loss_backward");
EMBER_REGISTER_STUB(nll_forward_stub, CPU, &cpu_nll_forward);
EMBER_REGISTER_STUB(nll_backward_stub, CPU, &cpu_nll_backward);

std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            int64_t ignore_index) {
  const NllRows r = nll_rows(self, target, weight, reduction);
  Tensor output = reduction == kNone ? ember::empty(target.sizes(), self.dtype(), self.device())
                                     : ember::empty({}, self.dtype(), self.device());
  Tensor total_weight = ember::empty({}, self.dtype(), self.device());
  if (self.is_meta()) return {output, total_weight};
  nll_forward_stub(self.device().type, r.logp, r.target, r.weight, output, total_weight, reduction, ignore_index);
  // As torch, a batch with reduction none reports no total weight (nothing divides by it).
  if (reduction == kNone && self.dim() > 1) total_weight.zero_();
  return {output, total_weight};
}

Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight) {
  const NllRows r = nll_rows(self, target, weight, reduction);
  Tensor grad_rows = ember::zeros({r.rows, r.classes}, self.dtype(), self.device());
  auto in_input_layout = [&](const Tensor& rows) {
    if (self.dim() == 1) return rows.reshape(self.sizes());
    std::vector<int64_t> moved = self.sizes().vec();
    moved.erase(moved.begin() + 1);
    moved.push_back(r.classes);
    return ember::movedim(rows.reshape(moved), -1, 1).contiguous();
  };
  if (self.is_meta()) return in_input_layout(grad_rows);
  const Tensor go = grad_output.to(self.dtype()).contiguous();
  EMBER_CHECK(reduction == kNone ? go.numel() == r.rows : go.numel() == 1,
              "nll_loss_backward: grad_output of size {} does not match the loss", c10::str_sizes(go.sizes()));
  nll_backward_stub(self.device().type, go, r.target, r.weight, grad_rows, total_weight, reduction, ignore_index);
  return in_input_layout(grad_rows);
}

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  return std::get<0>(ember::nll_loss_forward(self, target, weight, reduction, ignore_index));
}

}  // namespace ember::native
