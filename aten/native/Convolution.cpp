// conv2d, max_pool2d and avg_pool2d: float32 on oneDNN, which picks its
// preferred (blocked) memory layouts (we reorder NCHW in and out); other
// dtypes and options through im2col + matmul and direct pooling loops.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/Parallel.h>
#include <aten/native/OneDNN.h>
#include <aten/native/cpu/CpuCapability.h>
#include <aten/native/cpu/ElementwiseTraits.h>

#include <c10/util/TypeCast.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ember::native {

namespace {

using dnnl::memory;

using onednn::cpu_engine;
using onednn::Output;
using onednn::Scratch;
using onednn::to_layout;

// The smallest value a window parameter may take: kernel sizes, strides and
// dilations are divisors or multipliers in the shape arithmetic, so zero or
// a negative value would divide by zero (SIGFPE) or size nonsense.
enum class AtLeast : int64_t { Zero = 0, One = 1 };

// A pair like stride=2 or padding=[1, 2]; PyTorch accepts one value for both.
std::array<int64_t, 2> pair(IntArrayRef v, const char* name, int64_t fallback, AtLeast least, const char* op) {
  if (v.empty()) return {fallback, fallback};
  EMBER_CHECK(v.size() == 1 || v.size() == 2, "{}: {} must be an int or a pair of ints", op, name);
  const std::array<int64_t, 2> p{v[0], v.size() == 2 ? v[1] : v[0]};
  // Bounded too, so that the shape arithmetic below cannot overflow.
  constexpr int64_t kMax = int64_t{1} << 40;
  EMBER_CHECK(p[0] >= static_cast<int64_t>(least) && p[1] >= static_cast<int64_t>(least) && p[0] <= kMax &&
                  p[1] <= kMax,
              "{}: {} must be {}, but got {}", op, name,
              least == AtLeast::One ? "greater than zero" : "non-negative", c10::str_sizes(v));
  return p;
}

// Floor division, as torch's shape arithmetic (C++ rounds toward zero).
int64_t div_floor(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

int64_t out_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, bool ceil_mode) {
  const int64_t span = dilation * (kernel - 1) + 1;
  int64_t numerator = in + 2 * pad - span;
  int64_t out = (ceil_mode ? div_floor(numerator + stride - 1, stride) : div_floor(numerator, stride)) + 1;
  // The last window must start inside the input (or its left padding), as in torch.
  if (ceil_mode && out > 0 && (out - 1) * stride >= in + pad) --out;
  return out;
}

// One 2-D convolution (float32, or bfloat16/float16 where oneDNN has kernels
// for them) as oneDNN describes it: its forward and both backward passes are
// made from the same shapes, so they agree on layouts.
struct DnnlConv {
  DnnlConv(memory::data_type dt_, int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc, int64_t kh, int64_t kw,
           int64_t oh, int64_t ow, std::array<int64_t, 2> stride, std::array<int64_t, 2> padding, std::array<int64_t, 2> dilation,
           int64_t groups)
      : dt(dt_),
        src{n, c, h, w},
        dst{n, oc, oh, ow},
        wei(groups == 1 ? memory::dims{oc, c, kh, kw} : memory::dims{groups, oc / groups, c / groups, kh, kw}),
        strides{stride[0], stride[1]},
        pads{padding[0], padding[1]},
        dilates{dilation[0] - 1, dilation[1] - 1},
        grouped(groups != 1),
        out_channels(oc),
        winograd_fits(dt == memory::data_type::f32 && kh == 3 && kw == 3 && stride[0] == 1 && stride[1] == 1 &&
                      dilation[0] == 1 && dilation[1] == 1 && groups == 1 && c >= 16 && oc >= 16 &&
                      static_cast<double>(n) * oh * ow * oc * c * 9 >= double(1 << 24) &&
                      // oneDNN 2.6 has it for AVX-512 only; a lower EMBER_CPU_CAPABILITY turns it off too.
                      cpu::cpu_capability() == cpu::CpuCapability::AVX512) {}

  memory::desc any(const memory::dims& d) const { return {d, dt, memory::format_tag::any}; }
  memory::desc bias_desc() const { return {{out_channels}, dt, memory::format_tag::x}; }

