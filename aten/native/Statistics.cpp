// Covariance and correlation of variables given as rows of observations
// (NumPy's and torch's cov/corrcoef), built from differentiable ops.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>

namespace ember::native {

namespace {

// A weights tensor checked as torch checks it: 1-d, one per observation, of the
// kind it must be (integral frequencies, floating observation weights), not negative.
void check_weights(const Tensor& w, const char* what, bool integral, int64_t observations) {
  EMBER_CHECK(w.dim() <= 1, "cov(): expected {} to have one or fewer dimensions but got {} with {} dimensions", what,
              what, w.dim());
  if (integral) {
    EMBER_CHECK(c10::isIntegralType(w.scalar_type(), false), "cov(): expected {} to have integral dtype but got {} "
                "with {} dtype", what, what, c10::toString(w.scalar_type()));
  } else {
    EMBER_CHECK(w.is_floating_point(), "cov(): expected {} to have floating point dtype but got {} with {} dtype",
                what, what, c10::toString(w.scalar_type()));
  }
  EMBER_CHECK(w.numel() == observations, "cov(): expected {} to have the same numel as there are observations in the "
              "input but got {} != {}", what, w.numel(), observations);
  EMBER_CHECK(w.is_meta() || !w.lt(0).any().item().toBool(), "cov(): {} cannot be negative", what);
}

}  // namespace

Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  EMBER_CHECK(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with {} "
              "dimensions", self.dim());
  Tensor x = self.dim() < 2 ? self.reshape({1, -1}) : self;
  if (!x.is_floating_point() && !x.is_complex()) x = x.to(c10::get_default_dtype());
  const int64_t observations = x.size(1);
  Tensor w;
  const bool has_f = fweights && fweights->defined(), has_a = aweights && aweights->defined();
  if (has_f) {
    check_weights(*fweights, "fweights", true, observations);
    w = *fweights;
  }
  if (has_a) {
    check_weights(*aweights, "aweights", false, observations);
    w = w.defined() ? w * *aweights : *aweights;
  }
  const Tensor w_sum = w.defined() ? w.sum() : ember::scalar_tensor(observations, ScalarType::Long);
  const std::vector<int64_t> along_observations{1};  // a named list: a braced one would dangle
  const Tensor mean = w.defined() ? (x * w).sum(along_observations) / w_sum : x.mean(along_observations);
  Tensor norm = has_a && correction != 0 ? w_sum - correction * (w * *aweights).sum() / w_sum : w_sum - correction;
  // No degrees of freedom left: divide by 0 (inf/NaN), as torch does after its warning.
  if (!norm.is_meta() && norm.le(0).item().toBool()) norm = ember::zeros_like(norm);
  const Tensor centered = x - mean.unsqueeze(1);
  const Tensor weighted = w.defined() ? centered * w : centered;
  return ember::mm(weighted, centered.t().conj()).div(norm).squeeze();
}

Tensor corrcoef(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with {} "
              "dimensions", self.dim());
  const Tensor c = ember::cov(self);
  if (c.dim() == 0) return c / c;  // one variable: 1, or NaN where it does not vary
  const Tensor stddev = c.diagonal().sqrt();  // the variances are real (also for complex input)
  const Tensor r = c / stddev.unsqueeze(1) / stddev.unsqueeze(0);
  // Rounding can push a coefficient just past 1; the bounds are exact.
  return r.is_complex() ? r : r.clamp(-1, 1);
}

}  // namespace ember::native
