// One LSTM layer and direction over a dense float32 sequence on oneDNN's
// LSTM primitive (as torch's CPU LSTM runs on it): the input projection,
// the recurrence and the gate math in one primitive each way, with the
// elementwise work fused into its GEMM loops. RNN.cpp picks it for plain
// LSTMs (no projections) on the CPU; the forward for training keeps
// oneDNN's workspace for the backward primitive.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/OneDNN.h>
#include <aten/native/RNNRows.h>

#include <cstring>
#include <unordered_map>
#include <tuple>

namespace ember::native {

namespace {

using onednn::cpu_engine;
using onednn::plain;
using onednn::Scratch;
using dnnl::memory;
using tag = memory::format_tag;

constexpr const char* kForward = "_onednn_lstm_layer";
constexpr const char* kBackward = "_onednn_lstm_layer_backward";
constexpr int64_t kGates = 4;  // i, f, g, o: torch's order is oneDNN's too

struct LstmShapes {
  int64_t T, N, C, H;

  // oneDNN's dims: src/dst layer {T, N, C}, states {layers, directions, N, H},
  // weights {layers, directions, C, gates, H}, bias {layers, directions, gates, H}.
  memory::desc layer(int64_t width, tag t = tag::tnc) const { return {{T, N, width}, kF32, t}; }
  memory::desc state() const { return {{1, 1, N, H}, kF32, tag::ldnc}; }
  memory::desc weights(int64_t in, tag t) const { return {{1, 1, in, kGates, H}, kF32, t}; }
  memory::desc bias() const { return {{1, 1, kGates, H}, kF32, tag::ldgo}; }

