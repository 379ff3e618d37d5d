#include <autograd/FunctionsManual.h>

#include <autograd/Variable.h>
#include <autograd/functions/Basic.h>
#include <c10/core/GradMode.h>

#include <cmath>

namespace ember::autograd::manual {

namespace {
TensorOptions long_options() { return TensorOptions().dtype(ScalarType::Long); }

// Dims reduced by a reduction over `dim` (all when absent or empty).
std::vector<bool> reduced_dims(int64_t ndim, std::optional<IntArrayRef> dim) {
  std::vector<bool> reduced(ndim, !dim || dim->empty());
  if (dim && ndim > 0) {  // a 0-d tensor has no dims to mark (dim 0 / -1 mean itself)
    for (int64_t d : *dim) reduced[c10::maybe_wrap_dim(d, ndim)] = true;
  }
  return reduced;
}

// Puts back the reduced dims of a keepdim=False result as size 1.
Tensor unsqueeze_reduced(const Tensor& t, int64_t ndim, const std::vector<bool>& reduced, bool keepdim) {
  if (keepdim || ndim == 0) return t;
  Tensor out = t;
  for (int64_t d = 0; d < ndim; ++d) {
    if (reduced[d]) out = out.unsqueeze(d);
  }
  return out;
}

// Adds `values` into a zero tensor of `numel` elements at flat `places`.
Tensor scatter_to_places(const Tensor& values, const Tensor& places, int64_t numel) {
  return ember::zeros({numel}, values.options()).scatter_add(0, places.reshape({-1}), values.reshape({-1}));
}
}  // namespace

bool materialize_grads(const Node& node, variable_list& grads) {
  bool any = false;
  for (const Tensor& g : grads) any = any || g.defined();
  if (!any) return false;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined() && i < node.num_inputs()) grads[i] = node.input_metadata(i).zeros();
  }
  return true;
}

bool any_should_compute(const Node& node, size_t start, size_t count) {
  for (size_t i = start; i < start + count; ++i) {
    if (node.should_compute_output(i)) return true;
  }
  return false;
}

Tensor sum_to(const Tensor& grad, IntArrayRef shape) {
  if (grad.sizes() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1 && grad.size(lead + static_cast<int64_t>(i)) != 1) dims.push_back(lead + static_cast<int64_t>(i));
  }
  Tensor out = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  if (lead > 0 || out.sizes() != shape) out = out.reshape(shape);
  return out;
}

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool is_one = s.isIntegral(false) ? s.toLong() == 1 : (!s.isComplex() && s.toDouble() == 1.0);
  return is_one ? t : t * s;
}

Tensor flip(const Tensor& t, int64_t dim) {
  const int64_t n = t.size(dim);
  return t.index_select(dim, ember::arange(n - 1, -1, -1, long_options()));
}

std::vector<std::vector<int64_t>> to_args_sizes(c10::ArrayRef<Tensor> tensors) {
  std::vector<std::vector<int64_t>> out;
  for (const Tensor& t : tensors) out.push_back(t.sizes().vec());
  return out;
}

std::vector<ScalarType> to_args_scalartypes(c10::ArrayRef<Tensor> tensors) {
  std::vector<ScalarType> out;
  for (const Tensor& t : tensors) out.push_back(t.scalar_type());
  return out;
}

Tensor permute_backwards(const Tensor& grad, IntArrayRef dims) {
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inverse[c10::maybe_wrap_dim(dims[i], grad.dim())] = static_cast<int64_t>(i);
  return grad.permute(inverse);
}

Tensor select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t index) {
  Tensor out = ember::zeros(input_sizes, grad.options());
  out.select(dim, index).copy_(grad);
  return out;
}

Tensor diagonal_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = ember::zeros(input_sizes, grad.options());
  out.diagonal(offset, dim1, dim2).copy_(grad);
  return out;
}

