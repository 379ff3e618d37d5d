// Backward formulas of convolution and pooling: pooling's composed from
// operators (scatter_add over window positions) so that it is differentiable
// again; convolution's from its own operator, or its composite
// (aten/native/ConvolutionBackward.cpp) when the graph is to be
// differentiated again.

#include <autograd/FunctionsManual.h>

#include <aten/generated/NativeFunctions.h>

#include <c10/core/GradMode.h>

#include <limits>

namespace ember::autograd::manual {

namespace {
TensorOptions long_options() { return TensorOptions().dtype(ScalarType::Long); }

int64_t at(IntArrayRef v, size_t i) { return v.size() == 1 ? v[0] : v[i]; }

// For pooling: where, in the (padded, possibly ceil-extended) input plane
// of Hp x Wp elements, each element of each window sits.
struct Windows {
  int64_t H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, Hp, Wp;
  Tensor places;  // [OH*OW, kh*kw] flat positions in the Hp x Wp plane

  Windows(int64_t H_, int64_t W_, int64_t OH_, int64_t OW_, IntArrayRef kernel, IntArrayRef stride,
          IntArrayRef padding, IntArrayRef dilation)
      : H(H_), W(W_), OH(OH_), OW(OW_) {
    kh = at(kernel, 0);
    kw = at(kernel, 1);
    sh = stride.empty() ? kh : at(stride, 0);
    sw = stride.empty() ? kw : at(stride, 1);
    ph = at(padding, 0);
    pw = at(padding, 1);
    dh = dilation.empty() ? 1 : at(dilation, 0);
    dw = dilation.empty() ? 1 : at(dilation, 1);
    Hp = std::max(H + 2 * ph, (OH - 1) * sh + dh * (kh - 1) + 1);
    Wp = std::max(W + 2 * pw, (OW - 1) * sw + dw * (kw - 1) + 1);
    places = ember::arange(Hp * Wp, long_options())
                 .as_strided({OH, OW, kh, kw}, {sh * Wp, sw, dh * Wp, dw}, 0)
                 .reshape({OH * OW, kh * kw});
  }

  // Adds per-window-element gradients [N, C, OH*OW, kh*kw] at `positions`
  // (same shape) into the input plane, then drops the padding.
  Tensor scatter_back(const Tensor& values, const Tensor& positions, int64_t N, int64_t C) const {
    Tensor plane = ember::zeros({N, C, Hp * Wp}, values.options())
                       .scatter_add(2, positions.reshape({N, C, -1}), values.reshape({N, C, -1}));
    return plane.view({N, C, Hp, Wp}).narrow(2, ph, H).narrow(3, pw, W);
  }
};
}  // namespace

std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                   int64_t groups, std::array<bool, 3> mask) {
  if (!c10::GradMode::is_enabled()) {
    return ember::_conv2d_backward(grad, input, weight, stride, padding, dilation, groups, mask);
  }
  // create_graph: the composite of forward convolutions, differentiable again.
  return ember::native::conv2d_backward_composite(grad, input, weight, stride, padding, dilation, groups, mask);
}

// The positions of the maxima are a constant of the gradient: found again
// (without history), then the gradient goes back to them.
Tensor max_pool2d_backward(const Tensor& grad, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  Tensor indices;
  {
    c10::NoGradGuard no_grad;
    indices = std::get<1>(ember::max_pool2d_with_indices(self.detach(), kernel_size, stride, padding, dilation, ceil_mode));
  }
  return ember::max_pool2d_with_indices_backward(grad, self, kernel_size, stride, padding, dilation, ceil_mode, indices);
}

Tensor avg_pool2d_backward(const Tensor& grad_, const Tensor& self_, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  const bool unbatched = self_.dim() == 3;
  Tensor self = unbatched ? self_.unsqueeze(0) : self_;
  Tensor grad = unbatched ? grad_.unsqueeze(0) : grad_;
  const int64_t N = self.size(0), C = self.size(1);
  Windows win(self.size(2), self.size(3), grad.size(2), grad.size(3), kernel_size, stride, padding, {});
  const int64_t cells = win.OH * win.OW, taps = win.kh * win.kw;
  Tensor divisor;
  if (divisor_override) {
    divisor = ember::full({cells, 1}, static_cast<double>(*divisor_override), grad.options());
  } else {
    // Window elements that count: inside the padded input, or inside the
    // input proper; never the extension ceil_mode adds.
    Tensor counted = ember::zeros({win.Hp, win.Wp}, grad.options());
    if (count_include_pad) {
      counted.narrow(0, 0, win.H + 2 * win.ph).narrow(1, 0, win.W + 2 * win.pw).fill_(1);
    } else {
      counted.narrow(0, win.ph, win.H).narrow(1, win.pw, win.W).fill_(1);
    }
    divisor = counted.reshape({-1}).index_select(0, win.places.reshape({-1})).reshape({cells, taps}).sum(IntArrayRef({1}), true);
  }
  Tensor share = (grad.reshape({N, C, cells, 1}) / divisor).expand({N, C, cells, taps});
  Tensor positions = win.places.expand({N, C, cells, taps});
  Tensor result = win.scatter_back(share, positions, N, C);
  (void)ceil_mode;
  return unbatched ? result.squeeze(0) : result;
}

