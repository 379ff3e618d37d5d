// Counting: bincount (occurrences of small non-negative integers, or the sum
// of their weights) and histc (equal-width bins over a range).

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/Resize.h>
#include <c10/util/TypeCast.h>

#include <cmath>

namespace ember::native {

Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  constexpr const char* kInputs = "bincount only supports 1-d non-negative integral inputs.";
  EMBER_CHECK(minlength >= 0, "bincount: minlength should be >= 0, but got {}", minlength);
  EMBER_CHECK(self.dim() == 1 && c10::isIntegralType(self.scalar_type(), false), "{} (got a {}-d {} tensor)", kInputs,
              self.dim(), c10::toString(self.scalar_type()));
  const bool weighted = weights && weights->defined();
  EMBER_CHECK(!weighted || (weights->dim() == 1 && weights->size(0) == self.size(0)),
              "bincount: weights should be 1-d and have the same length as input");
  EMBER_CHECK(!weighted || !weights->is_complex(), "bincount: complex weights are not supported");
  const Tensor values = self.to(ScalarType::Long).contiguous();
  const int64_t* v = values.data_ptr<int64_t>();
  int64_t largest = -1;
  for (int64_t i = 0; i < values.numel(); ++i) {
    EMBER_CHECK(v[i] >= 0, "{} (found {})", kInputs, v[i]);
    largest = std::max(largest, v[i]);
  }
  const int64_t length = std::max(largest + 1, minlength);
  if (!weighted) {
    Tensor counts = ember::zeros({length}, ScalarType::Long, self.device());
    int64_t* c = counts.data_ptr<int64_t>();
    for (int64_t i = 0; i < values.numel(); ++i) ++c[v[i]];
    return counts;
  }
  // float32 weights sum in float32; every other dtype in float64, as torch.
  const ScalarType type = weights->scalar_type() == ScalarType::Float ? ScalarType::Float : ScalarType::Double;
  const Tensor w = weights->to(type).contiguous();
  Tensor sums = ember::zeros({length}, type, self.device());
  c10::visit_scalar_type(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T* wp = static_cast<const T*>(w.data_ptr());
      T* s = static_cast<T*>(sums.data_ptr());
      for (int64_t i = 0; i < values.numel(); ++i) s[v[i]] += wp[i];
    }
  });
  return sums;
}

Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point(), "histc: \"histogram_cpu\" not implemented for '{}'",
                              c10::toString(self.scalar_type()));
  EMBER_CHECK(bins > 0, "torch.histc(): bins must be > 0, but got {} for dim 0", bins);
  double lo = min.toDouble(), hi = max.toDouble();
  EMBER_CHECK(!(lo > hi), "torch.histc(): max must be larger than min");
  if (self.is_meta()) return ember::empty({bins}, self.scalar_type(), self.device());
  const Tensor x = self.contiguous();
  if (lo == hi && x.numel() > 0) {
    lo = ember::min(x).item().toDouble();
    hi = ember::max(x).item().toDouble();
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc(): range of [{}, {}] is not finite", lo, hi);
  if (lo == hi) lo -= 1, hi += 1;
  Tensor counts = ember::zeros({bins}, self.scalar_type(), self.device());
  c10::visit_scalar_type(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
      // The bin arithmetic in the input's own precision, as torch does it.
      using M = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const M left = static_cast<M>(static_cast<T>(lo)), right = static_cast<M>(static_cast<T>(hi));
      const T* p = static_cast<const T*>(x.data_ptr());
      T* c = static_cast<T*>(counts.data_ptr());
      for (int64_t i = 0; i < x.numel(); ++i) {
        const M value = static_cast<M>(p[i]);
        if (!(value >= left && value <= right)) continue;  // outside, or NaN
        int64_t bin = static_cast<int64_t>((value - left) * static_cast<M>(bins) / (right - left));
        if (bin == bins) bin -= 1;
        c[bin] = static_cast<T>(static_cast<M>(c[bin]) + M(1));
      }
    }
  });
  return counts;
}

Tensor histc_out(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max, const Tensor& out) {
  return resize_out(out, ember::histc(self, bins, min, max));
}

}  // namespace ember::native