// Each running extreme's gradient goes to the element it came from.
Tensor running_extreme_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t dim) {
  if (self.dim() == 0) return grad;
  return ember::zeros_like(self, grad.scalar_type()).scatter_add(dim, indices, grad);
}

// d result_i / d x_j = exp(x_j - result_i) for i >= j: the gradient is
// exp(x_j) * sum_{i >= j} g_i exp(-result_i), summed in log space from the
// end, separately for the positive and the negative parts of g. The result is
// recomputed from self (not taken from the forward) so that double backward
// sees how it depends on self.
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, int64_t dim) {
  if (self.dim() == 0) return grad;
  const Tensor result = ember::logcumsumexp(self, dim);
  auto from_the_end = [dim](const Tensor& t) {
    const std::vector<int64_t> along{dim};
    return ember::flip(ember::logcumsumexp(ember::flip(t, along), dim), along);
  };
  // Complex (holomorphic): grad_k = conj(exp(x_k)) sum_{j >= k} g_j conj(exp(-r_j)), in logs.
  if (self.is_complex()) return ember::exp(self.conj() + from_the_end(ember::log(grad) - result.conj()));
  // log of g's positive part, and the dtype's lowest finite value elsewhere (-inf would meet +inf in
  // the differences below and give NaN); the log is taken only where g > 0, so that its derivative
  // (1/g at 0 or below) cannot turn the zero gradient there into NaN in double backward.
  const double lowest = -c10::info(self.scalar_type()).max;  // finfo's table: the largest finite value
  auto log_of_positive = [lowest](const Tensor& g) {
    const Tensor keep = g.gt(0);
    return ember::where(keep, ember::where(keep, g, ember::ones_like(g)).log(), ember::full_like(g, lowest));
  };
  const Tensor positive = ember::exp(self + from_the_end(log_of_positive(grad) - result));
  const Tensor negative = ember::exp(self + from_the_end(log_of_positive(grad.neg()) - result));
  return positive - negative;
}

Tensor slice_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor out = ember::zeros(input_sizes, grad.options());
  out.slice(dim, start, end, step).copy_(grad);
  return out;
}

Tensor unfold_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t size, int64_t step) {
  const int64_t numel = c10::checked_numel(input_sizes);
  Tensor places = ember::arange(numel, long_options()).view(input_sizes).unfold(dim, size, step);
  return scatter_to_places(grad, places, numel).view(input_sizes);
}

Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_offset, IntArrayRef sizes, IntArrayRef strides,
                           std::optional<int64_t> storage_offset) {
  auto extent = [](IntArrayRef sz, IntArrayRef st) {
    int64_t last = 0;
    for (size_t i = 0; i < sz.size(); ++i) {
      if (sz[i] == 0) return int64_t{0};
      last += (sz[i] - 1) * st[i];
    }
    return last + 1;
  };
  const int64_t out_offset = storage_offset.value_or(input_offset);
  const int64_t lo = std::min(input_offset, out_offset);
  const int64_t n = std::max(input_offset + extent(input_sizes, input_strides), out_offset + extent(sizes, strides)) - lo;
  Tensor places = ember::arange(n, long_options()).as_strided(sizes, strides, out_offset - lo);
  return scatter_to_places(grad, places, n).as_strided(input_sizes, input_strides, input_offset - lo);
}

// grad * gelu''(self): the derivative of gelu_backward with respect to self.
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate) {
  if (approximate == "tanh") {
    // u = k (x + c x^3), t = tanh(u): gelu'' = (1 - t^2) (u' + x (u'' - 2 t u'^2) / 2).
    const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
    const Tensor t = ((self + self.pow(3) * c) * k).tanh();
    const Tensor du = (self.pow(2) * (3 * c) + 1) * k;
    const Tensor d2u = self * (6 * c * k);
    return grad * grad_output * (1 - t * t) * (du + self * (d2u - t * du * du * 2) * 0.5);
  }
  // gelu'' = pdf(x) (2 - x^2), pdf the standard normal density.
  const Tensor pdf = (self * self * -0.5).exp() * (M_2_SQRTPI * M_SQRT1_2 * 0.5);
  return grad * grad_output * pdf * (2 - self * self);
}

