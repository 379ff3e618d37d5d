// The pointwise half of one LSTM or GRU step, fused: from the two gate
// projections (input @ W_ih^T and hidden @ W_hh^T, computed by GEMM outside)
// to the new state, in one pass over each row's gates instead of a dozen
// elementwise ops with their temporaries. The backward recomputes the gate
// activations from the same inputs rather than keeping them, so a step saves
// only what the forward was given.
//
// Gate order is torch's: LSTM (input, forget, cell, output), GRU (reset,
// update, new); the GRU's hidden bias of the new gate stays inside r * (.).

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/VecMath.h>

#include <cmath>
#include <string_view>
#include <tuple>
#include <vector>

namespace ember::native {

namespace {

template <typename M>
void sigmoid_in_place(M* x, int64_t n) {
  if constexpr (std::is_same_v<M, float>) {
    cpu::sigmoid_floats(x, x, n);
  } else {
    for (int64_t i = 0; i < n; ++i) x[i] = M(1) / (M(1) + std::exp(-x[i]));
  }
}

template <typename M>
void tanh_into(const M* x, M* y, int64_t n) {
  if constexpr (std::is_same_v<M, float>) {
    cpu::tanh_floats(x, y, n);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
  }
}

// The tensors of one cell call, checked and made dense in one dtype.
struct CellOperands {
  Tensor input_gates, hidden_gates, state, input_bias, hidden_bias;
  int64_t batch = 0, hidden = 0;
};

CellOperands cell_operands(std::string_view op, int64_t gate_count, const Tensor& input_gates,
                           const Tensor& hidden_gates, const Tensor& state, const std::optional<Tensor>& input_bias,
                           const std::optional<Tensor>& hidden_bias) {
  EMBER_CHECK(state.dim() == 2, "{}: expected a 2-D state of shape (batch, hidden_size), got size {}", op,
              c10::str_sizes(state.sizes()));
  CellOperands c;
  c.batch = state.size(0);
  c.hidden = state.size(1);
  const std::vector<int64_t> gates_shape{c.batch, gate_count * c.hidden};
  for (const auto& [t, name] : {std::pair{&input_gates, "input_gates"}, std::pair{&hidden_gates, "hidden_gates"}}) {
    EMBER_CHECK(t->sizes() == IntArrayRef(gates_shape), "{}: expected {} of size {} (the state is {}), got {}", op,
                name, c10::str_sizes(gates_shape), c10::str_sizes(state.sizes()), c10::str_sizes(t->sizes()));
  }
  const bool has_input_bias = input_bias && input_bias->defined();
  const bool has_hidden_bias = hidden_bias && hidden_bias->defined();
  EMBER_CHECK(has_input_bias == has_hidden_bias, "{}: expected both biases or neither", op);
  for (const auto* b : {&input_bias, &hidden_bias}) {
    if (!(b->has_value() && (*b)->defined())) continue;
    EMBER_CHECK((**b).dim() == 1 && (**b).size(0) == gate_count * c.hidden,
                "{}: expected biases of size [{}], got {}", op, gate_count * c.hidden,
                c10::str_sizes((**b).sizes()));
  }
  const ScalarType dtype = state.scalar_type();
  EMBER_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(dtype), "\"{}\" not implemented for '{}'", op,
                              c10::toString(dtype));
  for (const Tensor* t : {&input_gates, &hidden_gates}) {
    EMBER_CHECK(t->scalar_type() == dtype, "{}: expected all tensors of dtype {}, got {}", op,
                c10::toString(dtype), c10::toString(t->scalar_type()));
  }
  for (const Tensor* t : {&input_gates, &hidden_gates, &state}) {
    EMBER_CHECK(t->device() == state.device(), "{}: expected all tensors on {}, got one on {}", op,
                state.device().str(), t->device().str());
  }
  c.input_gates = input_gates.contiguous();
  c.hidden_gates = hidden_gates.contiguous();
  c.state = state.contiguous();
  if (has_input_bias) {
    c.input_bias = input_bias->to(dtype).contiguous();
    c.hidden_bias = hidden_bias->to(dtype).contiguous();
  }
  return c;
}

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// pre[j] = input_gates[j] + hidden_gates[j] (+ both biases), in opmath.
template <typename T, typename M>
void sum_gates(const T* ig, const T* hg, const T* bi, const T* bh, M* pre, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    M v = static_cast<M>(ig[j]) + static_cast<M>(hg[j]);
    if (bi) v += static_cast<M>(bi[j]) + static_cast<M>(bh[j]);
    pre[j] = v;
  }
}