Tensor cross_entropy_rows_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                   const Tensor& logsumexp, int64_t reduction, int64_t ignore_index) {
  if (!c10::GradMode::is_enabled()) {
    return ember::_cross_entropy_rows_backward(grad, self, target, logsumexp, reduction, ignore_index);
  }
  const Tensor kept = ember::ne(target, ember::scalar_tensor(ignore_index, target.options()));
  const Tensor safe_target = ember::where(kept, target, ember::zeros_like(target));
  const Tensor one_hot = ember::zeros_like(self).scatter(1, safe_target.unsqueeze(1), 1.0);
  Tensor scale = ember::mul(kept.to(self.dtype()), reduction == 0 ? grad : grad.reshape({}));
  if (reduction == 1) scale = ember::div(scale, kept.sum().to(self.dtype()));
  return ember::mul(ember::sub(ember::softmax(self, 1), one_hot), scale.unsqueeze(1));
}

std::tuple<Tensor, Tensor, Tensor> flash_attention_backward(const Tensor& grad, const Tensor& query,
                                                            const Tensor& key, const Tensor& value,
                                                            const Tensor& output, const Tensor& logsumexp,
                                                            double dropout_p, bool is_causal,
                                                            const std::optional<Tensor>& attn_mask,
                                                            std::optional<double> scale) {
  if (!c10::GradMode::is_enabled()) {
    return ember::_scaled_dot_product_flash_attention_for_cpu_backward(grad, query, key, value, output, logsumexp,
                                                                       dropout_p, is_causal, attn_mask, scale);
  }
  const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  const double inf = std::numeric_limits<double>::infinity();
  Tensor scores = ember::mul(ember::matmul(query, key.transpose(-2, -1)), s);
  if (attn_mask && attn_mask->defined()) {
    scores = attn_mask->dtype() == ScalarType::Bool ? scores.masked_fill(attn_mask->logical_not(), -inf)
                                                    : ember::add(scores, *attn_mask);
  }
  if (is_causal) {
    const Tensor visible = ember::ones({query.size(-2), key.size(-2)}, ScalarType::Bool, query.device()).tril();
    scores = scores.masked_fill(visible.logical_not(), -inf);
  }
  const Tensor p = ember::_safe_softmax(scores, -1);
  const Tensor grad_value = ember::matmul(p.transpose(-2, -1), grad);
  const Tensor dp = ember::matmul(grad, value.transpose(-2, -1));
  const Tensor ds = ember::mul(p, ember::sub(dp, ember::mul(dp, p).sum(IntArrayRef({-1}), true)));
  return {ember::mul(ember::matmul(ds, key), s), ember::mul(ember::matmul(ds.transpose(-2, -1), query), s),
          grad_value};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& input,
                                                       IntArrayRef normalized_shape, const Tensor& mean,
                                                       const Tensor& rstd, const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& bias, double eps,
                                                       std::array<bool, 3> mask) {
  if (!c10::GradMode::is_enabled()) {
    return ember::native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight, bias, mask);
  }
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  std::vector<int64_t> normalized_dims, batch_dims;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? batch_dims : normalized_dims).push_back(d);
  const Tensor mu = input.mean(normalized_dims, true);
  const Tensor inv = (input.var(normalized_dims, Scalar(0), true) + eps).rsqrt();
  const Tensor xhat = (input - mu) * inv;
  const bool has_weight = weight && weight->defined();
  // Sums over the batch dims; with none, the per-element values themselves.
  auto batch_sum = [&](const Tensor& t) { return batch_dims.empty() ? t : t.sum(batch_dims); };
  Tensor dx, dw, db;
  if (mask[0]) {
    const Tensor g = has_weight ? grad * *weight : grad;
    dx = inv * (g - g.mean(normalized_dims, true) - xhat * (g * xhat).mean(normalized_dims, true));
  }
  if (mask[1] && has_weight) dw = batch_sum(grad * xhat);
  if (mask[2] && bias && bias->defined()) db = batch_sum(grad);
  return {dx, dw, db};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input,
                                                       const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& running_mean,
                                                       const std::optional<Tensor>& running_var,
                                                       const Tensor& save_mean, const Tensor& save_invstd,
                                                       bool training, double eps, std::array<bool, 3> mask) {
  if (!c10::GradMode::is_enabled()) {
    return ember::native_batch_norm_backward(grad, input, weight, running_mean, running_var, save_mean, save_invstd,
                                             training, eps, mask);
  }
  // create_graph: the same gradient composed of differentiable operators,
  // with the batch statistics recomputed from input.
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  std::vector<int64_t> channel_shape(input.dim(), 1);
  channel_shape[1] = input.size(1);
  const bool has_weight = weight && weight->defined();
  Tensor mu, inv;
  if (training) {
    mu = input.mean(dims, true);
    inv = (input.var(dims, Scalar(0), true) + eps).rsqrt();
  } else {
    mu = running_mean->reshape(channel_shape);
    inv = (running_var->reshape(channel_shape) + eps).rsqrt();
  }
  const Tensor xhat = (input - mu) * inv;
  Tensor dx, dw, db;
  if (mask[0]) {
    const Tensor g = has_weight ? grad * weight->reshape(channel_shape) : grad;
    dx = training ? inv * (g - g.mean(dims, true) - xhat * (g * xhat).mean(dims, true)) : g * inv;
  }
  if (mask[1] && has_weight) dw = (grad * xhat).sum(dims);
  if (mask[2]) db = grad.sum(dims);
  return {dx, dw, db};
}

}  // namespace ember::autograd::manual