// elu' is scale for x > 0 and scale alpha input_scale exp(input_scale x)
// (= input_scale (r + scale alpha) from the result r) below: its own
// derivative is input_scale times the latter part, and 0 above.
Tensor elu_double_backward(const Tensor& grad, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result) {
  const Tensor below = self_or_result.le(0);
  if (is_result) return grad * grad_output * input_scale.toDouble() * below;
  return ember::elu_backward(grad * grad_output * input_scale.toDouble(), alpha, scale, input_scale, false,
                             self_or_result) * below;
}

// hardswish' = x / 3 + 1/2 on (-3, 3): 1/3 there, 0 elsewhere.
Tensor hardswish_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self) {
  return grad * grad_output * ember::logical_and(self.gt(-3.0), self.lt(3.0)) / 3.0;
}

// softplus' = sigmoid(beta x) below the threshold, 1 above: beta s (1 - s)
// and 0.
Tensor softplus_double_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  const Tensor scaled = self * beta.toDouble();
  const Tensor s = scaled.sigmoid();
  return grad * s * (1 - s) * beta.toDouble() * scaled.le(threshold.toDouble());
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  // x ** 0.3 saves its exponent as a wrapped number, and wrapped-number
  // arithmetic (exponent - 1) would round it to the default float dtype.
  if (exponent.unsafeGetTensorImpl()->is_wrapped_number()) return pow_backward_self(grad, self, exponent.item());
  Tensor g = grad * (exponent * self.pow(exponent - 1)).conj();
  // d/dx x^0 is 0 even at x = 0 (where x^-1 is inf).
  return g.masked_fill(exponent.eq(0), 0);
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Scalar& exponent) {
  if (!exponent.isComplex() && exponent.toDouble() == 0.0) return ember::zeros_like(self);
  const Scalar minus_one = exponent.isIntegral(false) ? Scalar(exponent.toLong() - 1) : Scalar(exponent.toDouble() - 1);
  return grad * (self.pow(minus_one) * exponent).conj();
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  // 0^e has derivative 0 in e for e >= 0 (log 0 would give nan).
  Tensor g = grad * (result * self.log()).conj();
  const Tensor nonnegative = exponent.is_complex() ? ember::real(exponent).ge(0) : exponent.ge(0);
  return g.masked_fill(self.eq(0).logical_and(nonnegative), 0);
}

Tensor extremum_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max) {
  // Ties split the gradient evenly, as torch does.
  Tensor wins = (is_max ? self.gt(other) : self.lt(other)).to(grad.scalar_type());
  Tensor ties = self.eq(other).to(grad.scalar_type());
  return grad * (wins + ties * 0.5);
}

// copysign flips self's sign or keeps it: the derivative is that ratio (0 at self == 0, as torch).
Tensor copysign_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  return grad * (result / self).masked_fill(self.eq(0), 0);
}

// d/dx sin(pi x)/(pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2); 0 at x = 0.
Tensor sinc_backward(const Tensor& grad, const Tensor& self) {
  const Tensor px = self * M_PI;
  const Tensor slope = (px * px.cos() - px.sin()) / (px * self);
  return grad * slope.masked_fill(self.eq(0), 0).conj();
}

// Real inputs: the sign is flat (0). Complex ones: the derivative of z/|z|
// along the circle, (g - Re(g conj(s)) s) / |z| (0 at 0), as torch.
Tensor sgn_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  if (!self.is_complex()) return ember::zeros_like(grad);
  const Tensor magnitude = self.abs();
  const Tensor projection = grad * result.conj();  // Re(projection) = (p + conj(p)) / 2
  const Tensor along = (projection + projection.conj()) * 0.5 * result;
  return ((grad - along) / magnitude).masked_fill(magnitude.eq(0), 0);
}