// Gates of one LSTM row, activated: sigmoid(i), sigmoid(f), tanh(g), sigmoid(o).
template <typename T, typename M>
void lstm_gates(const T* ig, const T* hg, const T* bi, const T* bh, M* gates, int64_t H) {
  sum_gates<T, M>(ig, hg, bi, bh, gates, 4 * H);
  sigmoid_in_place(gates, 2 * H);
  tanh_into(gates + 2 * H, gates + 2 * H, H);
  sigmoid_in_place(gates + 3 * H, H);
}

int64_t rows_per_task(int64_t hidden) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(hidden, 1)); }

// Visits the floating dtype of `t` with its opmath type.
template <typename F>
void visit_floating(const Tensor& t, F&& f) {
  c10::visit_scalar_type(t.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) f(T{}, cpu::opmath_t<T>{});
  });
}

}  // namespace

std::tuple<Tensor, Tensor> _fused_lstm_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& cx,
                                            const std::optional<Tensor>& input_bias,
                                            const std::optional<Tensor>& hidden_bias) {
  const CellOperands c = cell_operands("_fused_lstm_cell", 4, input_gates, hidden_gates, cx, input_bias, hidden_bias);
  Tensor hy = ember::empty(cx.sizes(), cx.dtype(), cx.device());
  Tensor cy = ember::empty(cx.sizes(), cx.dtype(), cx.device());
  if (cx.is_meta() || cx.numel() == 0) return {hy, cy};
  const int64_t H = c.hidden;
  visit_floating(cx, [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *ig = c.input_gates.data_ptr<T>(), *hg = c.hidden_gates.data_ptr<T>(), *cxp = c.state.data_ptr<T>();
    const T *bi = data_or_null<T>(c.input_bias), *bh = data_or_null<T>(c.hidden_bias);
    T *hyp = hy.data_ptr<T>(), *cyp = cy.data_ptr<T>();
    parallel_for(0, c.batch, rows_per_task(H), [&](int64_t begin, int64_t end) {
      std::vector<M> gates(4 * H), cell(H);
      for (int64_t r = begin; r < end; ++r) {
        lstm_gates<T, M>(ig + r * 4 * H, hg + r * 4 * H, bi, bh, gates.data(), H);
        const M *i = gates.data(), *f = i + H, *g = i + 2 * H, *o = i + 3 * H;
        for (int64_t j = 0; j < H; ++j) cell[j] = f[j] * static_cast<M>(cxp[r * H + j]) + i[j] * g[j];
        for (int64_t j = 0; j < H; ++j) cyp[r * H + j] = static_cast<T>(cell[j]);
        tanh_into(cell.data(), cell.data(), H);
        for (int64_t j = 0; j < H; ++j) hyp[r * H + j] = static_cast<T>(o[j] * cell[j]);
      }
    });
  });
  return {hy, cy};
}