  // make(algorithm) -> a primitive descriptor (user scratchpad): Winograd's
  // where it fits, oneDNN has it and its scratchpad is no larger than the
  // convolution's input and output together or 8 MiB (its tile buffers take
  // about 7 MiB at any size; the allocator's cache then serves every such
  // convolution from one block); direct otherwise.
  // Measured single-threaded on AMD EPYC (AVX-512), forward / backward-data /
  // backward-weights in ms, direct vs Winograd: 8x64x56x56 16.4/16.5/18.2 vs
  // 6.6/6.5/6.0 (scratchpad 7.4 MB for 12.8 MB of input and output);
  // 64x32x32x32 10.8/10.6/11.8 vs 5.3/5.3/5.7 (6.7 MB for 16.8); 8x64x28x28
  // 4.0/4.0/4.4 vs 1.7/1.7/1.9 (7.4 MB for 3.2). Deep layers gain less for
  // much more memory (8x512x7x7: 13.1 vs 9.1 forward, 49 MB of transformed
  // weights for 1.6), below 16 channels direct wins (3 channels in: 1.0 vs
  // 5.1 forward), and under about 16M multiply-adds they tie. Winograd's
  // rounding error is about 3x direct's (1-2e-6 of the output's scale).
  template <typename Make>
  auto with_algorithm(Make&& make) const {
    if (winograd_fits) {
      try {
        auto pd = make(dnnl::algorithm::convolution_winograd);
        const size_t activations = (memory::desc(src, dt, memory::format_tag::nchw).get_size() +
                                    memory::desc(dst, dt, memory::format_tag::nchw).get_size());
        if (pd.scratchpad_desc().get_size() <= std::max<size_t>(activations, size_t{8} << 20)) return pd;
      } catch (const dnnl::error&) {  // a shape its kernel does not take
      }
    }
    return make(dnnl::algorithm::convolution_direct);
  }

  dnnl::convolution_forward::primitive_desc forward(dnnl::prop_kind kind, bool has_bias) const {
    return with_algorithm([&](dnnl::algorithm algorithm) {
      const dnnl::convolution_forward::desc desc(kind, algorithm, any(src), any(wei),
                                                  has_bias ? bias_desc() : memory::desc(), any(dst), strides,
                                                  dilates, pads, pads);
      return dnnl::convolution_forward::primitive_desc(desc, onednn::user_scratchpad(), cpu_engine());
    });
  }

  // Plain (NCHW / OIHW) memory over contiguous tensors of the convolution's dtype.
  memory user_src(const Tensor& t) const { return plain(src, memory::format_tag::nchw, t); }
  memory user_dst(const Tensor& t) const { return plain(dst, memory::format_tag::nchw, t); }
  memory user_wei(const Tensor& t) const {
    return plain(wei, grouped ? memory::format_tag::goihw : memory::format_tag::oihw, t);
  }

  memory::data_type dt;
  memory::dims src, dst, wei, strides, pads, dilates;
  bool grouped;
  int64_t out_channels;
  bool winograd_fits;