// d angle = (x dy - y dx) / |z|^2; as a Wirtinger gradient that is
// grad * i z / |z|^2 (0 at 0). Real inputs: the angle is flat.
Tensor angle_backward(const Tensor& grad, const Tensor& self) {
  if (!self.is_complex()) return ember::zeros_like(grad);
  const Tensor squared = self.abs().pow(2);
  return (grad * self * c10::complex<double>(0, 1) / squared).masked_fill(squared.eq(0), 0);
}

// The real-to-half-spectrum transform is the full complex transform with the
// upper half dropped: its adjoint pads the gradient with zeros back to the
// full spectrum, transforms it back, and keeps the real part (the input was real).
Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        int64_t last_dim_size) {
  Tensor full = grad;
  if (onesided) {
    const int64_t last = c10::maybe_wrap_dim(dim.back(), grad.dim());
    std::vector<int64_t> sizes = grad.sizes().vec();
    sizes[last] = last_dim_size;
    full = ember::zeros(sizes, grad.scalar_type(), grad.device());
    ember::narrow(full, last, 0, grad.size(last)).copy_(grad);
  }
  return ember::real(ember::_fft_c2c(full, dim, normalization, false));
}

// A half-spectrum entry other than the zero and Nyquist frequencies stands
// for itself and its mirror image: its gradient counts twice.
Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization) {
  Tensor half = ember::_fft_r2c(grad, dim, normalization, true);
  const int64_t last = c10::maybe_wrap_dim(dim.back(), grad.dim());
  const int64_t mirrored = grad.size(last) - half.size(last);
  if (mirrored > 0) ember::narrow(half, last, 1, mirrored).mul_(2);
  return half;
}

// 1 / (x (1 - x)); with eps, 0 where x was clamped (outside [eps, 1 - eps]).
Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps) {
  const Tensor slope = grad / (self * (1 - self));
  if (!eps) return slope;
  return slope.masked_fill(self.lt(*eps).logical_or(self.gt(1 - *eps)), 0);
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  Tensor keep = ember::ones_like(self, ScalarType::Bool);
  if (min) keep = keep.logical_and(self.ge(*min));
  if (max) keep = keep.logical_and(self.le(*max));
  return grad * keep;
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max) {
  Tensor keep = ember::ones_like(self, ScalarType::Bool);
  if (min.defined()) keep = keep.logical_and(self.ge(min));
  if (max.defined()) keep = keep.logical_and(self.le(max));
  if (min.defined() && max.defined()) keep = keep.logical_and(min.le(max));
  return grad * keep;
}

Tensor clamp_bound_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max, bool for_min) {
  if (for_min) {
    Tensor picked = self.lt(min);
    if (max.defined()) picked = picked.logical_and(min.le(max));
    return grad * picked;
  }
  const Tensor raised = min.defined() ? self.maximum(min) : self;
  return grad * raised.gt(max);
}

Tensor div_rounding_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                             std::optional<std::string_view> rounding_mode, bool for_self) {
  // Rounded quotients are piecewise constant.
  if (rounding_mode) return ember::zeros_like(grad);
  return for_self ? grad / other : -grad * self / (other * other);
}

Tensor sum_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim) {
  const int64_t ndim = static_cast<int64_t>(input_sizes.size());
  return unsqueeze_reduced(grad, ndim, reduced_dims(ndim, dim), keepdim).expand(input_sizes);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim) {
  const int64_t ndim = static_cast<int64_t>(input_sizes.size());
  const auto reduced = reduced_dims(ndim, dim);
  int64_t count = 1;
  for (int64_t d = 0; d < ndim; ++d) {
    if (reduced[d]) count *= input_sizes[d];
  }
  return sum_backward(grad, input_sizes, dim, keepdim) / Scalar(static_cast<double>(count));
}

