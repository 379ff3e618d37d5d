// conv2d, max_pool2d and avg_pool2d on oneDNN (float32). oneDNN picks its
// preferred (blocked) memory layouts; we reorder NCHW tensors in and out.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>

#include <oneapi/dnnl/dnnl.hpp>

namespace ember::native {

namespace {

using dnnl::memory;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

memory::dims dims_of(IntArrayRef sizes) { return memory::dims(sizes.begin(), sizes.end()); }

// A pair like stride=2 or padding=[1, 2]; PyTorch accepts one value for both.
std::array<int64_t, 2> pair(IntArrayRef v, const char* name, int64_t fallback) {
  if (v.empty()) return {fallback, fallback};
  EMBER_CHECK(v.size() == 1 || v.size() == 2, "{} must be an int or a pair of ints", name);
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

int64_t out_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, bool ceil_mode) {
  const int64_t span = dilation * (kernel - 1) + 1;
  int64_t numerator = in + 2 * pad - span;
  int64_t out = (ceil_mode ? (numerator + stride - 1) / stride : numerator / stride) + 1;
  // The last window must start inside the input (or its left padding), as in torch.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

void check_float(const Tensor& t, const char* name) {
  EMBER_CHECK_NOT_IMPLEMENTED(t.dtype() == ScalarType::Float, "\"{}\" not implemented for '{}' (oneDNN path: float32)",
                              name, c10::toString(t.dtype()));
}

// Runs a primitive whose src/dst may want other layouts than plain NCHW.
memory to_layout(memory user, const memory::desc& wanted, dnnl::stream& s) {
  if (user.get_desc() == wanted) return user;
  memory converted(wanted, cpu_engine());
  dnnl::reorder(user, converted).execute(s, user, converted);
  return converted;
}

}  // namespace

Tensor conv2d(const Tensor& input_, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride_,
              IntArrayRef padding_, IntArrayRef dilation_, int64_t groups) {
  const bool batched = input_.dim() == 4;
  EMBER_CHECK(input_.dim() == 3 || input_.dim() == 4,
              "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: {}",
              c10::str_sizes(input_.sizes()));
  const Tensor input = batched ? input_ : input_.unsqueeze(0);
  EMBER_CHECK(weight.dim() == 4, "conv2d: weight should be 4-D [out_channels, in_channels/groups, kH, kW], got {}",
              c10::str_sizes(weight.sizes()));
  EMBER_CHECK(groups > 0, "non-positive groups is not supported");
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t oc = weight.size(0), kh = weight.size(2), kw = weight.size(3);
  EMBER_CHECK(c == weight.size(1) * groups,
              "Given groups={}, weight of size {}, expected input{} to have {} channels, but got {} channels instead",
              groups, c10::str_sizes(weight.sizes()), c10::str_sizes(input.sizes()), weight.size(1) * groups, c);
  EMBER_CHECK(oc % groups == 0, "out_channels must be divisible by groups");
  const auto stride = pair(stride_, "stride", 1), padding = pair(padding_, "padding", 0),
             dilation = pair(dilation_, "dilation", 1);
  const int64_t oh = out_size(h, kh, stride[0], padding[0], dilation[0], false);
  const int64_t ow = out_size(w, kw, stride[1], padding[1], dilation[1], false);
  EMBER_CHECK(oh > 0 && ow > 0,
              "Calculated padded input size per channel: ({} x {}). Kernel size: ({} x {}). Kernel size can't be "
              "greater than actual input size",
              h + 2 * padding[0], w + 2 * padding[1], kh, kw);
  Tensor out = ember::empty({n, oc, oh, ow}, input.dtype(), input.device());
  if (input.is_meta()) return batched ? out : out.squeeze(0);
  check_float(input, "conv2d");
  check_float(weight, "conv2d");

  const Tensor x = input.contiguous(), wt = weight.contiguous();
  const auto f32 = memory::data_type::f32;
  const memory::dims src_dims{n, c, h, w}, dst_dims{n, oc, oh, ow};
  const memory::dims wei_dims = groups == 1 ? memory::dims{oc, c, kh, kw}
                                            : memory::dims{groups, oc / groups, c / groups, kh, kw};
  const memory::dims strides{stride[0], stride[1]}, pads{padding[0], padding[1]},
      dilates{dilation[0] - 1, dilation[1] - 1};
  const auto any = memory::format_tag::any;
  const memory::desc src_md(src_dims, f32, any), wei_md(wei_dims, f32, any), dst_md(dst_dims, f32, any);
  const bool has_bias = bias && bias->defined();
  const memory::desc bias_md = has_bias ? memory::desc({oc}, f32, memory::format_tag::x) : memory::desc();
  const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                              src_md, wei_md, bias_md, dst_md, strides, dilates, pads, pads);
  const dnnl::convolution_forward::primitive_desc pd(desc, cpu_engine());