 private:
  memory plain(const memory::dims& d, memory::format_tag tag, const Tensor& t) const {
    return onednn::plain({d, dt, tag}, t);
  }
};

// The oneDNN kernel a 16-bit convolution gets on this CPU ("" where oneDNN
// has only reference loops: float16 on most CPUs, bfloat16 below AVX-512).
std::string lowp_conv_kernel_probe(memory::data_type dt) {
  try {
    const DnnlConv conv(dt, 1, 16, 8, 8, 16, 3, 3, 8, 8, {1, 1}, {1, 1}, {1, 1}, 1);
    const std::string kernel = conv.forward(dnnl::prop_kind::forward_training, true).impl_info_str();
    return kernel.find("ref") == std::string::npos ? kernel : "";
  } catch (const dnnl::error&) {
    return "";
  }
}

// The oneDNN type a convolution of `t` runs in; nullopt for dtypes without
// a kernel of their own (lowp_conv_kernel is ""), which take the im2col path.
std::optional<memory::data_type> onednn_conv_type(ScalarType t) {
  if (t == ScalarType::Float) return memory::data_type::f32;
  if ((t != ScalarType::BFloat16 && t != ScalarType::Half) || onednn::lowp_conv_kernel(t).empty()) return std::nullopt;
  return t == ScalarType::BFloat16 ? memory::data_type::bf16 : memory::data_type::f16;
}

// Other floating dtypes: unfold the input into columns and multiply.
Tensor conv2d_im2col(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     std::array<int64_t, 2> stride, std::array<int64_t, 2> padding, std::array<int64_t, 2> dilation,
                     int64_t groups, int64_t oh, int64_t ow) {
  EMBER_CHECK_NOT_IMPLEMENTED(input.is_floating_point() || input.is_complex(), "\"conv2d\" not implemented for '{}'",
                              c10::toString(input.dtype()));
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t oc = weight.size(0), kh = weight.size(2), kw = weight.size(3);
  const Tensor x = input.contiguous();
  Tensor cols = ember::zeros({n, c, kh, kw, oh, ow}, input.dtype());
  c10::visit_scalar_type(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = static_cast<const T*>(x.data_ptr());
    T* dst = static_cast<T*>(cols.data_ptr());
    for (int64_t b = 0; b < n * c; ++b)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          for (int64_t y = 0; y < oh; ++y) {
            const int64_t iy = y * stride[0] - padding[0] + i * dilation[0];
            if (iy < 0 || iy >= h) continue;
            for (int64_t z = 0; z < ow; ++z) {
              const int64_t ix = z * stride[1] - padding[1] + j * dilation[1];
              if (ix >= 0 && ix < w) dst[(((b * kh + i) * kw + j) * oh + y) * ow + z] = src[(b * h + iy) * w + ix];
            }
          }
  });
  const int64_t k = c / groups * kh * kw;
  Tensor out = ember::matmul(weight.reshape({groups, oc / groups, k}), cols.view({n, groups, k, oh * ow}));
  out = out.reshape({n, oc, oh, ow});
  if (bias && bias->defined()) out = ember::add(out, bias->reshape({1, oc, 1, 1}));
  return out;
}

}  // namespace

const std::string& onednn::lowp_conv_kernel(ScalarType t) {
  static const std::string bf16 = lowp_conv_kernel_probe(memory::data_type::bf16);
  static const std::string f16 = lowp_conv_kernel_probe(memory::data_type::f16);
  static const std::string none;
  return t == ScalarType::BFloat16 ? bf16 : t == ScalarType::Half ? f16 : none;
}

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
  const auto stride = pair(stride_, "stride", 1, AtLeast::One, "conv2d"),
             padding = pair(padding_, "padding", 0, AtLeast::Zero, "conv2d"),
             dilation = pair(dilation_, "dilation", 1, AtLeast::One, "conv2d");
  const int64_t oh = out_size(h, kh, stride[0], padding[0], dilation[0], false);
  const int64_t ow = out_size(w, kw, stride[1], padding[1], dilation[1], false);
  EMBER_CHECK(oh > 0 && ow > 0,
              "Calculated padded input size per channel: ({} x {}). Kernel size: ({} x {}). Kernel size can't be "
              "greater than actual input size",
              h + 2 * padding[0], w + 2 * padding[1], kh, kw);
  Tensor out = ember::empty({n, oc, oh, ow}, input.dtype(), input.device());
  if (input.is_meta()) return batched ? out : out.squeeze(0);
  EMBER_CHECK(input.dtype() == weight.dtype(),
              "Input type ({}) and weight type ({}) should be the same", c10::toString(input.dtype()),
              c10::toString(weight.dtype()));
  if (out.numel() == 0) return batched ? out : out.squeeze(0);  // oneDNN refuses zero channels
  if (c == 0) {  // empty sums: the bias alone, or zeros
    out.zero_();
    if (bias && bias->defined()) out.add_(bias->to(out.dtype()).reshape({1, oc, 1, 1}));
    return batched ? out : out.squeeze(0);
  }
  const auto dt = onednn_conv_type(input.dtype());
  if (!dt && cpu::is_reduced_float(input.dtype())) {
    // No 16-bit kernel on this CPU: oneDNN's float32 one between two conversions.
    EMBER_CHECK(!bias || !bias->defined() || bias->dtype() == input.dtype(),
                "Input type ({}) and bias type ({}) should be the same", c10::toString(input.dtype()),
                c10::toString(bias->dtype()));
    const auto bias32 = bias && bias->defined() ? std::optional<Tensor>(bias->to(ScalarType::Float)) : std::nullopt;
    Tensor r = ember::conv2d(input.to(ScalarType::Float), weight.to(ScalarType::Float), bias32, stride_, padding_,
                             dilation_, groups);
    return (batched ? r : r.squeeze(0)).to(input.dtype());
  }
  if (!dt) {
    Tensor r = conv2d_im2col(input, weight, bias, stride, padding, dilation, groups, oh, ow);
    return batched ? r : r.squeeze(0);
  }

  const Tensor x = input.contiguous(), wt = weight.contiguous();
  const DnnlConv conv(*dt, n, c, h, w, oc, kh, kw, oh, ow, stride, padding, dilation, groups);
  const bool has_bias = bias && bias->defined();
  // forward_training even without autograd: in oneDNN 2.6 it takes the blocked
  // kernel, whose reorders cost less than the inference kind's NHWC ones
  // (8x64x56x56, direct: 16.9 vs 18.0 ms in all), and Winograd.
  const auto pd = conv.forward(dnnl::prop_kind::forward_training, has_bias);
  dnnl::stream s(cpu_engine());
  Scratch scratch;
  Output dst(conv.user_dst(out), pd.dst_desc(), scratch);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, to_layout(conv.user_src(x), pd.src_desc(), s, scratch)},
                                       {DNNL_ARG_WEIGHTS, to_layout(conv.user_wei(wt), pd.weights_desc(), s, scratch)},
                                       {DNNL_ARG_DST, dst.actual}};
  Tensor b;
  if (has_bias) {
    EMBER_CHECK(bias->dtype() == input.dtype(), "Input type ({}) and bias type ({}) should be the same",
                c10::toString(input.dtype()), c10::toString(bias->dtype()));
    b = bias->contiguous();
    args.emplace(DNNL_ARG_BIAS, onednn::plain(conv.bias_desc(), b));
  }
  if (pd.scratchpad_desc().get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, scratch.make(pd.scratchpad_desc()));
  dnnl::convolution_forward(pd).execute(s, args);
  dst.finish(s);
  s.wait();
  return batched ? out : out.squeeze(0);
}