namespace {
// Product of every other element along the last dim, without dividing
// (zeros are fine): exclusive prefix times exclusive suffix products.
Tensor prod_of_others_last_dim(const Tensor& x) {
  const int64_t n = x.size(-1);
  if (n == 0) return x;
  std::vector<int64_t> one_shape = x.sizes().vec();
  one_shape.back() = 1;
  Tensor ones = ember::ones(one_shape, x.options());
  Tensor prefix = ember::cat({ones, x.narrow(-1, 0, n - 1)}, -1).cumprod(-1);
  Tensor reversed = flip(x, x.dim() - 1);
  Tensor suffix = flip(ember::cat({ones, reversed.narrow(-1, 0, n - 1)}, -1).cumprod(-1), x.dim() - 1);
  return prefix * suffix;
}
}  // namespace

Tensor prod_backward(const Tensor& grad, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (self.dim() == 0) return grad;
  if (!dim) {
    Tensor others = prod_of_others_last_dim(self.reshape({-1}));
    return (grad * others.conj()).reshape(self.sizes());
  }
  const int64_t d = c10::maybe_wrap_dim(*dim, self.dim());
  Tensor g = keepdim ? grad : grad.unsqueeze(d);
  Tensor others = prod_of_others_last_dim(self.movedim(d, -1)).movedim(-1, d);
  return g * others.conj();
}

Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim) {
  const int64_t ndim = self.dim();
  const auto reduced = reduced_dims(ndim, dim);
  Tensor r = unsqueeze_reduced(result, ndim, reduced, keepdim);
  Tensor g = unsqueeze_reduced(grad, ndim, reduced, keepdim);
  Tensor mask = self.eq(r).to(grad.scalar_type());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < ndim; ++d) {
    if (reduced[d]) dims.push_back(d);
  }
  Tensor count = ndim == 0 ? mask : mask.sum(dims, /*keepdim=*/true);
  return g * mask / count;
}

// d|x|_p / dx = sign(x) |x|^(p-1) / |x|_p^(p-1), and 0 where the norm is 0
// (torch's subgradient there: never the NaN of 0/0). p = inf: the entries
// that reach the norm share the gradient; p = 0: the count has none.
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p_opt, const Tensor& result,
                     IntArrayRef dim, bool keepdim) {
  const double p = p_opt ? p_opt->toDouble() : 2.0;
  if (p == 0) return ember::zeros_like(self);
  const int64_t ndim = self.dim();
  const auto reduced = reduced_dims(ndim, dim);
  const Tensor norm = unsqueeze_reduced(result, ndim, reduced, keepdim);
  const Tensor g = unsqueeze_reduced(grad, ndim, reduced, keepdim);
  if (p == 2) return self * (g / norm).masked_fill(norm.eq(0), 0);
  const Tensor magnitude = self.abs();
  const Tensor direction = self.is_complex() ? (self / magnitude).masked_fill(magnitude.eq(0), 0) : self.sign();
  if (p == 1) return direction * g;
  if (std::isinf(p)) {
    const Tensor mask = magnitude.eq(norm).to(magnitude.scalar_type());
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < ndim; ++d) {
      if (reduced[d]) dims.push_back(d);
    }
    const Tensor count = ndim == 0 ? mask : mask.sum(dims, /*keepdim=*/true);
    return direction * mask * (g / count);
  }
  Tensor scale = direction * magnitude.pow(p - 1);
  if (p < 1) scale = scale.masked_fill(magnitude.eq(0), 0);  // 0^(p-1) is inf there
  return scale * (g / norm.pow(p - 1)).masked_fill(norm.eq(0), 0);
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  Tensor mask = self.eq(result).to(grad.scalar_type());
  return mask * (grad / mask.sum());
}

Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef input_sizes,
                                bool keepdim) {
  if (input_sizes.empty()) return grad.reshape(input_sizes);
  const int64_t d = c10::maybe_wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  Tensor g = keepdim ? grad : grad.unsqueeze(d);
  Tensor idx = keepdim ? indices : indices.unsqueeze(d);
  return ember::zeros(input_sizes, grad.options()).scatter(d, idx, g);
}

