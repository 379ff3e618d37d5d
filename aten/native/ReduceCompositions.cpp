// Reductions written in terms of others: counts, NaN-skipping sums and
// means, the min and max together, and variance or deviation with the mean.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/Resize.h>

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

}  // namespace ember::native