  static constexpr auto kF32 = memory::data_type::f32;
};

using rnn_rows::has;

LstmShapes check_operands(const char* op, const Tensor& input, const Tensor& hx, const Tensor& cx, const Tensor& w_ih,
                          const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                          const std::optional<Tensor>& b_hh) {
  EMBER_CHECK(input.dim() == 3, "{}: expected input of shape [steps, batch, features], got {}", op,
              c10::str_sizes(input.sizes()));
  const LstmShapes s{input.size(0), input.size(1), input.size(2), w_hh.dim() == 2 ? w_hh.size(1) : 0};
  EMBER_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2 && w_ih.size(0) == kGates * s.H && w_ih.size(1) == s.C &&
                  w_hh.size(0) == kGates * s.H,
              "{}: expected w_ih of shape [4 * hidden, {}] and w_hh of shape [4 * hidden, hidden], got {} and {}", op,
              s.C, c10::str_sizes(w_ih.sizes()), c10::str_sizes(w_hh.sizes()));
  const std::vector<int64_t> state{s.N, s.H};
  EMBER_CHECK(hx.sizes() == IntArrayRef(state) && cx.sizes() == IntArrayRef(state),
              "{}: expected hx and cx of shape {}, got {} and {}", op, c10::str_sizes(state),
              c10::str_sizes(hx.sizes()), c10::str_sizes(cx.sizes()));
  EMBER_CHECK(has(b_ih) == has(b_hh), "{}: expected both biases or neither", op);
  for (const Tensor* t : {&input, &hx, &cx, &w_ih, &w_hh, has(b_ih) ? &*b_ih : nullptr, has(b_hh) ? &*b_hh : nullptr}) {
    if (!t) continue;
    EMBER_CHECK_NOT_IMPLEMENTED(t->scalar_type() == ScalarType::Float, "\"{}\" not implemented for '{}'", op,
                                c10::toString(t->scalar_type()));
    EMBER_CHECK(t->device() == input.device(), "{}: expected every operand on {}, got one on {}", op,
                input.device().str(), t->device().str());
  }
  if (has(b_ih)) {
    EMBER_CHECK(b_ih->dim() == 1 && b_ih->size(0) == kGates * s.H && b_hh->dim() == 1 &&
                    b_hh->size(0) == kGates * s.H,
                "{}: expected biases of shape [{}], got {} and {}", op, kGates * s.H, c10::str_sizes(b_ih->sizes()),
                c10::str_sizes(b_hh->sizes()));
  }
  return s;
}

// oneDNN adds one bias per gate: torch's two, summed.
Tensor summed_bias(const LstmShapes& s, const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  if (!has(b_ih)) return ember::zeros({kGates * s.H}, ScalarType::Float);
  return ember::add(*b_ih, *b_hh).contiguous();
}

dnnl::rnn_direction direction(bool reverse) {
  return reverse ? dnnl::rnn_direction::unidirectional_right2left : dnnl::rnn_direction::unidirectional_left2right;
}

// Weights in whatever layout the primitive prefers ("any"); the user's are
// torch's [4H, in] rows, which oneDNN calls ldgoi.
dnnl::lstm_forward::primitive_desc forward_desc(const LstmShapes& s, bool reverse, dnnl::prop_kind kind) {
  const dnnl::lstm_forward::desc d(kind, direction(reverse), s.layer(s.C), s.state(), s.state(),
                                   s.weights(s.C, tag::any), s.weights(s.H, tag::any), s.bias(), s.layer(s.H),
                                   s.state(), s.state());
  return {d, onednn::user_scratchpad(), cpu_engine()};
}

// What both primitives read, contiguous and held for the call (oneDNN's
// memory objects point into these tensors).
struct LayerOperands {
  Tensor x, h0, c0, w_ih, w_hh, bias;
};
LayerOperands layer_operands(const LstmShapes& s, const Tensor& input, const Tensor& hx, const Tensor& cx,
                             const Tensor& w_ih, const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                             const std::optional<Tensor>& b_hh) {
  return {input.contiguous(), hx.contiguous(), cx.contiguous(), w_ih.contiguous(), w_hh.contiguous(),
          summed_bias(s, b_ih, b_hh)};
}

// The forward's arguments (sources, weights in the layout `pd` wants, bias,
// results), which the backward primitive takes too.
template <typename PrimitiveDesc>
std::unordered_map<int, memory> layer_arguments(const LstmShapes& s, const PrimitiveDesc& pd, const LayerOperands& in,
                                                const Tensor& out, const Tensor& hy, const Tensor& cy,
                                                dnnl::stream& stream, Scratch& scratch) {
  return {{DNNL_ARG_SRC_LAYER, plain(s.layer(s.C), in.x)},
          {DNNL_ARG_SRC_ITER, plain(s.state(), in.h0)},
          {DNNL_ARG_SRC_ITER_C, plain(s.state(), in.c0)},
          {DNNL_ARG_WEIGHTS_LAYER, onednn::to_layout(plain(s.weights(s.C, tag::ldgoi), in.w_ih),
                                                     pd.weights_layer_desc(), stream, scratch)},
          {DNNL_ARG_WEIGHTS_ITER, onednn::to_layout(plain(s.weights(s.H, tag::ldgoi), in.w_hh),
                                                    pd.weights_iter_desc(), stream, scratch)},
          {DNNL_ARG_BIAS, plain(s.bias(), in.bias)},
          {DNNL_ARG_DST_LAYER, plain(s.layer(s.H), out)},
          {DNNL_ARG_DST_ITER, plain(s.state(), hy)},
          {DNNL_ARG_DST_ITER_C, plain(s.state(), cy)}};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> _onednn_lstm_layer(const Tensor& input, const Tensor& hx,
                                                              const Tensor& cx, const Tensor& w_ih,
                                                              const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                                                              const std::optional<Tensor>& b_hh, bool reverse,
                                                              bool train) {
  const LstmShapes s = check_operands(kForward, input, hx, cx, w_ih, w_hh, b_ih, b_hh);
  const auto opts = input.options();
  Tensor output = ember::empty({s.T, s.N, s.H}, opts), hy = ember::empty({s.N, s.H}, opts),
         cy = ember::empty({s.N, s.H}, opts);
  if (input.is_meta() || s.T * s.N == 0 || s.H == 0) {
    return {output, hy, cy, ember::empty({0}, ScalarType::Byte, input.device())};
  }
  const auto pd = forward_desc(s, reverse, train ? dnnl::prop_kind::forward_training
                                                 : dnnl::prop_kind::forward_inference);
  Tensor workspace = ember::empty({train ? static_cast<int64_t>(pd.workspace_desc().get_size()) : 0},
                                  ScalarType::Byte, input.device());
  dnnl::stream stream(cpu_engine());
  Scratch scratch;
  const LayerOperands in = layer_operands(s, input, hx, cx, w_ih, w_hh, b_ih, b_hh);
  auto args = layer_arguments(s, pd, in, output, hy, cy, stream, scratch);
  if (train) args.emplace(DNNL_ARG_WORKSPACE, plain(pd.workspace_desc(), workspace));
  if (pd.scratchpad_desc().get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, scratch.make(pd.scratchpad_desc()));
  dnnl::lstm_forward(pd).execute(stream, args);
  stream.wait();
  return {output, hy, cy, workspace};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> _onednn_lstm_layer_backward(
    const Tensor& input, const Tensor& hx, const Tensor& cx, const Tensor& w_ih, const Tensor& w_hh,
    const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh, bool reverse, const Tensor& output,
    const Tensor& hy, const Tensor& cy, const Tensor& workspace, const std::optional<Tensor>& grad_output,
    const std::optional<Tensor>& grad_hy, const std::optional<Tensor>& grad_cy) {
  const LstmShapes s = check_operands(kBackward, input, hx, cx, w_ih, w_hh, b_ih, b_hh);
  const std::vector<int64_t> out_shape{s.T, s.N, s.H}, state{s.N, s.H};
  EMBER_CHECK(output.sizes() == IntArrayRef(out_shape) && hy.sizes() == IntArrayRef(state) &&
                  cy.sizes() == IntArrayRef(state),
              "{}: expected output {} and final states {}, got {}, {} and {}", kBackward, c10::str_sizes(out_shape),
              c10::str_sizes(state), c10::str_sizes(output.sizes()), c10::str_sizes(hy.sizes()),
              c10::str_sizes(cy.sizes()));
  const auto opts = input.options();
  Tensor dx = ember::empty(input.sizes(), opts), dhx = ember::empty(state, opts), dcx = ember::empty(state, opts),
         dw_ih = ember::empty(w_ih.sizes(), opts), dw_hh = ember::empty(w_hh.sizes(), opts),
         db = ember::empty({kGates * s.H}, opts);
  if (input.is_meta()) return {dx, dhx, dcx, dw_ih, dw_hh, db};
  if (s.T * s.N == 0 || s.H == 0) {
    for (Tensor* t : {&dx, &dhx, &dcx, &dw_ih, &dw_hh, &db}) t->zero_();
    return {dx, dhx, dcx, dw_ih, dw_hh, db};
  }
  const auto hint = forward_desc(s, reverse, dnnl::prop_kind::forward_training);
  EMBER_CHECK(workspace.scalar_type() == ScalarType::Byte &&
                  workspace.numel() == static_cast<int64_t>(hint.workspace_desc().get_size()),
              "{}: the workspace is not the one a training forward of these shapes keeps ({} bytes, expected {}): "
              "was the forward run with train=False?",
              kBackward, workspace.numel(), hint.workspace_desc().get_size());
  const dnnl::lstm_backward::desc d(
      dnnl::prop_kind::backward, direction(reverse), s.layer(s.C), s.state(), s.state(), s.weights(s.C, tag::any),
      s.weights(s.H, tag::any), s.bias(), s.layer(s.H), s.state(), s.state(), s.layer(s.C), s.state(), s.state(),
      s.weights(s.C, tag::any), s.weights(s.H, tag::any), s.bias(), s.layer(s.H), s.state(), s.state());
  const dnnl::lstm_backward::primitive_desc pd(d, onednn::user_scratchpad(), cpu_engine(), hint);
  dnnl::stream stream(cpu_engine());
  Scratch scratch;
  auto grad_or_zeros = [&](const std::optional<Tensor>& g, IntArrayRef shape) {
    return g && g->defined() ? g->contiguous() : ember::zeros(shape, opts);
  };
  const LayerOperands in = layer_operands(s, input, hx, cx, w_ih, w_hh, b_ih, b_hh);
  const Tensor out = output.contiguous(), h_last = hy.contiguous(), c_last = cy.contiguous(),
               g_out = grad_or_zeros(grad_output, out_shape), g_hy = grad_or_zeros(grad_hy, state),
               g_cy = grad_or_zeros(grad_cy, state);
  // The primitive adds into the weight and bias gradients: they start at zero.
  memory dw_layer = scratch.make(pd.diff_weights_layer_desc()), dw_iter = scratch.make(pd.diff_weights_iter_desc());
  std::memset(dw_layer.get_data_handle(), 0, pd.diff_weights_layer_desc().get_size());
  std::memset(dw_iter.get_data_handle(), 0, pd.diff_weights_iter_desc().get_size());
  db.zero_();
  auto args = layer_arguments(s, pd, in, out, h_last, c_last, stream, scratch);
  args.insert({
      {DNNL_ARG_WORKSPACE, plain(pd.workspace_desc(), workspace)},
      {DNNL_ARG_DIFF_SRC_LAYER, plain(s.layer(s.C), dx)},
      {DNNL_ARG_DIFF_SRC_ITER, plain(s.state(), dhx)},
      {DNNL_ARG_DIFF_SRC_ITER_C, plain(s.state(), dcx)},
      {DNNL_ARG_DIFF_WEIGHTS_LAYER, dw_layer},
      {DNNL_ARG_DIFF_WEIGHTS_ITER, dw_iter},
      {DNNL_ARG_DIFF_BIAS, plain(s.bias(), db)},
      {DNNL_ARG_DIFF_DST_LAYER, plain(s.layer(s.H), g_out)},
      {DNNL_ARG_DIFF_DST_ITER, plain(s.state(), g_hy)},
      {DNNL_ARG_DIFF_DST_ITER_C, plain(s.state(), g_cy)}});
  if (pd.scratchpad_desc().get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, scratch.make(pd.scratchpad_desc()));
  dnnl::lstm_backward(pd).execute(stream, args);
  memory user_dw_ih = plain(s.weights(s.C, tag::ldgoi), dw_ih), user_dw_hh = plain(s.weights(s.H, tag::ldgoi), dw_hh);
  dnnl::reorder(dw_layer, user_dw_ih).execute(stream, dw_layer, user_dw_ih);
  dnnl::reorder(dw_iter, user_dw_hh).execute(stream, dw_iter, user_dw_hh);
  stream.wait();
  return {dx, dhx, dcx, dw_ih, dw_hh, db};
}

}  // namespace ember::native