// conv2d's gradients: float32 on oneDNN's backward primitives, other dtypes
// through the composite of forward convolutions (ConvolutionBackward.cpp).
std::tuple<Tensor, Tensor, Tensor> conv2d_backward_cpu(const Tensor& grad_output, const Tensor& input_,
                                                       const Tensor& weight, IntArrayRef stride_, IntArrayRef padding_,
                                                       IntArrayRef dilation_, int64_t groups,
                                                       std::array<bool, 3> mask) {
  const bool batched = input_.dim() == 4;
  EMBER_CHECK((input_.dim() == 3 || batched) && weight.dim() == 4 && grad_output.dim() == input_.dim(),
              "_conv2d_backward: expected a 3-D or 4-D input, a 4-D weight and grad_output of the input's rank, got "
              "{}, {} and {}", c10::str_sizes(input_.sizes()), c10::str_sizes(weight.sizes()),
              c10::str_sizes(grad_output.sizes()));
  const auto dt = onednn_conv_type(input_.dtype());
  const bool same_dtype = weight.dtype() == input_.dtype() && grad_output.dtype() == input_.dtype();
  if (!dt && same_dtype && cpu::is_reduced_float(input_.dtype())) {  // as in conv2d: through float32
    auto [gi, gw, gb] = conv2d_backward_cpu(grad_output.to(ScalarType::Float), input_.to(ScalarType::Float),
                                            weight.to(ScalarType::Float), stride_, padding_, dilation_, groups, mask);
    const ScalarType t = input_.dtype();
    return {gi.defined() ? gi.to(t) : gi, gw.defined() ? gw.to(t) : gw, gb.defined() ? gb.to(t) : gb};
  }
  if (!dt || !same_dtype) {
    return conv2d_backward_composite(grad_output, input_, weight, stride_, padding_, dilation_, groups, mask);
  }
  const Tensor input = (batched ? input_ : input_.unsqueeze(0)).contiguous();
  const Tensor grad = (batched ? grad_output : grad_output.unsqueeze(0)).contiguous();
  const Tensor wt = weight.contiguous();
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t oc = weight.size(0), kh = weight.size(2), kw = weight.size(3);
  EMBER_CHECK(groups > 0 && c == weight.size(1) * groups && oc % groups == 0,
              "_conv2d_backward: weight {} with groups={} does not fit an input of {} channels",
              c10::str_sizes(weight.sizes()), groups, c);
  const auto stride = pair(stride_, "stride", 1, AtLeast::One, "_conv2d_backward"),
             padding = pair(padding_, "padding", 0, AtLeast::Zero, "_conv2d_backward"),
             dilation = pair(dilation_, "dilation", 1, AtLeast::One, "_conv2d_backward");
  const int64_t oh = out_size(h, kh, stride[0], padding[0], dilation[0], false);
  const int64_t ow = out_size(w, kw, stride[1], padding[1], dilation[1], false);
  const std::vector<int64_t> expected{n, oc, oh, ow};
  EMBER_CHECK(oh > 0 && ow > 0 && grad.sizes() == IntArrayRef(expected),
              "_conv2d_backward: grad_output has shape {}, but the convolution's output has shape {}",
              c10::str_sizes(grad.sizes()), c10::str_sizes(expected));

  Tensor grad_input, grad_weight, grad_bias;
  if (input.numel() == 0 || wt.numel() == 0) {  // nothing for oneDNN to do: the sums are empty
    if (mask[0]) grad_input = ember::zeros(input.sizes(), input.dtype());
    if (mask[1]) grad_weight = ember::zeros(weight.sizes(), weight.dtype());
    if (mask[2]) grad_bias = ember::zeros({oc}, weight.dtype());
  } else {
    const DnnlConv conv(*dt, n, c, h, w, oc, kh, kw, oh, ow, stride, padding, dilation, groups);
    const auto hint = conv.forward(dnnl::prop_kind::forward_training, mask[2]);
    dnnl::stream s(cpu_engine());
    Scratch scratch;
    const memory diff_dst = conv.user_dst(grad);
    if (mask[0]) {
      grad_input = ember::empty(input.sizes(), input.dtype());
      const auto pd = conv.with_algorithm([&](dnnl::algorithm algorithm) {
        const dnnl::convolution_backward_data::desc desc(algorithm, conv.any(conv.src),
                                                          conv.any(conv.wei), conv.any(conv.dst),
                                                          conv.strides, conv.dilates, conv.pads, conv.pads);
        return dnnl::convolution_backward_data::primitive_desc(desc, onednn::user_scratchpad(), cpu_engine(), hint);
      });
      Output diff_src(conv.user_src(grad_input), pd.diff_src_desc(), scratch);
      std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, to_layout(diff_dst, pd.diff_dst_desc(), s, scratch)},
                                           {DNNL_ARG_WEIGHTS, to_layout(conv.user_wei(wt), pd.weights_desc(), s, scratch)},
                                           {DNNL_ARG_DIFF_SRC, diff_src.actual}};
      if (pd.scratchpad_desc().get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, scratch.make(pd.scratchpad_desc()));
      dnnl::convolution_backward_data(pd).execute(s, args);
      diff_src.finish(s);
    }
    if (mask[1] || mask[2]) {
      grad_weight = ember::empty(weight.sizes(), weight.dtype());
      if (mask[2]) grad_bias = ember::empty({oc}, weight.dtype());
      const auto pd = conv.with_algorithm([&](dnnl::algorithm algorithm) {
        // 16-bit convolutions accumulate their weight gradient in float32,
        // rounded once when it is written out.
        const dnnl::convolution_backward_weights::desc desc(
            algorithm, conv.any(conv.src), memory::desc(conv.wei, memory::data_type::f32, memory::format_tag::any),
            mask[2] ? conv.bias_desc() : memory::desc(), conv.any(conv.dst), conv.strides, conv.dilates,
            conv.pads, conv.pads);
        return dnnl::convolution_backward_weights::primitive_desc(desc, onednn::user_scratchpad(), cpu_engine(),
                                                                  hint);
      });
      Output diff_wei(conv.user_wei(grad_weight), pd.diff_weights_desc(), scratch);
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, to_layout(conv.user_src(input), pd.src_desc(), s, scratch)},
                                           {DNNL_ARG_DIFF_DST, to_layout(diff_dst, pd.diff_dst_desc(), s, scratch)},
                                           {DNNL_ARG_DIFF_WEIGHTS, diff_wei.actual}};
      if (mask[2]) args.emplace(DNNL_ARG_DIFF_BIAS, onednn::plain(conv.bias_desc(), grad_bias));
      if (pd.scratchpad_desc().get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, scratch.make(pd.scratchpad_desc()));
      dnnl::convolution_backward_weights(pd).execute(s, args);
      diff_wei.finish(s);
      if (!mask[1]) grad_weight = Tensor();
    }
    s.wait();
  }
  if (!batched && grad_input.defined()) grad_input = grad_input.squeeze(0);
  return {grad_input, grad_weight, grad_bias};
}