  dnnl::stream s(cpu_engine());
  const memory user_src({src_dims, f32, memory::format_tag::nchw}, cpu_engine(), x.data_ptr());
  const memory user_wei({wei_dims, f32, groups == 1 ? memory::format_tag::oihw : memory::format_tag::goihw},
                        cpu_engine(), wt.data_ptr());
  memory user_dst({dst_dims, f32, memory::format_tag::nchw}, cpu_engine(), out.data_ptr());
  const memory src = to_layout(user_src, pd.src_desc(), s);
  const memory wei = to_layout(user_wei, pd.weights_desc(), s);
  memory dst = pd.dst_desc() == user_dst.get_desc() ? user_dst : memory(pd.dst_desc(), cpu_engine());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
  Tensor b;
  if (has_bias) {
    check_float(*bias, "conv2d");
    b = bias->contiguous();
    args.emplace(DNNL_ARG_BIAS, memory(bias_md, cpu_engine(), b.data_ptr()));
  }
  dnnl::convolution_forward(pd).execute(s, args);
  if (dst != user_dst) dnnl::reorder(dst, user_dst).execute(s, dst, user_dst);
  s.wait();
  return batched ? out : out.squeeze(0);
}

namespace {

Tensor pool2d(const Tensor& self_, IntArrayRef kernel_size, IntArrayRef stride_, IntArrayRef padding_, bool ceil_mode,
              dnnl::algorithm algorithm, const char* name) {
  const bool batched = self_.dim() == 4;
  EMBER_CHECK(self_.dim() == 3 || self_.dim() == 4, "{}: Expected 3D or 4D (batch mode) tensor for input, got {}", name,
              c10::str_sizes(self_.sizes()));
  const Tensor self = batched ? self_ : self_.unsqueeze(0);
  const auto kernel = pair(kernel_size, "kernel_size", 1);
  const auto stride = pair(stride_, "stride", -1), padding = pair(padding_, "padding", 0);
  const std::array<int64_t, 2> s2{stride[0] < 0 ? kernel[0] : stride[0], stride[1] < 0 ? kernel[1] : stride[1]};
  EMBER_CHECK(padding[0] * 2 <= kernel[0] && padding[1] * 2 <= kernel[1],
              "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation=1",
              padding[0], kernel[0]);
  const int64_t n = self.size(0), c = self.size(1), h = self.size(2), w = self.size(3);
  const int64_t oh = out_size(h, kernel[0], s2[0], padding[0], 1, ceil_mode);
  const int64_t ow = out_size(w, kernel[1], s2[1], padding[1], 1, ceil_mode);
  EMBER_CHECK(oh > 0 && ow > 0, "{}: output size is too small ({}x{})", name, oh, ow);
  Tensor out = ember::empty({n, c, oh, ow}, self.dtype(), self.device());
  if (self.is_meta()) return batched ? out : out.squeeze(0);
  check_float(self, name);
  const Tensor x = self.contiguous();
  const auto f32 = memory::data_type::f32;
  const memory::dims src_dims{n, c, h, w}, dst_dims{n, c, oh, ow};
  // ceil_mode: extra right padding so the last partial window exists.
  const memory::dims pad_l{padding[0], padding[1]},
      pad_r{(oh - 1) * s2[0] + kernel[0] - h - padding[0], (ow - 1) * s2[1] + kernel[1] - w - padding[1]};
  const memory::desc src_md(src_dims, f32, memory::format_tag::nchw), dst_md(dst_dims, f32, memory::format_tag::nchw);
  const dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, src_md, dst_md,
                                          {s2[0], s2[1]}, {kernel[0], kernel[1]}, pad_l, pad_r);
  const dnnl::pooling_forward::primitive_desc pd(desc, cpu_engine());
  dnnl::stream s(cpu_engine());
  memory src(src_md, cpu_engine(), x.data_ptr()), dst(dst_md, cpu_engine(), out.data_ptr());
  dnnl::pooling_forward(pd).execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  s.wait();
  return batched ? out : out.squeeze(0);
}

}  // namespace

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  for (int64_t d : dilation)
    EMBER_CHECK_NOT_IMPLEMENTED(d == 1, "max_pool2d: dilation other than 1 is not supported yet");
  return pool2d(self, kernel_size, stride, padding, ceil_mode, dnnl::algorithm::pooling_max, "max_pool2d");
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_CHECK_NOT_IMPLEMENTED(!divisor_override, "avg_pool2d: divisor_override is not supported yet");
  return pool2d(self, kernel_size, stride, padding, ceil_mode,
                count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                  : dnnl::algorithm::pooling_avg_exclude_padding,
                "avg_pool2d");
}

}  // namespace ember::native
