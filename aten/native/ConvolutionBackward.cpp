// conv2d's gradients composed of forward convolutions, for every backend
// and dtype, and differentiable again (double backward goes through it).
// CPU float32 has oneDNN's backward primitives instead (Convolution.cpp).

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>

namespace ember::native {

namespace {

// Pads (positive) or crops (negative) `t` along `dim`, before and after.
Tensor pad_or_crop(const Tensor& t, int64_t dim, int64_t before, int64_t after) {
  Tensor out = t;
  if (before < 0) out = out.narrow(dim, -before, out.size(dim) + before);
  if (after < 0) out = out.narrow(dim, 0, out.size(dim) + after);
  const int64_t pb = std::max<int64_t>(before, 0), pa = std::max<int64_t>(after, 0);
  if (pb == 0 && pa == 0) return out;
  std::vector<int64_t> shape = out.sizes().vec();
  shape[dim] += pb + pa;
  Tensor padded = ember::zeros(shape, out.options());
  padded.narrow(dim, pb, out.size(dim)).copy_(out);
  return padded;
}

int64_t at(IntArrayRef v, size_t i) { return v.size() == 1 ? v[0] : v[i]; }

}  // namespace

std::tuple<Tensor, Tensor, Tensor> conv2d_backward_composite(const Tensor& grad_, const Tensor& input_,
                                                             const Tensor& weight, IntArrayRef stride,
                                                             IntArrayRef padding, IntArrayRef dilation, int64_t groups,
                                                             std::array<bool, 3> mask) {
  const bool unbatched = input_.dim() == 3;
  // Complex: conv2d is bilinear, so each gradient pairs grad with the other
  // operand conjugated (Wirtinger convention).
  const bool complex = input_.is_complex();
  Tensor input = unbatched ? input_.unsqueeze(0) : input_;
  if (complex) input = input.conj();
  Tensor grad = unbatched ? grad_.unsqueeze(0) : grad_;
  const int64_t N = input.size(0), H = input.size(2), W = input.size(3);
  const int64_t O = weight.size(0), Cg = weight.size(1), KH = weight.size(2), KW = weight.size(3);
  const int64_t OH = grad.size(2), OW = grad.size(3), G = groups, Og = O / G;
  const int64_t s[2] = {at(stride, 0), at(stride, 1)};
  const int64_t p[2] = {at(padding, 0), at(padding, 1)};
  const int64_t d[2] = {at(dilation, 0), at(dilation, 1)};
  const int64_t k[2] = {KH, KW};
  const int64_t in[2] = {H, W};
  Tensor grad_input, grad_weight, grad_bias;

  if (mask[0]) {
    // The transposed convolution: spread grad by the stride, pad it for a
    // full correlation, convolve with the flipped, in/out-swapped kernel.
    Tensor g = grad;
    if (s[0] > 1 || s[1] > 1) {
      g = ember::zeros({N, O, (OH - 1) * s[0] + 1, (OW - 1) * s[1] + 1}, grad.options());
      g.slice(2, 0, std::nullopt, s[0]).slice(3, 0, std::nullopt, s[1]).copy_(grad);
    }
    for (int i = 0; i < 2; ++i) {
      // Left: a full correlation less the forward padding. Right: whatever
      // makes the result as long as the input (rows past the last window
      // get zero gradient; the input has them even if no window reached).
      const int64_t left = d[i] * (k[i] - 1) - p[i];
      const int64_t right = in[i] - g.size(2 + i) - left + d[i] * (k[i] - 1);
      g = pad_or_crop(g, 2 + i, left, right);
    }
    Tensor w = ember::flip(complex ? weight.conj() : weight, {2, 3}).reshape({G, Og, Cg, KH, KW}).transpose(1, 2).reshape({G * Cg, Og, KH, KW});
    grad_input = ember::conv2d(g, w, std::nullopt, {1, 1}, {0, 0}, {d[0], d[1]}, G);
    if (unbatched) grad_input = grad_input.squeeze(0);
  }
  if (mask[1]) {
    // Correlating the input with grad (batch as channels) gives the kernel's
    // gradient; the forward dilation becomes the stride and vice versa.
    std::vector<Tensor> per_group;
    for (int64_t gi = 0; gi < G; ++gi) {
      Tensor x = input.narrow(1, gi * Cg, Cg).transpose(0, 1);
      Tensor gg = grad.narrow(1, gi * Og, Og).transpose(0, 1);
      Tensor full = ember::conv2d(x, gg, std::nullopt, {d[0], d[1]}, {p[0], p[1]}, {s[0], s[1]}, 1);
      per_group.push_back(full.narrow(2, 0, KH).narrow(3, 0, KW).transpose(0, 1));
    }
    grad_weight = G == 1 ? per_group[0].contiguous() : ember::cat(per_group, 0);
  }
  if (mask[2]) grad_bias = grad.sum(IntArrayRef({0, 2, 3}));
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace ember::native
