// The pointwise half of one LSTM or GRU step, fused: from the two gate
// projections (input @ W_ih^T and hidden @ W_hh^T, computed by GEMM outside)
// to the new state, in one pass over each row's gates instead of a dozen
// elementwise ops with their temporaries. The backward recomputes the gate
// activations from the same inputs rather than keeping them, so a step saves
// only what the forward was given. The row math is cpu/RNNCellMath.h.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/RNNRows.h>
#include <aten/native/cpu/RNNCellMath.h>

#include <string_view>
#include <tuple>
#include <vector>

namespace ember::native {

namespace {

using namespace rnn_rows;

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
  EMBER_CHECK(rnn_rows::has(input_bias) == rnn_rows::has(hidden_bias), "{}: expected both biases or neither", op);
  for (const auto* b : {&input_bias, &hidden_bias}) {
    if (!rnn_rows::has(*b)) continue;
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
  if (rnn_rows::has(input_bias)) {
    c.input_bias = input_bias->to(dtype).contiguous();
    c.hidden_bias = hidden_bias->to(dtype).contiguous();
  }
  return c;
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

// A GRU row's work buffer (see cpu::gru_row_forward): r and z summed, the new
// gate's input and hidden parts apart.
template <typename T, typename M>
void gru_work(const T* ig, const T* hg, const T* bi, const T* bh, M* work, int64_t H) {
  sum_gates<T, M>(ig, hg, bi, bh, work, 2 * H);
  for (int64_t j = 0; j < H; ++j) {
    work[2 * H + j] = static_cast<M>(ig[2 * H + j]) + (bi ? static_cast<M>(bi[2 * H + j]) : M(0));
    work[3 * H + j] = static_cast<M>(hg[2 * H + j]) + (bh ? static_cast<M>(bh[2 * H + j]) : M(0));
  }
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
  cpu::visit_floating(cx.scalar_type(), [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *ig = c.input_gates.data_ptr<T>(), *hg = c.hidden_gates.data_ptr<T>(), *cxp = c.state.data_ptr<T>();
    const T *bi = data_or_null<T>(c.input_bias), *bh = data_or_null<T>(c.hidden_bias);
    T *hyp = hy.data_ptr<T>(), *cyp = cy.data_ptr<T>();
    parallel_for(0, c.batch, rows_per_task(H), [&](int64_t begin, int64_t end) {
      std::vector<M> buf(8 * H);
      M *gates = buf.data(), *c_prev = gates + 4 * H, *cell = c_prev + H, *h = cell + H, *scratch = h + H;
      for (int64_t r = begin; r < end; ++r) {
        sum_gates<T, M>(ig + r * 4 * H, hg + r * 4 * H, bi, bh, gates, 4 * H);
        load(cxp + r * H, c_prev, H);
        cpu::lstm_row_forward(gates, c_prev, cell, h, scratch, H);
        store(cell, cyp + r * H, H);
        store(h, hyp + r * H, H);
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
  cpu::visit_floating(cx.scalar_type(), [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *ig = c.input_gates.data_ptr<T>(), *hg = c.hidden_gates.data_ptr<T>(), *cxp = c.state.data_ptr<T>();
    const T *bi = data_or_null<T>(c.input_bias), *bh = data_or_null<T>(c.hidden_bias);
    const T *ghyp = ghy.data_ptr<T>(), *gcyp = gcy.data_ptr<T>();
    T *gg = grad_gates.data_ptr<T>(), *gcx = grad_cx.data_ptr<T>();
    parallel_for(0, c.batch, rows_per_task(H), [&](int64_t begin, int64_t end) {
      std::vector<M> buf(14 * H);
      M *gates = buf.data(), *c_prev = gates + 4 * H, *cell = c_prev + H, *h = cell + H, *scratch = h + H;
      M *gh = scratch + H, *gc = gh + H, *out = gc + H;
      for (int64_t r = begin; r < end; ++r) {
        // The forward again, for the activations (and the cell it made).
        sum_gates<T, M>(ig + r * 4 * H, hg + r * 4 * H, bi, bh, gates, 4 * H);
        load(cxp + r * H, c_prev, H);
        cpu::lstm_row_forward(gates, c_prev, cell, h, scratch, H);
        load(ghyp + r * H, gh, H);
        load(gcyp + r * H, gc, H);
        cpu::lstm_row_backward(gates, c_prev, cell, gh, gc, out, gc, scratch, H);
        store(out, gg + r * 4 * H, 4 * H);
        store(gc, gcx + r * H, H);
      }
    });
  });
  return {grad_gates, grad_cx};
}

Tensor _fused_gru_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& hx,
                       const std::optional<Tensor>& input_bias, const std::optional<Tensor>& hidden_bias) {
  const CellOperands c = cell_operands("_fused_gru_cell", 3, input_gates, hidden_gates, hx, input_bias, hidden_bias);
  Tensor hy = ember::empty(hx.sizes(), hx.dtype(), hx.device());
  if (hx.is_meta() || hx.numel() == 0) return hy;
  const int64_t H = c.hidden;
  cpu::visit_floating(hx.scalar_type(), [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *ig = c.input_gates.data_ptr<T>(), *hg = c.hidden_gates.data_ptr<T>(), *hxp = c.state.data_ptr<T>();
    const T *bi = data_or_null<T>(c.input_bias), *bh = data_or_null<T>(c.hidden_bias);
    T* hyp = hy.data_ptr<T>();
    parallel_for(0, c.batch, rows_per_task(H), [&](int64_t begin, int64_t end) {
      std::vector<M> buf(6 * H);
      M *work = buf.data(), *h_prev = work + 4 * H, *h = h_prev + H;
      for (int64_t r = begin; r < end; ++r) {
        gru_work<T, M>(ig + r * 3 * H, hg + r * 3 * H, bi, bh, work, H);
        load(hxp + r * H, h_prev, H);
        cpu::gru_row_forward(work, h_prev, h, H);
        store(h, hyp + r * H, H);
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
  cpu::visit_floating(hx.scalar_type(), [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *ig = c.input_gates.data_ptr<T>(), *hg = c.hidden_gates.data_ptr<T>(), *hxp = c.state.data_ptr<T>();
    const T *bi = data_or_null<T>(c.input_bias), *bh = data_or_null<T>(c.hidden_bias), *ghyp = ghy.data_ptr<T>();
    T *gi = grad_input_gates.data_ptr<T>(), *ghg = grad_hidden_gates.data_ptr<T>(), *ghx = grad_hx.data_ptr<T>();
    parallel_for(0, c.batch, rows_per_task(H), [&](int64_t begin, int64_t end) {
      std::vector<M> buf(14 * H);
      M *work = buf.data(), *h_prev = work + 4 * H, *h = h_prev + H, *gh = h + H, *gin = gh + H;
      M *ghid = gin + 3 * H, *gprev = ghid + 3 * H;
      for (int64_t r = begin; r < end; ++r) {
        gru_work<T, M>(ig + r * 3 * H, hg + r * 3 * H, bi, bh, work, H);
        load(hxp + r * H, h_prev, H);
        cpu::gru_row_forward(work, h_prev, h, H);
        load(ghyp + r * H, gh, H);
        cpu::gru_row_backward(work, h_prev, gh, gin, ghid, gprev, H);
        store(gin, gi + r * 3 * H, 3 * H);
        store(ghid, ghg + r * 3 * H, 3 * H);
        store(gprev, ghx + r * H, H);
      }
    });
  });
  return {grad_input_gates, grad_hidden_gates, grad_hx};
}

}  // namespace ember::native