std::tuple<Tensor, Tensor> _fused_lstm_cell_backward(const Tensor& grad_hy, const Tensor& grad_cy,
                                                     const Tensor& input_gates, const Tensor& hidden_gates,
                                                     const Tensor& cx, const Tensor& cy,
                                                     const std::optional<Tensor>& input_bias,
                                                     const std::optional<Tensor>& hidden_bias) {
  const CellOperands c =
      cell_operands("_fused_lstm_cell_backward", 4, input_gates, hidden_gates, cx, input_bias, hidden_bias);
  for (const auto& [t, name] : {std::pair{&grad_hy, "grad_hy"}, std::pair{&grad_cy, "grad_cy"}, std::pair{&cy, "cy"}}) {
    EMBER_CHECK(t->sizes() == cx.sizes(), "_fused_lstm_cell_backward: expected {} of size {}, got {}", name,
                c10::str_sizes(cx.sizes()), c10::str_sizes(t->sizes()));
  }
  Tensor grad_gates = ember::empty(input_gates.sizes(), cx.dtype(), cx.device());
  Tensor grad_cx = ember::empty(cx.sizes(), cx.dtype(), cx.device());
  if (cx.is_meta() || cx.numel() == 0) return {grad_gates, grad_cx};
  const int64_t H = c.hidden;
  const Tensor ghy = grad_hy.to(cx.dtype()).contiguous(), gcy = grad_cy.to(cx.dtype()).contiguous();
  const Tensor cy_dense = cy.to(cx.dtype()).contiguous();
  visit_floating(cx, [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *ig = c.input_gates.data_ptr<T>(), *hg = c.hidden_gates.data_ptr<T>(), *cxp = c.state.data_ptr<T>();
    const T *bi = data_or_null<T>(c.input_bias), *bh = data_or_null<T>(c.hidden_bias);
    const T *ghyp = ghy.data_ptr<T>(), *gcyp = gcy.data_ptr<T>(), *cyp = cy_dense.data_ptr<T>();
    T *gg = grad_gates.data_ptr<T>(), *gcx = grad_cx.data_ptr<T>();
    parallel_for(0, c.batch, rows_per_task(H), [&](int64_t begin, int64_t end) {
      std::vector<M> gates(4 * H), tanh_cy(H);
      for (int64_t r = begin; r < end; ++r) {
        lstm_gates<T, M>(ig + r * 4 * H, hg + r * 4 * H, bi, bh, gates.data(), H);
        const M *i = gates.data(), *f = i + H, *g = i + 2 * H, *o = i + 3 * H;
        for (int64_t j = 0; j < H; ++j) tanh_cy[j] = static_cast<M>(cyp[r * H + j]);
        tanh_into(tanh_cy.data(), tanh_cy.data(), H);
        T* out = gg + r * 4 * H;
        for (int64_t j = 0; j < H; ++j) {
          const M gh = static_cast<M>(ghyp[r * H + j]), tc = tanh_cy[j];
          const M gc = static_cast<M>(gcyp[r * H + j]) + gh * o[j] * (M(1) - tc * tc);
          out[j] = static_cast<T>(gc * g[j] * i[j] * (M(1) - i[j]));
          out[H + j] = static_cast<T>(gc * static_cast<M>(cxp[r * H + j]) * f[j] * (M(1) - f[j]));
          out[2 * H + j] = static_cast<T>(gc * i[j] * (M(1) - g[j] * g[j]));
          out[3 * H + j] = static_cast<T>(gh * tc * o[j] * (M(1) - o[j]));
          gcx[r * H + j] = static_cast<T>(gc * f[j]);
        }
      }
    });
  });
  return {grad_gates, grad_cx};
}

namespace {

// One GRU row: r and z activated, n = tanh(in + r * hn), hn = the hidden
// projection of the new gate with its bias. Leaves r, z, n in gates[0..3H)
// and hn in hn.
template <typename T, typename M>
void gru_gates(const T* ig, const T* hg, const T* bi, const T* bh, M* gates, M* hn, int64_t H) {
  sum_gates<T, M>(ig, hg, bi, bh, gates, 2 * H);
  sigmoid_in_place(gates, 2 * H);
  const M* r = gates;
  M* n = gates + 2 * H;
  for (int64_t j = 0; j < H; ++j) {
    hn[j] = static_cast<M>(hg[2 * H + j]) + (bh ? static_cast<M>(bh[2 * H + j]) : M(0));
    n[j] = static_cast<M>(ig[2 * H + j]) + (bi ? static_cast<M>(bi[2 * H + j]) : M(0)) + r[j] * hn[j];
  }
  tanh_into(n, n, H);
}

}  // namespace

