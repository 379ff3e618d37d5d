#pragma once
// The pointwise math of one LSTM / GRU row (H hidden units), forward and
// backward, on opmath buffers. Shared by the single-step fused cells
// (RNNCells.cpp) and the whole-sequence recurrence (RNNRecurrence.cpp).
//
// Gate order is torch's: LSTM (input, forget, cell, output), GRU (reset,
// update, new); the GRU's hidden bias of the new gate stays inside r * (.).

#include <aten/native/cpu/VecMath.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ember::native::cpu {

template <typename M>
void sigmoid_in_place(M* x, int64_t n) {
  if constexpr (std::is_same_v<M, float>) {
    sigmoid_floats(x, x, n);
  } else {
    for (int64_t i = 0; i < n; ++i) x[i] = M(1) / (M(1) + std::exp(-x[i]));
  }
}

template <typename M>
void tanh_into(const M* x, M* y, int64_t n) {
  if constexpr (std::is_same_v<M, float>) {
    tanh_floats(x, y, n);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
  }
}

// gates (4H): pre-activations in, activations out. Writes c (H) and h (H);
// h may alias nothing else, scratch needs H.
template <typename M>
void lstm_row_forward(M* gates, const M* c_prev, M* c, M* h, M* scratch, int64_t H) {
  sigmoid_in_place(gates, 2 * H);
  tanh_into(gates + 2 * H, gates + 2 * H, H);
  sigmoid_in_place(gates + 3 * H, H);
  const M *i = gates, *f = gates + H, *g = gates + 2 * H, *o = gates + 3 * H;
  for (int64_t j = 0; j < H; ++j) c[j] = f[j] * c_prev[j] + i[j] * g[j];
  tanh_into(c, scratch, H);
  for (int64_t j = 0; j < H; ++j) h[j] = o[j] * scratch[j];
}

// From the activated gates (4H), the previous and new cell, and the
// gradients of h and c: the gradient of the pre-activation gates (4H) and of
// the previous cell. grad_c may alias grad_c_prev; scratch needs H.
template <typename M>
void lstm_row_backward(const M* gates, const M* c_prev, const M* c, const M* grad_h, const M* grad_c, M* grad_gates,
                       M* grad_c_prev, M* scratch, int64_t H) {
  const M *i = gates, *f = gates + H, *g = gates + 2 * H, *o = gates + 3 * H;
  tanh_into(c, scratch, H);
  for (int64_t j = 0; j < H; ++j) {
    const M tc = scratch[j];
    const M gc = grad_c[j] + grad_h[j] * o[j] * (M(1) - tc * tc);
    grad_gates[j] = gc * g[j] * i[j] * (M(1) - i[j]);
    grad_gates[H + j] = gc * c_prev[j] * f[j] * (M(1) - f[j]);
    grad_gates[2 * H + j] = gc * i[j] * (M(1) - g[j] * g[j]);
    grad_gates[3 * H + j] = grad_h[j] * tc * o[j] * (M(1) - o[j]);
    grad_c_prev[j] = gc * f[j];
  }
}

// work (4H): in, r and z pre-activations (input + hidden + biases) in
// [0, 2H), the new gate's input part (with its bias) in [2H, 3H) and hidden
// part hn (with its bias) in [3H, 4H); out, r, z, n and hn. Writes h.
template <typename M>
void gru_row_forward(M* work, const M* h_prev, M* h, int64_t H) {
  sigmoid_in_place(work, 2 * H);
  const M *r = work, *z = work + H, *hn = work + 3 * H;
  M* n = work + 2 * H;
  for (int64_t j = 0; j < H; ++j) n[j] += r[j] * hn[j];
  tanh_into(n, n, H);
  for (int64_t j = 0; j < H; ++j) h[j] = n[j] + z[j] * (h_prev[j] - n[j]);
}

// From r, z, n, hn (the forward's work) and the gradient of h: the gradients
// of the input-side gates (3H), of the hidden-side gates (3H) and the part of
// h_prev's gradient that does not go through W_hh.
template <typename M>
void gru_row_backward(const M* work, const M* h_prev, const M* grad_h, M* grad_input_gates, M* grad_hidden_gates,
                      M* grad_h_prev, int64_t H) {
  const M *r = work, *z = work + H, *n = work + 2 * H, *hn = work + 3 * H;
  for (int64_t j = 0; j < H; ++j) {
    const M gh = grad_h[j];
    const M gz = gh * (h_prev[j] - n[j]) * z[j] * (M(1) - z[j]);
    const M gn = gh * (M(1) - z[j]) * (M(1) - n[j] * n[j]);
    const M gr = gn * hn[j] * r[j] * (M(1) - r[j]);
    grad_input_gates[j] = grad_hidden_gates[j] = gr;
    grad_input_gates[H + j] = grad_hidden_gates[H + j] = gz;
    grad_input_gates[2 * H + j] = gn;
    grad_hidden_gates[2 * H + j] = gn * r[j];
    grad_h_prev[j] = gh * z[j];
  }
}

}  // namespace ember::native::cpu