namespace {

// Pooling by direct loops: dtypes and options oneDNN's primitive lacks
// (float64, dilation, divisor_override).
void pool2d_direct(const Tensor& self, const Tensor& out, std::array<int64_t, 2> kernel, std::array<int64_t, 2> stride,
                   std::array<int64_t, 2> padding, std::array<int64_t, 2> dilation, bool is_max, bool include_pad,
                   std::optional<int64_t> divisor_override) {
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_complex() && self.dtype() != ScalarType::Bool &&
                                  (is_max || self.is_floating_point()),
                              "\"{}\" not implemented for '{}'", is_max ? "max_pool2d" : "avg_pool2d",
                              c10::toString(self.dtype()));
  const Tensor x = self.contiguous();
  const int64_t planes = self.size(0) * self.size(1), h = self.size(2), w = self.size(3);
  const int64_t oh = out.size(2), ow = out.size(3);
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!c10::is_complex_v<T> && !std::is_same_v<T, bool>) {
      const T* src = static_cast<const T*>(x.data_ptr());
      T* dst = static_cast<T*>(out.data_ptr());
      for (int64_t p = 0; p < planes; ++p)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t z = 0; z < ow; ++z) {
            const int64_t y0 = y * stride[0] - padding[0], z0 = z * stride[1] - padding[1];
            double acc = is_max ? -INFINITY : 0.0;
            bool nan = false;
            int64_t count = 0;
            for (int64_t i = 0; i < kernel[0]; ++i)
              for (int64_t j = 0; j < kernel[1]; ++j) {
                const int64_t iy = y0 + i * dilation[0], ix = z0 + j * dilation[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                const double v = static_cast<double>(src[(p * h + iy) * w + ix]);
                nan = nan || v != v;
                acc = is_max ? std::max(acc, v) : acc + v;
                ++count;
              }
            if (!is_max) {
              // The window clipped to the padded input (ceil_mode may overhang it).
              const int64_t ye = std::min(y0 + kernel[0], h + padding[0]), ze = std::min(z0 + kernel[1], w + padding[1]);
              const int64_t padded = (ye - y0) * (ze - z0);
              const int64_t divisor = divisor_override ? *divisor_override : (include_pad ? padded : count);
              acc /= static_cast<double>(divisor);
            }
            dst[(p * oh + y) * ow + z] = static_cast<T>(nan ? NAN : acc);
          }
    }
  });
}