// The fused kernels when no graph is being built; under create_graph the
// composition, which is differentiable again.
Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim) {
  if (result.dim() == 0) return grad * 0;
  if (!c10::GradMode::is_enabled() && grad.dtype() == result.dtype()) {
    return ember::_softmax_backward_data(grad, result, dim, result.dtype());
  }
  return (grad - (grad * result).sum(IntArrayRef({dim}), /*keepdim=*/true)) * result;
}

Tensor log_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim) {
  if (result.dim() == 0) return grad * 0;
  if (!c10::GradMode::is_enabled() && grad.dtype() == result.dtype()) {
    return ember::_log_softmax_backward_data(grad, result, dim, result.dtype());
  }
  return grad - result.exp() * grad.sum(IntArrayRef({dim}), /*keepdim=*/true);
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  const int64_t d = c10::maybe_wrap_dim(dim, grad.dim());
  return flip(flip(grad, d).cumsum(d), d);
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  if (!self.eq(0).any().item().toBool()) {
    return cumsum_backward(grad * result.conj(), d) / self.conj();
  }
  // With zeros, division is not an option: d out_j / d x_i is the product
  // of x_k for k <= j, k != i. One pass per position keeps it exact.
  const int64_t n = self.size(d);
  std::vector<Tensor> columns;
  for (int64_t i = 0; i < n; ++i) {
    Tensor replaced = self.clone();
    replaced.narrow(d, i, 1).fill_(1);
    Tensor partial = replaced.cumprod(d).narrow(d, i, n - i);
    columns.push_back((grad.narrow(d, i, n - i) * partial.conj()).sum(IntArrayRef({d}), /*keepdim=*/true));
  }
  return ember::cat(columns, d);
}

std::vector<Tensor> cat_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes, int64_t dim) {
  std::vector<Tensor> out;
  int64_t ndim = 0;
  for (const auto& s : sizes) {
    if (!(s.size() == 1 && s[0] == 0)) ndim = static_cast<int64_t>(s.size());
  }
  const int64_t d = c10::maybe_wrap_dim(dim, ndim);
  int64_t offset = 0;
  for (const auto& s : sizes) {
    if (s.size() == 1 && s[0] == 0 && ndim != 1) {  // legacy empty inputs take no part
      out.push_back(ember::zeros({0}, grad.options()));
      continue;
    }
    out.push_back(grad.narrow(d, offset, s[d]));
    offset += s[d];
  }
  return out;
}

Tensor zero_padded(const Tensor& t, IntArrayRef sizes) {
  if (t.sizes() == sizes) return t;
  Tensor out = ember::zeros(sizes, t.options());
  Tensor region = out;
  for (int64_t d = 0; d < t.dim(); ++d) region = region.narrow(d, 0, t.size(d));
  region.copy_(t);
  return out;
}

Tensor gather_to_source(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes) {
  return zero_padded(grad.gather(dim, index), src_sizes);
}

