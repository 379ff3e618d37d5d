// Backward formulas of the fused recurrent cells (aten/native/RNNCells.cpp).

#include <autograd/Autograd.h>
#include <autograd/FunctionsManual.h>

#include <c10/core/GradMode.h>

namespace ember::autograd::manual {

namespace {

bool has(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

// The pre-activation gates, input_gates + hidden_gates (+ both biases).
Tensor summed_gates(const Tensor& input_gates, const Tensor& hidden_gates, const std::optional<Tensor>& input_bias,
                    const std::optional<Tensor>& hidden_bias) {
  Tensor pre = input_gates + hidden_gates;
  return has(input_bias) ? pre + *input_bias + *hidden_bias : pre;
}

Tensor bias_grad(const Tensor& grad_gates, bool wanted, const std::optional<Tensor>& bias) {
  return wanted && has(bias) ? grad_gates.sum(IntArrayRef({0})) : Tensor();
}

// Outputs recomputed as recorded ops, with the gradients they receive.
struct Recomputed {
  variable_list outputs, grads;
};

// The gradients, w.r.t. the args that `mask` asks for and that require
// grad, of outputs recomputed by `recompute`, keeping the graph so that
// they can be differentiated again (create_graph). Outputs with no
// elements are left out.
template <size_t K, typename F>
std::array<Tensor, K> grads_of_recomputed(const std::array<Tensor, K>& args, std::array<bool, K> mask, F&& recompute) {
  std::array<Tensor, K> grads;
  variable_list inputs;
  std::vector<size_t> positions;
  for (size_t i = 0; i < K; ++i) {
    if (mask[i] && args[i].defined() && args[i].requires_grad()) {
      inputs.push_back(args[i]);
      positions.push_back(i);
    }
  }
  if (inputs.empty()) return grads;
  const Recomputed r = recompute();
  variable_list outputs, grad_outputs;
  for (size_t k = 0; k < r.outputs.size(); ++k) {
    if (!r.outputs[k].defined() || r.outputs[k].numel() == 0) continue;
    outputs.push_back(r.outputs[k]);
    grad_outputs.push_back(r.grads[k]);
  }
  const variable_list result = ember::autograd::grad(outputs, inputs, grad_outputs, /*retain_graph=*/true,
                                                     /*create_graph=*/true, /*allow_unused=*/true);
  for (size_t k = 0; k < positions.size(); ++k) grads[positions[k]] = result[k];
  return grads;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> lstm_cell_backward(
    const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_gates, const Tensor& hidden_gates,
    const Tensor& cx, const Tensor& cy, const std::optional<Tensor>& input_bias,
    const std::optional<Tensor>& hidden_bias, std::array<bool, 5> mask) {
  Tensor grad_gates, grad_cx;
  if (!c10::GradMode::is_enabled()) {
    std::tie(grad_gates, grad_cx) =
        ember::_fused_lstm_cell_backward(grad_hy, grad_cy, input_gates, hidden_gates, cx, cy, input_bias, hidden_bias);
  } else {
    const std::vector<Tensor> pre = summed_gates(input_gates, hidden_gates, input_bias, hidden_bias).chunk(4, 1);
    const Tensor i = pre[0].sigmoid(), f = pre[1].sigmoid(), g = pre[2].tanh(), o = pre[3].sigmoid();
    const Tensor tanh_cy = (f * cx + i * g).tanh();
    const Tensor grad_c = grad_cy + grad_hy * o * (1 - tanh_cy * tanh_cy);
    grad_gates = ember::cat({grad_c * g * i * (1 - i), grad_c * cx * f * (1 - f), grad_c * i * (1 - g * g),
                             grad_hy * tanh_cy * o * (1 - o)},
                            1);
    grad_cx = grad_c * f;
  }
  return {mask[0] ? grad_gates : Tensor(), mask[1] ? grad_gates : Tensor(), mask[2] ? grad_cx : Tensor(),
          bias_grad(grad_gates, mask[3], input_bias), bias_grad(grad_gates, mask[4], hidden_bias)};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gru_cell_backward(
    const Tensor& grad_hy, const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& hx,
    const std::optional<Tensor>& input_bias, const std::optional<Tensor>& hidden_bias, std::array<bool, 5> mask) {
  Tensor grad_input_gates, grad_hidden_gates, grad_hx;
  if (!c10::GradMode::is_enabled()) {
    std::tie(grad_input_gates, grad_hidden_gates, grad_hx) =
        ember::_fused_gru_cell_backward(grad_hy, input_gates, hidden_gates, hx, input_bias, hidden_bias);
  } else {
    const std::vector<Tensor> in = input_gates.chunk(3, 1), hid = hidden_gates.chunk(3, 1);
    Tensor pre_r = in[0] + hid[0], pre_z = in[1] + hid[1], in_n = in[2], hn = hid[2];
    if (has(input_bias)) {
      const std::vector<Tensor> bi = input_bias->chunk(3, 0), bh = hidden_bias->chunk(3, 0);
      pre_r = pre_r + bi[0] + bh[0];
      pre_z = pre_z + bi[1] + bh[1];
      in_n = in_n + bi[2];
      hn = hn + bh[2];
    }
    const Tensor r = pre_r.sigmoid(), z = pre_z.sigmoid(), n = (in_n + r * hn).tanh();
    const Tensor grad_z = grad_hy * (hx - n) * z * (1 - z);
    const Tensor grad_n = grad_hy * (1 - z) * (1 - n * n);
    const Tensor grad_r = grad_n * hn * r * (1 - r);
    grad_input_gates = ember::cat({grad_r, grad_z, grad_n}, 1);
    grad_hidden_gates = ember::cat({grad_r, grad_z, grad_n * r}, 1);
    grad_hx = grad_hy * z;
  }
  return {mask[0] ? grad_input_gates : Tensor(), mask[1] ? grad_hidden_gates : Tensor(), mask[2] ? grad_hx : Tensor(),
          bias_grad(grad_input_gates, mask[3], input_bias), bias_grad(grad_hidden_gates, mask[4], hidden_bias)};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> rnn_recurrence_backward(
    const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_gates,
    const Tensor& hx, const std::optional<Tensor>& cx, const Tensor& w_hh, const std::optional<Tensor>& b_ih,
    const std::optional<Tensor>& b_hh, const std::optional<Tensor>& w_hr, int64_t mode, bool reverse,
    const Tensor& output, const Tensor& workspace, std::array<bool, 7> mask) {
  std::array<Tensor, 7> grads;
  if (!c10::GradMode::is_enabled()) {
    auto all = ember::_rnn_recurrence_backward(grad_output, grad_hy, grad_cy, input_gates, hx, cx, w_hh, b_ih, b_hh,
                                               w_hr, mode, reverse, output, workspace);
    grads = {std::get<0>(all), std::get<1>(all), std::get<2>(all), std::get<3>(all),
             std::get<4>(all), std::get<5>(all), std::get<6>(all)};
  } else {
    // Run the recurrence again as recorded steps and differentiate that.
    const std::array<Tensor, 7> args{input_gates, hx, cx.value_or(Tensor()), w_hh, b_ih.value_or(Tensor()),
                                     b_hh.value_or(Tensor()), w_hr.value_or(Tensor())};
    grads = grads_of_recomputed(args, mask, [&] {
      auto [out, hy, cy] = ember::_rnn_recurrence_differentiable(input_gates, hx, cx, w_hh, b_ih, b_hh, w_hr, mode,
                                                                 reverse);
      return Recomputed{{out, hy, cy}, {grad_output, grad_hy, grad_cy}};
    });
  }
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!mask[i]) grads[i] = Tensor();
  }
  return {grads[0], grads[1], grads[2], grads[3], grads[4], grads[5], grads[6]};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> onednn_lstm_layer_backward(
    const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input, const Tensor& hx,
    const Tensor& cx, const Tensor& w_ih, const Tensor& w_hh, const std::optional<Tensor>& b_ih,
    const std::optional<Tensor>& b_hh, bool reverse, const Tensor& output, const Tensor& hy, const Tensor& cy,
    const Tensor& workspace, std::array<bool, 7> mask) {
  std::array<Tensor, 7> grads;
  if (!c10::GradMode::is_enabled()) {
    auto [dx, dhx, dcx, dw_ih, dw_hh, db] = ember::_onednn_lstm_layer_backward(
        input, hx, cx, w_ih, w_hh, b_ih, b_hh, reverse, output, hy, cy, workspace, grad_output, grad_hy, grad_cy);
    grads = {dx, dhx, dcx, dw_ih, dw_hh, db, db};
  } else {
    // The same layer as the composite path runs it, recorded.
    const std::array<Tensor, 7> args{input, hx, cx, w_ih, w_hh, b_ih.value_or(Tensor()), b_hh.value_or(Tensor())};
    grads = grads_of_recomputed(args, mask, [&] {
      auto [out, h, c] = ember::_rnn_recurrence_differentiable(ember::matmul(input, w_ih.t()), hx, cx, w_hh, b_ih,
                                                               b_hh, std::nullopt, /*LSTM*/ 0, reverse);
      return Recomputed{{out, h, c}, {grad_output, grad_hy, grad_cy}};
    });
  }
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!mask[i] || (i >= 5 && !has(b_ih))) grads[i] = Tensor();
  }
  return {grads[0], grads[1], grads[2], grads[3], grads[4], grads[5], grads[6]};
}

}  // namespace ember::autograd::manual
