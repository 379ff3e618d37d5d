// Counting: bincount (occurrences of small non-negative integers, or the sum
// of their weights), histc (equal-width bins over a range) and histogram
// (given edges, or equal-width ones, with weights and densities).

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/Resize.h>
#include <c10/util/TypeCast.h>

#include <algorithm>
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

namespace {

// The value's bin among sorted edges: the last edge closes the last bin; -1 outside (or NaN).
template <typename T>
int64_t bin_of(T value, const T* edges, int64_t n_edges) {
  if (!(value >= edges[0] && value <= edges[n_edges - 1])) return -1;
  const int64_t pos = std::upper_bound(edges, edges + n_edges, value) - edges - 1;
  return std::min(pos, n_edges - 2);
}

}  // namespace

std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins, const std::optional<Tensor>& weight,
                                     bool density) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point(), "histogram: \"histogramdd\" not implemented for '{}'",
                              c10::toString(self.scalar_type()));
  EMBER_CHECK(bins.dim() == 1, "torch.histogram: bins tensor should have one dimension, but got {} dimensions in the "
              "bins tensor", bins.dim());
  EMBER_CHECK(bins.numel() > 0, "torch.histogram: bins tensor should have at least 1 element");
  EMBER_CHECK(bins.scalar_type() == self.scalar_type(), "torch.histogram: input tensor and bins tensors should have "
              "the same dtype, but got input with dtype {} and bins with dtype {}", c10::python_name(self.scalar_type()),
              c10::python_name(bins.scalar_type()));
  const bool weighted = weight && weight->defined();
  if (weighted) {
    EMBER_CHECK(weight->sizes() == self.sizes(), "torch.histogram: if weight tensor is provided it should have the "
                "same shape as the input tensor excluding its innermost dimension, but got input with shape {} and "
                "weight with shape {}", str_sizes(self.sizes()), str_sizes(weight->sizes()));
    EMBER_CHECK(weight->scalar_type() == self.scalar_type(), "torch.histogram: if weight tensor is provided, it "
                "should have the same dtype as the input tensor");
  }
  const int64_t n_bins = std::max<int64_t>(bins.numel() - 1, 0);
  Tensor hist = ember::zeros({n_bins}, self.scalar_type(), self.device());
  if (self.is_meta()) return {hist, bins.clone()};
  const Tensor x = self.contiguous(), edges = bins.contiguous();
  const Tensor w = weighted ? weight->contiguous() : Tensor();
  c10::visit_scalar_type(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
      using M = std::conditional_t<std::is_same_v<T, double>, double, float>;  // the sums' precision
      const T* p = static_cast<const T*>(x.data_ptr());
      const T* e = static_cast<const T*>(edges.data_ptr());
      const T* wp = weighted ? static_cast<const T*>(w.data_ptr()) : nullptr;
      T* h = static_cast<T*>(hist.data_ptr());
      if (n_bins == 0) return;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t b = bin_of(p[i], e, edges.numel());
        if (b >= 0) h[b] = static_cast<T>(static_cast<M>(h[b]) + (wp ? static_cast<M>(wp[i]) : M(1)));
      }
    }
  });
  if (density && n_bins > 0) hist = hist / (hist.sum() * ember::diff(edges));
  return {hist, bins.clone()};
}

std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins, std::optional<c10::ArrayRef<double>> range,
                                     const std::optional<Tensor>& weight, bool density) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point(), "histogram: \"histogramdd\" not implemented for '{}'",
                              c10::toString(self.scalar_type()));
  EMBER_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got {} for dimension 0", bins);
  double lo = 0, hi = 1;
  if (range) {
    EMBER_CHECK(range->size() == 2, "torch.histogram(): range should have 2 elements, but got {}", range->size());
    lo = (*range)[0];
    hi = (*range)[1];
  } else if (self.numel() > 0 && !self.is_meta()) {
    lo = ember::min(self).item().toDouble();
    hi = ember::max(self).item().toDouble();
  }
  EMBER_CHECK(!(lo > hi), "torch.histogram: min should not exceed max, but got min {} max {}", lo, hi);
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histogram: range [{}, {}] is not finite", lo, hi);
  if (lo == hi) lo -= 0.5, hi += 0.5;
  const Tensor edges = ember::linspace(lo, hi, bins + 1, self.scalar_type(), self.device());
  return ember::histogram(self, edges, weight, density);
}

}  // namespace ember::native