// The checked geometry of a 2-D pooling: a batched (4-D) view of the
// input, the window parameters and the output size.
struct PoolGeometry {
  bool batched;
  Tensor self;
  std::array<int64_t, 2> kernel, stride, padding, dilation;
  int64_t oh, ow;
};

PoolGeometry pool_geometry(const Tensor& self_, IntArrayRef kernel_size, IntArrayRef stride_, IntArrayRef padding_,
                           IntArrayRef dilation_, bool ceil_mode, const char* name) {
  PoolGeometry g;
  g.batched = self_.dim() == 4;
  EMBER_CHECK(self_.dim() == 3 || self_.dim() == 4, "{}: Expected 3D or 4D (batch mode) tensor for input, got {}", name,
              c10::str_sizes(self_.sizes()));
  g.self = g.batched ? self_ : self_.unsqueeze(0);
  g.kernel = pair(kernel_size, "kernel_size", 1, AtLeast::One, name);
  // No stride given means the kernel size, as in torch.
  g.stride = stride_.empty() ? g.kernel : pair(stride_, "stride", 1, AtLeast::One, name);
  g.padding = pair(padding_, "padding", 0, AtLeast::Zero, name);
  g.dilation = pair(dilation_, "dilation", 1, AtLeast::One, name);
  EMBER_CHECK(g.padding[0] * 2 <= g.kernel[0] && g.padding[1] * 2 <= g.kernel[1],
              "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation=1",
              g.padding[0], g.kernel[0]);
  g.oh = out_size(g.self.size(2), g.kernel[0], g.stride[0], g.padding[0], g.dilation[0], ceil_mode);
  g.ow = out_size(g.self.size(3), g.kernel[1], g.stride[1], g.padding[1], g.dilation[1], ceil_mode);
  EMBER_CHECK(g.oh > 0 && g.ow > 0, "{}: output size is too small ({}x{})", name, g.oh, g.ow);
  return g;
}

