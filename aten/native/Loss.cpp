// The losses written in terms of other operators: mse, l1 and cross
// entropy (nll_loss has kernels of its own, in LossNLL.cpp).

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/TensorIterator.h>

namespace ember::native {

namespace {
Tensor scalar(double v) { return wrapped_scalar_tensor(v); }

// 0: none, 1: mean, 2: sum, as in torch.nn._reduction.
Tensor reduce_loss(const Tensor& loss, int64_t reduction) {
  EMBER_CHECK_VALUE(reduction >= 0 && reduction <= 2, "{} is not a valid value for reduction", reduction);
  if (reduction == 1) return loss.mean();
  if (reduction == 2) return loss.sum();
  return loss;
}
}  // namespace

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  const Tensor diff = ember::sub(self, target);
  return reduce_loss(ember::mul(diff, diff), reduction);
}

Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return reduce_loss(ember::abs(ember::sub(self, target)), reduction);
}

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  EMBER_CHECK(label_smoothing >= 0 && label_smoothing <= 1, "label_smoothing must be between 0.0 and 1.0. Got: {}",
              label_smoothing);
  const bool weighted = weight && weight->defined();
  // The fused rows kernel is CPU's; other devices compose log_softmax and nll_loss.
  if (self.dim() == 2 && self.is_cpu() && self.is_floating_point() && target.dim() == 1 &&
      target.dtype() == ScalarType::Long && !weighted && label_smoothing <= 0) {
    return std::get<0>(ember::_cross_entropy_rows(self, target, reduction, ignore_index));
  }
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t classes = self.size(class_dim);
  const Tensor logp = ember::log_softmax(self, class_dim);
  // Class weights shaped to broadcast along the class dim.
  std::optional<Tensor> w;
  if (weight && weight->defined()) {
    std::vector<int64_t> shape(self.dim(), 1);
    shape[class_dim] = classes;
    w = weight->reshape(shape);
  }
  const std::vector<int64_t> class_dims{class_dim};
  if (target.is_floating_point()) {
    // Class probabilities: smoothing mixes in the uniform distribution; the
    // mean is over samples, not weights (torch's rule).
    Tensor p = label_smoothing > 0 ? ember::add(ember::mul(target, scalar(1 - label_smoothing)),
                                               scalar(label_smoothing / static_cast<double>(classes)))
                                   : target;
    Tensor terms = ember::mul(logp, p);
    if (w) terms = ember::mul(terms, *w);
    Tensor loss = ember::neg(ember::sum(terms, class_dims));
    if (reduction == 1) return ember::div(loss.sum(), scalar(static_cast<double>(self.numel() / classes)));
    return reduce_loss(loss, reduction);
  }
  Tensor nll = ember::nll_loss(logp, target, weight, reduction, ignore_index);
  if (label_smoothing <= 0) return nll;
  // Smoothing term: -sum_c w_c log p_c per sample, ignored targets masked out.
  Tensor smooth = ember::neg(ember::sum(w ? ember::mul(logp, *w) : logp, class_dims));
  const Tensor ignored = ember::eq(target, wrapped_scalar_tensor(ignore_index));
  smooth = ember::masked_fill(smooth, ignored, 0);
  Tensor smooth_reduced;
  if (reduction == 1) {
    const Tensor kept = ember::logical_not(ignored);
    Tensor denominator;
    if (weight && weight->defined()) {
      const Tensor safe_t = ember::where(kept, target, ember::zeros_like(target));
      denominator = ember::sum(ember::mul(ember::index_select(*weight, 0, safe_t.reshape({-1})).reshape(target.sizes()),
                                          kept.to(weight->dtype())));
    } else {
      denominator = ember::sum(kept.to(self.dtype()));
    }
    smooth_reduced = ember::div(smooth.sum(), denominator);
  } else {
    smooth_reduced = reduce_loss(smooth, reduction);
  }
  return ember::add(ember::mul(nll, scalar(1 - label_smoothing)),
                    ember::mul(smooth_reduced, scalar(label_smoothing / static_cast<double>(classes))));
}

}  // namespace ember::native
