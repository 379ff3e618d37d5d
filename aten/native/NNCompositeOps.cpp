// nn functions written as compositions of other operators (autograd
// differentiates through them): conv1d, conv_transpose2d, group_norm,
// bilinear and adaptive_avg_pool2d. They live here rather than in the Python frontend so
// that Python's ember.nn.functional and the C++ frontend run the same code.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/SameDevice.h>
#include <c10/util/Exception.h>

#include <array>
#include <vector>

namespace ember::native {

namespace {
// The composites' dtype check, naming them rather than the op inside that
// would refuse the dtype.
void check_floating(const Tensor& t, const char* name, bool complex_too) {
  const ScalarType type = t.scalar_type();
  EMBER_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(type) || (complex_too && c10::isComplexType(type)),
                              "\"{}\" not implemented for '{}'", name, c10::toString(type));
}

int64_t single(IntArrayRef values, const char* name) {
  EMBER_CHECK(values.size() == 1, "conv1d: expected {} to be a single integer value or a list of 1 values", name);
  return values[0];
}
}  // namespace

// A 1-d convolution is a 2-d one over rows of height 1.
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3,
              "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: {}",
              c10::str_sizes(input.sizes()));
  check_floating(input, "conv1d", true);
  check_same_device("conv1d", input, weight);
  if (bias && bias->defined()) check_same_device("conv1d", input, *bias);
  EMBER_CHECK(weight.dim() == 3, "conv1d: weight should be 3-D [out_channels, in_channels/groups, kW], got {}",
              c10::str_sizes(weight.sizes()));
  const int64_t s = single(stride, "stride"), p = single(padding, "padding"), d = single(dilation, "dilation");
  return ember::conv2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, {1, s}, {0, p}, {1, d}, groups).squeeze(-2);
}

namespace {
std::array<int64_t, 2> pair_of(IntArrayRef values, const char* name) {
  EMBER_CHECK(values.size() == 1 || values.size() == 2,
              "conv_transpose2d: {} must be an int or a tuple of 2 ints, got {} values", name, values.size());
  return {values[0], values.back()};
}

// stride - 1 zeros between neighbours along dim (the input dilation of a
// transposed convolution): stack with zeros, then flatten the pair.
Tensor zero_insert(const Tensor& x, int64_t dim, int64_t stride) {
  if (stride == 1) return x;
  std::vector<int64_t> zeros_shape = x.sizes().vec();
  zeros_shape.insert(zeros_shape.begin() + dim + 1, stride - 1);
  const Tensor spaced = ember::cat({x.unsqueeze(dim + 1), ember::zeros(zeros_shape, x.dtype(), x.device())}, dim + 1);
  std::vector<int64_t> shape = x.sizes().vec();
  shape[dim] *= stride;
  return spaced.reshape(shape).narrow(dim, 0, (x.size(dim) - 1) * stride + 1);
}
}  // namespace

// The adjoint of conv2d: the input zero-inserted by stride, padded by
// dilation (k - 1) - padding (plus output_padding on the right, negative
// pads crop), convolved with the kernel flipped and its in/out channels
// swapped per group.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride_, IntArrayRef padding_, IntArrayRef output_padding_, int64_t groups,
                        IntArrayRef dilation_) {
  check_floating(input, "conv_transpose2d", true);
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
              "conv_transpose2d: expected a 3D (unbatched) or 4D (batched) input, but got an input of size {}",
              c10::str_sizes(input.sizes()));
  EMBER_CHECK(weight.dim() == 4, "conv_transpose2d: expected a 4D weight, but got size {}",
              c10::str_sizes(weight.sizes()));
  check_same_device("conv_transpose2d", input, weight);
  if (bias && bias->defined()) check_same_device("conv_transpose2d", input, *bias);
  const bool unbatched = input.dim() == 3;
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  const auto stride = pair_of(stride_, "stride"), padding = pair_of(padding_, "padding");
  const auto output_padding = pair_of(output_padding_, "output_padding"), dilation = pair_of(dilation_, "dilation");
  const int64_t in_channels = weight.size(0), group_out = weight.size(1), kh = weight.size(2), kw = weight.size(3);
  EMBER_CHECK(groups > 0 && in_channels % groups == 0 && x.size(1) == in_channels,
              "conv_transpose2d: expected input with {} channels (weight {}, groups={}), but got an input of size {}",
              in_channels, c10::str_sizes(weight.sizes()), groups, c10::str_sizes(x.sizes()));
  for (int i = 0; i < 2; ++i) {
    EMBER_CHECK(stride[i] > 0 && dilation[i] > 0 && padding[i] >= 0,
                "conv_transpose2d: stride and dilation must be positive and padding non-negative");
    EMBER_CHECK(output_padding[i] < std::max(stride[i], dilation[i]),
                "conv_transpose2d: output padding must be smaller than either stride or dilation, but got "
                "output_padding={}, stride={}, dilation={}",
                output_padding[i], stride[i], dilation[i]);
  }
  // (Cin, Cout/g, kh, kw) -> (Cout, Cin/g, kh, kw), flipped in both spatial dims.
  const Tensor w = weight.reshape({groups, in_channels / groups, group_out, kh, kw})
                       .transpose(1, 2)
                       .reshape({groups * group_out, in_channels / groups, kh, kw})
                       .flip({2, 3});
  x = zero_insert(zero_insert(x, 2, stride[0]), 3, stride[1]);
  const int64_t ph = dilation[0] * (kh - 1) - padding[0], pw = dilation[1] * (kw - 1) - padding[1];
  x = ember::constant_pad_nd(x, {pw, pw + output_padding[1], ph, ph + output_padding[0]}, 0);
  const Tensor out = ember::conv2d(x, w, bias, {1, 1}, {0, 0}, {dilation[0], dilation[1]}, groups);
  return unbatched ? out.squeeze(0) : out;
}