Tensor pool2d(const Tensor& self_, IntArrayRef kernel_size, IntArrayRef stride_, IntArrayRef padding_, bool ceil_mode,
              dnnl::algorithm algorithm, const char* name, IntArrayRef dilation_ = {},
              std::optional<int64_t> divisor_override = std::nullopt) {
  const PoolGeometry g = pool_geometry(self_, kernel_size, stride_, padding_, dilation_, ceil_mode, name);
  const bool batched = g.batched;
  const Tensor& self = g.self;
  const auto kernel = g.kernel, s2 = g.stride, padding = g.padding, dilation = g.dilation;
  const bool fallback = dilation[0] != 1 || dilation[1] != 1 || divisor_override.has_value();
  const int64_t n = self.size(0), c = self.size(1), h = self.size(2), w = self.size(3);
  const int64_t oh = g.oh, ow = g.ow;
  Tensor out = ember::empty({n, c, oh, ow}, self.dtype(), self.device());
  if (self.is_meta()) return batched ? out : out.squeeze(0);
  // oneDNN's max pooling drops NaN, and its average over a ceil_mode
  // overhang divides by the whole kernel; torch does neither.
  const bool is_max = algorithm == dnnl::algorithm::pooling_max;
  const bool needs_direct = fallback || self.dtype() != ScalarType::Float ||
                            (!is_max && ceil_mode && algorithm == dnnl::algorithm::pooling_avg_include_padding) ||
                            (is_max && ember::ne(self, self).any().item<bool>());
  if (needs_direct) {
    pool2d_direct(self, out, kernel, s2, padding, dilation, algorithm == dnnl::algorithm::pooling_max,
                  algorithm == dnnl::algorithm::pooling_avg_include_padding, divisor_override);
    return batched ? out : out.squeeze(0);
  }
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
  return pool2d(self, kernel_size, stride, padding, ceil_mode, dnnl::algorithm::pooling_max, "max_pool2d", dilation);
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  return pool2d(self, kernel_size, stride, padding, ceil_mode,
                count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                  : dnnl::algorithm::pooling_avg_exclude_padding,
                "avg_pool2d", {}, divisor_override);
}