Tensor _fused_gru_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& hx,
                       const std::optional<Tensor>& input_bias, const std::optional<Tensor>& hidden_bias) {
  const CellOperands c = cell_operands("_fused_gru_cell", 3, input_gates, hidden_gates, hx, input_bias, hidden_bias);
  Tensor hy = ember::empty(hx.sizes(), hx.dtype(), hx.device());
  if (hx.is_meta() || hx.numel() == 0) return hy;
  const int64_t H = c.hidden;
  visit_floating(hx, [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *ig = c.input_gates.data_ptr<T>(), *hg = c.hidden_gates.data_ptr<T>(), *hxp = c.state.data_ptr<T>();
    const T *bi = data_or_null<T>(c.input_bias), *bh = data_or_null<T>(c.hidden_bias);
    T* hyp = hy.data_ptr<T>();
    parallel_for(0, c.batch, rows_per_task(H), [&](int64_t begin, int64_t end) {
      std::vector<M> gates(3 * H), hn(H);
      for (int64_t r = begin; r < end; ++r) {
        gru_gates<T, M>(ig + r * 3 * H, hg + r * 3 * H, bi, bh, gates.data(), hn.data(), H);
        const M *z = gates.data() + H, *n = gates.data() + 2 * H;
        for (int64_t j = 0; j < H; ++j) {
          hyp[r * H + j] = static_cast<T>(n[j] + z[j] * (static_cast<M>(hxp[r * H + j]) - n[j]));
        }
      }
    });
  });
  return hy;
}

std::tuple<Tensor, Tensor, Tensor> _fused_gru_cell_backward(const Tensor& grad_hy, const Tensor& input_gates,
                                                            const Tensor& hidden_gates, const Tensor& hx,
                                                            const std::optional<Tensor>& input_bias,
                                                            const std::optional<Tensor>& hidden_bias) {
  const CellOperands c =
      cell_operands("_fused_gru_cell_backward", 3, input_gates, hidden_gates, hx, input_bias, hidden_bias);
  EMBER_CHECK(grad_hy.sizes() == hx.sizes(), "_fused_gru_cell_backward: expected grad_hy of size {}, got {}",
              c10::str_sizes(hx.sizes()), c10::str_sizes(grad_hy.sizes()));
  Tensor grad_input_gates = ember::empty(input_gates.sizes(), hx.dtype(), hx.device());
  Tensor grad_hidden_gates = ember::empty(input_gates.sizes(), hx.dtype(), hx.device());
  Tensor grad_hx = ember::empty(hx.sizes(), hx.dtype(), hx.device());
  if (hx.is_meta() || hx.numel() == 0) return {grad_input_gates, grad_hidden_gates, grad_hx};
  const int64_t H = c.hidden;
  const Tensor ghy = grad_hy.to(hx.dtype()).contiguous();
  visit_floating(hx, [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *ig = c.input_gates.data_ptr<T>(), *hg = c.hidden_gates.data_ptr<T>(), *hxp = c.state.data_ptr<T>();
    const T *bi = data_or_null<T>(c.input_bias), *bh = data_or_null<T>(c.hidden_bias), *ghyp = ghy.data_ptr<T>();
    T *gi = grad_input_gates.data_ptr<T>(), *gh = grad_hidden_gates.data_ptr<T>(), *ghx = grad_hx.data_ptr<T>();
    parallel_for(0, c.batch, rows_per_task(H), [&](int64_t begin, int64_t end) {
      std::vector<M> gates(3 * H), hn(H);
      for (int64_t r = begin; r < end; ++r) {
        gru_gates<T, M>(ig + r * 3 * H, hg + r * 3 * H, bi, bh, gates.data(), hn.data(), H);
        const M *rg = gates.data(), *z = rg + H, *n = rg + 2 * H;
        T *gir = gi + r * 3 * H, *ghr = gh + r * 3 * H;
        for (int64_t j = 0; j < H; ++j) {
          const M g = static_cast<M>(ghyp[r * H + j]), h = static_cast<M>(hxp[r * H + j]);
          const M gz = g * (h - n[j]) * z[j] * (M(1) - z[j]);
          const M gn = g * (M(1) - z[j]) * (M(1) - n[j] * n[j]);
          const M gr = gn * hn[j] * rg[j] * (M(1) - rg[j]);
          gir[j] = ghr[j] = static_cast<T>(gr);
          gir[H + j] = ghr[H + j] = static_cast<T>(gz);
          gir[2 * H + j] = static_cast<T>(gn);
          ghr[2 * H + j] = static_cast<T>(gn * rg[j]);
          ghx[r * H + j] = static_cast<T>(g * z[j]);
        }
      }
    });
  });
  return {grad_input_gates, grad_hidden_gates, grad_hx};
}

}  // namespace ember::native
