// Reductions written in terms of others: counts, NaN-skipping sums and
// means, the min and max together, variance or deviation with the mean, and
// the trapezoidal rule.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/Resize.h>
#include <aten/native/SameDevice.h>

namespace ember::native {

namespace {

std::vector<int64_t> dims_of(std::optional<int64_t> dim) {
  return dim ? std::vector<int64_t>{*dim} : std::vector<int64_t>{};
}

}  // namespace

Tensor count_nonzero(const Tensor& self, IntArrayRef dim) {
  return self.ne(0).sum(std::optional<IntArrayRef>(dim), false, ScalarType::Long);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  const std::vector<int64_t> dims = dims_of(dim);
  return ember::count_nonzero(self, IntArrayRef(dims));
}

// NaN counts as zero.
Tensor nansum(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(!self.is_complex(), "nansum does not support complex inputs");
  const Tensor values = self.is_floating_point() ? self.masked_fill(self.isnan(), 0) : self;
  return ember::sum(values, dim, keepdim, dtype);
}
Tensor nansum_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                  const Tensor& out) {
  return resize_out(out, ember::nansum(self, dim, keepdim, dtype.value_or(out.scalar_type())));
}

// The mean of the values that are not NaN (NaN where all are).
Tensor nanmean(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(self.is_floating_point() || self.is_complex(),
              "nanmean(): expected input to have floating point or complex dtype but got {}",
              c10::toString(self.scalar_type()));
  const Tensor counted = self.isnan().logical_not().sum(dim, keepdim);
  return ember::nansum(self, dim, keepdim, dtype).div(counted);
}
Tensor nanmean_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                   const Tensor& out) {
  return resize_out(out, ember::nanmean(self, dim, keepdim, dtype.value_or(out.scalar_type())));
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CHECK(dim || self.numel() > 0,
              "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  if (dim && self.dim() > 0) {
    const int64_t d = c10::maybe_wrap_dim(*dim, self.dim());
    EMBER_CHECK(self.size(d) > 0, "aminmax(): Expected reduction dim {} to have non-zero size.", d);
  }
  const std::vector<int64_t> dims = dims_of(dim);
  return {ember::amin(self, dims, keepdim), ember::amax(self, dims, keepdim)};
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, std::optional<IntArrayRef> dim,
                                    const std::optional<Scalar>& correction, bool keepdim) {
  return {ember::var(self, dim, correction, keepdim), ember::mean(self, dim, keepdim)};
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased) {
  return ember::var_mean(self, std::nullopt, Scalar(unbiased ? 1 : 0), false);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return ember::var_mean(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& self, std::optional<IntArrayRef> dim,
                                    const std::optional<Scalar>& correction, bool keepdim) {
  return {ember::std(self, dim, correction, keepdim), ember::mean(self, dim, keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased) {
  return ember::std_mean(self, std::nullopt, Scalar(unbiased ? 1 : 0), false);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return ember::std_mean(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}

// ---- the trapezoidal rule ---------------------------------------------------------------------

namespace {

// The areas of the trapezoids between neighbouring samples of y along dim:
// (y[i] + y[i+1]) / 2 times the spacing (x[i+1] - x[i], or dx).
Tensor trapezoid_pieces(const Tensor& y, const Tensor* x, const Scalar& dx, int64_t dim, const char* name) {
  EMBER_CHECK(y.dim() > 0, "{}: y must have at least one dimension", name);
  dim = c10::maybe_wrap_dim(dim, y.dim());
  const int64_t n = y.size(dim);
  if (n == 0) return y.narrow(dim, 0, 0) * 0.5;  // the dtype of the pieces of a longer y
  const Tensor heights = (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)) * 0.5;
  if (!x) return heights * dx;
  if (x->dim() == 1) {
    EMBER_CHECK(x->size(0) == n, "{}: There must be one `x` value for each sample point", name);
    std::vector<int64_t> along(y.dim(), 1);
    along[dim] = n - 1;
    return heights * ember::diff(*x).reshape(along);
  }
  return heights * ember::diff(*x, 1, dim);
}

}  // namespace

// The sum of the pieces; no samples along dim give zeros of y's dtype, as torch.
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  check_same_device("trapezoid", y, x);
  const std::vector<int64_t> along{c10::maybe_wrap_dim(dim, std::max<int64_t>(y.dim(), 1))};
  if (y.dim() > 0 && y.size(along[0]) == 0) return y.sum(along);
  return trapezoid_pieces(y, &x, 1, dim, "trapezoid").sum(along);
}
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const std::vector<int64_t> along{c10::maybe_wrap_dim(dim, std::max<int64_t>(y.dim(), 1))};
  if (y.dim() > 0 && y.size(along[0]) == 0) return y.sum(along);
  return trapezoid_pieces(y, nullptr, dx, dim, "trapezoid").sum(along);
}
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  check_same_device("cumulative_trapezoid", y, x);
  return trapezoid_pieces(y, &x, 1, dim, "cumulative_trapezoid").cumsum(c10::maybe_wrap_dim(dim, y.dim()));
}
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  return trapezoid_pieces(y, nullptr, dx, dim, "cumulative_trapezoid").cumsum(c10::maybe_wrap_dim(dim, y.dim()));
}

}  // namespace ember::native