// max_pool2d that also says where each maximum came from (the flat position
// in its input plane), which is what its backward scatters to. NaN wins a
// window, as in torch; ties go to the first element.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self_, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const PoolGeometry g = pool_geometry(self_, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d");
  EMBER_CHECK_NOT_IMPLEMENTED(!self_.is_complex() && self_.dtype() != ScalarType::Bool,
                              "\"max_pool2d\" not implemented for '{}'", c10::toString(self_.dtype()));
  const int64_t n = g.self.size(0), c = g.self.size(1), h = g.self.size(2), w = g.self.size(3);
  Tensor out = ember::empty({n, c, g.oh, g.ow}, self_.dtype(), self_.device());
  Tensor indices = ember::empty({n, c, g.oh, g.ow}, ScalarType::Long, self_.device());
  auto result = [&] {
    return g.batched ? std::make_tuple(out, indices) : std::make_tuple(out.squeeze(0), indices.squeeze(0));
  };
  if (self_.is_meta()) return result();
  const Tensor x = g.self.contiguous();
  int64_t* idx = indices.data_ptr<int64_t>();
  c10::visit_scalar_type(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!c10::is_complex_v<T> && !std::is_same_v<T, bool>) {
      // Compared in the type's own arithmetic (float for half types): int64
      // values beyond 2^53 stay distinct. A NaN wins and stays.
      using M = cpu::opmath_t<T>;
      const T* src = static_cast<const T*>(x.data_ptr());
      T* dst = static_cast<T*>(out.data_ptr());
      const int64_t plane_work = std::max<int64_t>(1, g.oh * g.ow * g.kernel[0] * g.kernel[1]);
      ember::parallel_for(0, n * c, std::max<int64_t>(1, 32768 / plane_work), [&](int64_t first, int64_t last) {
        for (int64_t p = first; p < last; ++p) {
          const T* plane = src + p * h * w;
          for (int64_t y = 0; y < g.oh; ++y)
            for (int64_t z = 0; z < g.ow; ++z) {
              const int64_t y0 = y * g.stride[0] - g.padding[0], z0 = z * g.stride[1] - g.padding[1];
              int64_t best = -1;
              M best_value{};
              for (int64_t i = 0; i < g.kernel[0]; ++i) {
                const int64_t iy = y0 + i * g.dilation[0];
                if (iy < 0 || iy >= h) continue;
                for (int64_t j = 0; j < g.kernel[1]; ++j) {
                  const int64_t ix = z0 + j * g.dilation[1];
                  if (ix < 0 || ix >= w) continue;
                  const M v = static_cast<M>(plane[iy * w + ix]);
                  if (best < 0 || v > best_value || (v != v && best_value == best_value)) {
                    best = iy * w + ix;
                    best_value = v;
                  }
                }
              }
              const int64_t o = (p * g.oh + y) * g.ow + z;
              dst[o] = plane[best];
              idx[o] = best;
            }
        }
      });
    }
  });
  return result();
}

// Each output's gradient added at the input position its index names.
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  (void)kernel_size, (void)stride, (void)padding, (void)dilation, (void)ceil_mode;  // all in `indices`
  constexpr const char* op = "max_pool2d_with_indices_backward";
  // The indices may come from the user rather than the forward: every one
  // is checked against its plane before anything is written through it.
  EMBER_CHECK(self.dim() == 3 || self.dim() == 4, "{}: expected a 3-D or 4-D input, got {}-D", op, self.dim());
  EMBER_CHECK(grad_output.dim() == self.dim() &&
                  grad_output.sizes().slice(0, self.dim() - 2) == self.sizes().slice(0, self.dim() - 2),
              "{}: grad_output of size {} does not match input of size {}", op, c10::str_sizes(grad_output.sizes()),
              c10::str_sizes(self.sizes()));
  EMBER_CHECK(indices.sizes() == grad_output.sizes(), "{}: indices of size {} do not match grad_output of size {}", op,
              c10::str_sizes(indices.sizes()), c10::str_sizes(grad_output.sizes()));
  EMBER_CHECK(indices.dtype() == ScalarType::Long, "{}: expected int64 indices, got {}", op,
              c10::toString(indices.dtype()));
  Tensor grad_input = ember::zeros(self.sizes(), grad_output.dtype(), self.device());
  if (self.is_meta() || grad_output.numel() == 0) return grad_input;
  const int64_t in_plane = self.size(-1) * self.size(-2);
  const int64_t out_plane = grad_output.size(-1) * grad_output.size(-2);
  const int64_t planes = grad_output.numel() / out_plane;
  const Tensor g = grad_output.contiguous(), idx = indices.contiguous();
  const int64_t* where = idx.data_ptr<int64_t>();
  for (int64_t k = 0; k < idx.numel(); ++k) {
    EMBER_CHECK_INDEX(where[k] >= 0 && where[k] < in_plane, "{}: index {} is out of bounds for an input plane of {} elements",
                      op, where[k], in_plane);
  }
  c10::visit_scalar_type(g.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!c10::is_complex_v<T> && !std::is_same_v<T, bool>) {
      const T* src = static_cast<const T*>(g.data_ptr());
      T* dst = static_cast<T*>(grad_input.data_ptr());
      for (int64_t p = 0; p < planes; ++p)
        for (int64_t o = 0; o < out_plane; ++o) {
          const int64_t k = p * out_plane + o;
          T& slot = dst[p * in_plane + where[k]];
          slot = static_cast<T>(static_cast<double>(slot) + static_cast<double>(src[k]));
        }
    }
  });
  return grad_input;
}

}  // namespace ember::native