std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, std::string_view reduce,
                                                   bool include_self, const Tensor& result,
                                                   std::array<bool, 2> grad_input_mask) {
  // Only the part of src that index reaches takes part.
  Tensor used = src;
  for (int64_t d = 0; d < index.dim(); ++d) used = used.narrow(d, 0, index.size(d));
  Tensor grad_self, grad_src;
  if (reduce == "sum") {
    grad_self = grad;
    grad_src = grad.gather(dim, index);
  } else if (reduce == "mean") {
    Tensor count = include_self ? ember::ones_like(grad) : ember::zeros_like(grad);
    count = count.scatter_add(dim, index, ember::ones_like(used));
    count = count.masked_fill(count.eq(0), 1);
    grad_self = grad / count;
    grad_src = grad_self.gather(dim, index);
  } else if (reduce == "prod") {
    const Tensor self_nonzero = self.masked_fill(self.eq(0), 1);
    const Tensor others_of_self = self_nonzero.scatter_reduce(dim, index, used, "prod", include_self) / self_nonzero;
    grad_self = grad * others_of_self.conj();
    // A src value that is the only zero in its slot gets the product of the
    // others; where a slot holds two zeros every gradient there is 0.
    const Tensor src_zero = used.eq(0);
    const Tensor zeros_in_slot =
        ember::zeros_like(self).scatter_add(dim, index, src_zero.to(self.scalar_type())).gather(dim, index);
    const Tensor single_zero = ember::logical_and(src_zero, zeros_in_slot.eq(1));
    const Tensor others_of_single =
        self.scatter_reduce(dim, index, used.masked_fill(single_zero, 1), "prod", include_self).gather(dim, index);
    const Tensor others_of_src = result.gather(dim, index) / used.masked_fill(src_zero, 1);
    grad_src = grad.gather(dim, index) * ember::where(single_zero, others_of_single, others_of_src).conj();
    // Where two zeros share a slot the formula above is right but its own
    // derivative is not (it treats the product of the others as 0), so a
    // second differentiation raises there instead of answering wrongly, as torch's does.
    if (c10::GradMode::is_enabled() && grad_src.requires_grad() && zeros_in_slot.gt(1).any().item<bool>()) {
      Tensor guarded = grad_src.detach();
      impl::set_history(guarded, std::make_shared<ErrorNode>("scatter_reduce(): Double backward is unsupported for src "
                                                       "when >1 zeros in src are scattered to the same position in "
                                                       "self", impl::collect_next_edges(grad_src)));
      grad_src = guarded;
    }
  } else {  // amax, amin (also spelled max, min)
    Tensor self_is_result = self.eq(result).to(grad.scalar_type());
    if (!include_self) self_is_result = self_is_result.scatter(dim, index, 0);
    const Tensor src_is_result = used.eq(result.gather(dim, index)).to(grad.scalar_type());
    const Tensor share = grad / self_is_result.scatter_add(dim, index, src_is_result);
    grad_self = self_is_result * share;
    grad_src = src_is_result * share.gather(dim, index);
  }
  if (!include_self) grad_self = grad_self.scatter(dim, index, 0);
  return {grad_input_mask[0] ? grad_self : Tensor(),
          grad_input_mask[1] ? zero_padded(grad_src, src.sizes()) : Tensor()};
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index) {
  if (input_sizes.empty()) return ember::zeros(input_sizes, grad.options()) + grad.sum();
  const int64_t d = c10::maybe_wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  std::vector<int64_t> shape(grad.dim(), 1);
  shape[d] = -1;
  Tensor idx = index.reshape(shape).expand(grad.sizes());
  return ember::zeros(input_sizes, grad.options()).scatter_add(d, idx, grad);
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, IntArrayRef weight_sizes, int64_t padding_idx,
                          bool scale_grad_by_freq, bool sparse) {
  const Tensor flat = indices.reshape({-1});
  Tensor rows = grad.reshape({flat.numel(), weight_sizes[1]});
  if (scale_grad_by_freq) {
    const Tensor counts = ember::zeros({weight_sizes[0]}, grad.options())
                              .index_put_({flat}, ember::ones({flat.numel()}, grad.options()), /*accumulate=*/true);
    rows = rows / counts.index_select(0, flat).unsqueeze(1);
  }
  if (sparse) return embedding_sparse_backward(rows, flat, weight_sizes, padding_idx);
  if (padding_idx >= 0) rows = rows.masked_fill(flat.eq(padding_idx).unsqueeze(1), 0);
  return ember::zeros(weight_sizes, grad.options()).index_put_({flat}, rows, /*accumulate=*/true);
}

Tensor index_backward(const Tensor& grad, IntArrayRef input_sizes, const std::vector<std::optional<Tensor>>& indices) {
  return ember::zeros(input_sizes, grad.options()).index_put_(indices, grad, /*accumulate=*/true);
}

}  // namespace ember::autograd::manual