// Each sample's channels in num_groups groups, normalized by the group's
// mean and biased variance, then scaled and shifted per channel.
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enabled) {
  EMBER_CHECK(input.dim() >= 2, "Expected at least 2 dimensions for input tensor but received {}", input.dim());
  check_floating(input, "group_norm", false);
  EMBER_CHECK(num_groups > 0, "group_norm: num_groups must be positive, got {}", num_groups);
  const int64_t n = input.size(0), c = input.size(1);
  EMBER_CHECK(c % num_groups == 0,
              "Expected number of channels in input to be divisible by num_groups, but got input of shape {} and "
              "num_groups={}",
              c10::str_sizes(input.sizes()), num_groups);
  for (const auto* t : {&weight, &bias}) {
    if (*t && (*t)->defined()) check_same_device("group_norm", input, **t);
    EMBER_CHECK(!*t || !(*t)->defined() || ((*t)->dim() == 1 && (*t)->size(0) == c),
                "group_norm: expected weight and bias of {} elements (one per channel), got {}", c,
                c10::str_sizes((*t)->sizes()));
  }
  int64_t group_size = c / num_groups;  // explicit, so that an empty batch reshapes too
  for (int64_t d = 2; d < input.dim(); ++d) group_size *= input.size(d);
  const Tensor x = input.reshape({n, num_groups, group_size});
  const Tensor mean = x.mean(IntArrayRef({-1}), true);
  const Tensor var = ember::var(x, IntArrayRef({-1}), std::optional<Scalar>(0), true);
  Tensor out = ((x - mean) * ember::rsqrt(var + eps)).reshape(input.sizes());
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = c;
  if (weight && weight->defined()) out = out * weight->reshape(shape);
  if (bias && bias->defined()) out = out + bias->reshape(shape);
  return out;
}

// y = x1^T A x2 + b for weight A of shape (out, in1, in2), over leading dims.
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const std::optional<Tensor>& bias) {
  check_floating(input1, "bilinear", true);
  check_floating(input2, "bilinear", true);
  check_same_device("bilinear", input1, input2);
  check_same_device("bilinear", input1, weight);
  if (bias && bias->defined()) check_same_device("bilinear", input1, *bias);
  EMBER_CHECK(weight.dim() == 3, "bilinear(): weight must be 3-D (out, in1, in2), got {}",
              c10::str_sizes(weight.sizes()));
  EMBER_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got {} and {}", input1.dim(),
              input2.dim());
  EMBER_CHECK(input1.dim() > 0 && input1.size(-1) == weight.size(1),
              "bilinear(): input1 size does not match weight size: got {} but expected {}",
              input1.dim() > 0 ? input1.size(-1) : 0, weight.size(1));
  EMBER_CHECK(input2.size(-1) == weight.size(2),
              "bilinear(): input2 size does not match weight size: got {} but expected {}", input2.size(-1),
              weight.size(2));
  // (..., 1, 1, in1) @ (out, in1, in2) -> (..., out, 1, in2), then contracted with x2.
  const Tensor tmp = ember::matmul(input1.unsqueeze(-2).unsqueeze(-2), weight);
  Tensor out = (tmp * input2.unsqueeze(-2).unsqueeze(-2)).sum(IntArrayRef({-1})).squeeze(-1);
  if (bias && bias->defined()) out = out + *bias;
  return out;
}

namespace {
// The window of adaptive pooling's output cell i: [floor(i size / out),
// ceil((i + 1) size / out)).
std::pair<int64_t, int64_t> adaptive_window(int64_t size, int64_t out, int64_t i) {
  const int64_t start = (i * size) / out;
  const int64_t end = ((i + 1) * size + out - 1) / out;
  return {start, end - start};
}
}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  EMBER_CHECK_VALUE(self.dim() == 3 || self.dim() == 4, "adaptive_avg_pool2d: expected a 3D or 4D input, got {}D",
                    self.dim());
  EMBER_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  check_floating(self, "adaptive_avg_pool2d", false);
  const int64_t h = self.size(-2), w = self.size(-1), oh = output_size[0], ow = output_size[1];
  EMBER_CHECK(oh >= 0 && ow >= 0,
              "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{}, {}}}",
              oh, ow);
  if (oh == 0 || ow == 0) {
    std::vector<int64_t> shape = self.sizes().vec();
    shape[shape.size() - 2] = oh;
    shape[shape.size() - 1] = ow;
    return ember::empty(shape, self.dtype(), self.device());
  }
  if (oh == 1 && ow == 1) return self.mean(IntArrayRef({-2, -1}), true);
  if (h % oh == 0 && w % ow == 0) return ember::avg_pool2d(self, {h / oh, w / ow});
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < oh; ++i) {
    const auto [hs, hl] = adaptive_window(h, oh, i);
    const Tensor band = self.narrow(-2, hs, hl);
    std::vector<Tensor> cols;
    for (int64_t j = 0; j < ow; ++j) {
      const auto [ws, wl] = adaptive_window(w, ow, j);
      cols.push_back(band.narrow(-1, ws, wl).mean(IntArrayRef({-2, -1}), true));
    }
    rows.push_back(ember::cat(cols, -1));
  }
  return ember::cat(rows, -2);
}

}  // namespace ember::native
