// One direction of one recurrent layer over a whole dense sequence, as a
// single op with its own backward (backpropagation through time).
//
// Recording each step as ops costs the backward twice over: every step's
// slice of the input projection comes back as a full-size zero tensor to be
// added up, and W_hh's gradient is summed from L small GEMMs. Here the
// backward walks the steps once, keeps the gate gradients of all steps in
// one tensor, and takes the weight gradients from it with one GEMM each.
//
// The forward keeps a workspace for that walk: LSTM, the activated gates and
// the cell of every step (L, N, 5H); GRU, r, z, n and the hidden part of the
// new gate (L, N, 4H); RNN, nothing (the output is enough).

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/RNNMode.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/RNNRows.h>
#include <aten/native/cpu/RNNCellMath.h>

#include <tuple>
#include <vector>

namespace ember::native {

namespace {

using namespace rnn_rows;

using rnn_rows::has;

// Sizes and dense operands of one recurrence call, checked.
struct Recurrence {
  RecurrentMode mode;
  int64_t steps = 0, batch = 0, hidden = 0, out_size = 0, gates = 0;
  Tensor input_gates, hx, cx, w_hh, b_ih, b_hh, w_hr;

  int64_t workspace_width() const {
    switch (mode) {
      case RecurrentMode::LSTM: return 5 * hidden;
      case RecurrentMode::GRU: return 4 * hidden;
      default: return 0;
    }
  }
  // The step processed k-th (reverse walks from the end).
  int64_t time(int64_t k, bool reverse) const { return reverse ? steps - 1 - k : k; }
};

Recurrence recurrence(const char* op, const Tensor& input_gates, const Tensor& hx, const std::optional<Tensor>& cx,
                      const Tensor& w_hh, const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh,
                      const std::optional<Tensor>& w_hr, int64_t mode) {
  EMBER_CHECK(mode >= 0 && mode <= 3, "{}: unknown mode {} (0 LSTM, 1 GRU, 2 RNN_TANH, 3 RNN_RELU)", op, mode);
  Recurrence r;
  r.mode = static_cast<RecurrentMode>(mode);
  const int64_t G = gate_count(r.mode);
  EMBER_CHECK(input_gates.dim() == 3 && hx.dim() == 2 && w_hh.dim() == 2,
              "{}: expected input_gates (L, N, G*H), hx (N, H_out) and w_hh (G*H, H_out), got sizes {}, {} and {}",
              op, c10::str_sizes(input_gates.sizes()), c10::str_sizes(hx.sizes()), c10::str_sizes(w_hh.sizes()));
  r.steps = input_gates.size(0);
  r.batch = input_gates.size(1);
  r.gates = w_hh.size(0);
  r.hidden = r.gates / G;
  r.out_size = hx.size(1);
  EMBER_CHECK(r.steps > 0, "{}: Expected sequence length to be larger than 0 in RNN", op);
  EMBER_CHECK(r.gates % G == 0 && input_gates.size(2) == r.gates && hx.size(0) == r.batch &&
                  w_hh.size(1) == r.out_size,
              "{}: input_gates {}, hx {} and w_hh {} do not fit together", op, c10::str_sizes(input_gates.sizes()),
              c10::str_sizes(hx.sizes()), c10::str_sizes(w_hh.sizes()));
  const bool lstm = r.mode == RecurrentMode::LSTM;
  EMBER_CHECK(lstm == has(cx), "{}: a cell state is {} for this mode", op, lstm ? "required" : "not accepted");
  EMBER_CHECK(!has(w_hr) || lstm, "{}: projections (w_hr) are only for LSTM", op);
  if (lstm) {
    EMBER_CHECK(cx->sizes() == IntArrayRef({r.batch, r.hidden}), "{}: expected cx of size [{}, {}], got {}", op,
                r.batch, r.hidden, c10::str_sizes(cx->sizes()));
  }
  const int64_t expected_out = has(w_hr) ? w_hr->size(0) : r.hidden;
  EMBER_CHECK(r.out_size == expected_out && (!has(w_hr) || w_hr->sizes() == IntArrayRef({r.out_size, r.hidden})),
              "{}: expected hx of size [{}, {}], got {}", op, r.batch, expected_out, c10::str_sizes(hx.sizes()));
  for (const auto* b : {&b_ih, &b_hh}) {
    if (!has(*b)) continue;
    EMBER_CHECK((*b)->dim() == 1 && (*b)->size(0) == r.gates, "{}: expected biases of size [{}], got {}", op,
                r.gates, c10::str_sizes((*b)->sizes()));
  }
  const ScalarType dtype = input_gates.scalar_type();
  EMBER_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(dtype), "\"{}\" not implemented for '{}'", op, c10::toString(dtype));
  std::vector<const Tensor*> all{&hx, &w_hh};
  for (const auto* t : {&cx, &b_ih, &b_hh, &w_hr}) {
    if (has(*t)) all.push_back(&**t);
  }
  for (const Tensor* t : all) {
    EMBER_CHECK(t->scalar_type() == dtype, "{}: expected all tensors of dtype {}, got {}", op, c10::toString(dtype),
                c10::toString(t->scalar_type()));
    EMBER_CHECK(t->device() == input_gates.device(), "{}: expected all tensors on {}, got one on {}", op,
                input_gates.device().str(), t->device().str());
  }
  r.input_gates = input_gates.contiguous();
  r.hx = hx.contiguous();
  r.w_hh = w_hh;
  if (lstm) r.cx = cx->contiguous();
  if (has(b_ih)) r.b_ih = b_ih->contiguous();
  if (has(b_hh)) r.b_hh = b_hh->contiguous();
  if (has(w_hr)) r.w_hr = *w_hr;
  return r;
}

// The hidden state before each step, in time order: h0 where the walk begins,
// the neighbouring step's output elsewhere.
Tensor previous_hidden(const Tensor& output, const Tensor& hx, bool reverse) {
  const int64_t L = output.size(0);
  if (L == 1) return hx.unsqueeze(0);
  return reverse ? ember::cat({output.narrow(0, 1, L - 1), hx.unsqueeze(0)}, 0)
                 : ember::cat({hx.unsqueeze(0), output.narrow(0, 0, L - 1)}, 0);
}

Tensor flat_rows(const Tensor& t) { return t.reshape({t.size(0) * t.size(1), t.size(2)}); }

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> _rnn_recurrence(const Tensor& input_gates, const Tensor& hx,
                                                           const std::optional<Tensor>& cx, const Tensor& w_hh,
                                                           const std::optional<Tensor>& b_ih,
                                                           const std::optional<Tensor>& b_hh,
                                                           const std::optional<Tensor>& w_hr, int64_t mode,
                                                           bool reverse) {
  const Recurrence r = recurrence("_rnn_recurrence", input_gates, hx, cx, w_hh, b_ih, b_hh, w_hr, mode);
  const int64_t L = r.steps, N = r.batch, H = r.hidden, HO = r.out_size, GH = r.gates;
  const auto opts = input_gates.options();
  Tensor output = ember::empty({L, N, HO}, opts);
  Tensor workspace = ember::empty({L, N, r.workspace_width()}, opts);
  const bool lstm = r.mode == RecurrentMode::LSTM;
  if (input_gates.is_meta() || N == 0) {
    return {output, ember::empty({N, HO}, opts), lstm ? ember::empty({N, H}, opts) : ember::empty({0}, opts),
            workspace};
  }
  const Tensor w_hh_t = r.w_hh.t(), w_hr_t = r.w_hr.defined() ? r.w_hr.t() : Tensor();
  Tensor raw = r.w_hr.defined() ? ember::empty({N, H}, opts) : Tensor();  // LSTM output before projection
  cpu::visit_floating(input_gates.scalar_type(), [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *bi = data_or_null<T>(r.b_ih), *bh = data_or_null<T>(r.b_hh);
    T *out = output.data_ptr<T>(), *ws = workspace.numel() ? workspace.data_ptr<T>() : nullptr;
    const int64_t W = r.workspace_width();
    for (int64_t k = 0; k < L; ++k) {
      const int64_t t = r.time(k, reverse), prev = r.time(k - 1, reverse);
      const Tensor h_prev = k == 0 ? r.hx : output.select(0, prev);
      const Tensor hidden_gates = ember::mm(h_prev, w_hh_t).contiguous();
      const T* ig = r.input_gates.data_ptr<T>() + t * N * GH;
      const T* hg = hidden_gates.data_ptr<T>();
      const T* hp = h_prev.data_ptr<T>();  // hx and output rows are contiguous
      T* target = raw.defined() ? raw.data_ptr<T>() : out + t * N * HO;
      parallel_for(0, N, rows_per_task(H), [&](int64_t begin, int64_t end) {
        std::vector<M> buf(8 * H);
        M *pre = buf.data(), *a = pre + 4 * H, *b = a + H, *c = b + H, *h = c + H;
        for (int64_t n = begin; n < end; ++n) {
          const T *ign = ig + n * GH, *hgn = hg + n * GH;
          // Input and hidden parts of gate j with both biases.
          auto summed = [&](int64_t j) {
            return static_cast<M>(ign[j]) + static_cast<M>(hgn[j]) + (bi ? static_cast<M>(bi[j]) : M(0)) +
                   (bh ? static_cast<M>(bh[j]) : M(0));
          };
          if (lstm) {
            for (int64_t j = 0; j < 4 * H; ++j) pre[j] = summed(j);
            const T* c_prev = k == 0 ? r.cx.data_ptr<T>() + n * H : ws + (prev * N + n) * W + 4 * H;
            load(c_prev, a, H);
            cpu::lstm_row_forward(pre, a, c, h, b, H);
            T* wsn = ws + (t * N + n) * W;
            store(pre, wsn, 4 * H);
            store(c, wsn + 4 * H, H);
            store(h, target + n * (raw.defined() ? H : HO), H);
          } else if (r.mode == RecurrentMode::GRU) {
            for (int64_t j = 0; j < 2 * H; ++j) pre[j] = summed(j);
            for (int64_t j = 0; j < H; ++j) {
              pre[2 * H + j] = static_cast<M>(ign[2 * H + j]) + (bi ? static_cast<M>(bi[2 * H + j]) : M(0));
              pre[3 * H + j] = static_cast<M>(hgn[2 * H + j]) + (bh ? static_cast<M>(bh[2 * H + j]) : M(0));
            }
            load(hp + n * HO, a, H);
            cpu::gru_row_forward(pre, a, h, H);
            store(pre, ws + (t * N + n) * W, 4 * H);
            store(h, target + n * HO, H);
          } else {
            for (int64_t j = 0; j < H; ++j) {
              const M v = summed(j);
              h[j] = r.mode == RecurrentMode::RNN_TANH ? std::tanh(v) : (v > M(0) ? v : M(0));
            }
            store(h, target + n * HO, H);
          }
        }
      });
      if (raw.defined()) output.select(0, t).copy_(ember::mm(raw, w_hr_t));
    }
  });
  const int64_t last = r.time(L - 1, reverse);
  Tensor hy = output.select(0, last).clone();
  Tensor cy = lstm ? workspace.select(0, last).narrow(1, 4 * H, H).clone() : ember::empty({0}, opts);
  return {output, hy, cy, workspace};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> _rnn_recurrence_backward(
    const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_gates,
    const Tensor& hx, const std::optional<Tensor>& cx, const Tensor& w_hh, const std::optional<Tensor>& b_ih,
    const std::optional<Tensor>& b_hh, const std::optional<Tensor>& w_hr, int64_t mode, bool reverse,
    const Tensor& output, const Tensor& workspace) {
  const Recurrence r = recurrence("_rnn_recurrence_backward", input_gates, hx, cx, w_hh, b_ih, b_hh, w_hr, mode);
  const int64_t L = r.steps, N = r.batch, H = r.hidden, HO = r.out_size, GH = r.gates, W = r.workspace_width();
  EMBER_CHECK(output.sizes() == IntArrayRef({L, N, HO}) && grad_output.sizes() == output.sizes() &&
                  workspace.sizes() == IntArrayRef({L, N, W}) && grad_hy.sizes() == IntArrayRef({N, HO}),
              "_rnn_recurrence_backward: output {}, grad_output {}, grad_hy {} or workspace {} do not fit the "
              "recurrence",
              c10::str_sizes(output.sizes()), c10::str_sizes(grad_output.sizes()), c10::str_sizes(grad_hy.sizes()),
              c10::str_sizes(workspace.sizes()));
  const bool lstm = r.mode == RecurrentMode::LSTM, gru = r.mode == RecurrentMode::GRU;
  const auto opts = input_gates.options();
  Tensor grad_gates = ember::empty({L, N, GH}, opts);                      // of the input-side gates
  Tensor grad_hidden_gates = gru ? ember::empty({L, N, GH}, opts) : grad_gates;  // of the W_hh side
  Tensor grad_projected = r.w_hr.defined() ? ember::empty({L, N, HO}, opts) : Tensor();
  Tensor raw = r.w_hr.defined() ? ember::empty({L, N, H}, opts) : Tensor();
  Tensor grad_h = grad_hy.to(input_gates.scalar_type()).contiguous().clone();
  Tensor grad_c = lstm ? grad_cy.to(input_gates.scalar_type()).contiguous().clone() : Tensor();
  if (input_gates.is_meta() || N == 0) {
    return {grad_gates, ember::empty({N, HO}, opts), lstm ? ember::empty({N, H}, opts) : Tensor(),
            ember::empty(w_hh.sizes(), opts), has(b_ih) ? ember::empty({GH}, opts) : Tensor(),
            has(b_hh) ? ember::empty({GH}, opts) : Tensor(), r.w_hr.defined() ? ember::empty(r.w_hr.sizes(), opts)
                                                                               : Tensor()};
  }
  const Tensor out = output.contiguous(), ws = workspace.contiguous();
  const Tensor dy = grad_output.to(input_gates.scalar_type()).contiguous();
  cpu::visit_floating(input_gates.scalar_type(), [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T *outp = out.data_ptr<T>(), *wsp = W ? ws.data_ptr<T>() : nullptr;
    T *gg = grad_gates.data_ptr<T>(), *ghg = grad_hidden_gates.data_ptr<T>();
    for (int64_t k = L - 1; k >= 0; --k) {
      const int64_t t = r.time(k, reverse), prev = r.time(k - 1, reverse);
      // The gradient reaching this step's output: from above, and from the step after it.
      Tensor gh = ember::add(dy.select(0, t), grad_h);
      if (r.w_hr.defined()) {
        grad_projected.select(0, t).copy_(gh);
        gh = ember::mm(gh, r.w_hr);
      }
      gh = gh.contiguous();
      const T* ghp = gh.data_ptr<T>();
      T* gcp = lstm ? grad_c.data_ptr<T>() : nullptr;
      T* ghx = grad_h.data_ptr<T>();  // GRU: the direct part of h_prev's gradient
      const T* h_prev = k == 0 ? r.hx.data_ptr<T>() : outp + prev * N * HO;
      parallel_for(0, N, rows_per_task(H), [&](int64_t begin, int64_t end) {
        std::vector<M> buf(16 * H);
        M *work = buf.data(), *a = work + 5 * H, *g = a + H, *gc = g + H, *scratch = gc + H, *gin = scratch + H;
        M *ghid = gin + 4 * H;
        for (int64_t n = begin; n < end; ++n) {
          const T* wsn = wsp ? wsp + (t * N + n) * W : nullptr;
          load(ghp + n * H, g, lstm || gru ? H : 0);
          if (lstm) {
            load(wsn, work, 5 * H);  // gates, then the cell
            const T* c_prev = k == 0 ? r.cx.data_ptr<T>() + n * H : wsp + (prev * N + n) * W + 4 * H;
            load(c_prev, a, H);
            load(gcp + n * H, gc, H);
            cpu::lstm_row_backward(work, a, work + 4 * H, g, gc, gin, gc, scratch, H);
            store(gin, gg + (t * N + n) * GH, 4 * H);
            store(gc, gcp + n * H, H);
            if (raw.defined()) {
              T* rawn = raw.data_ptr<T>() + (t * N + n) * H;
              for (int64_t j = 0; j < H; ++j) rawn[j] = static_cast<T>(work[3 * H + j] * scratch[j]);
            }
          } else if (gru) {
            load(wsn, work, 4 * H);
            load(h_prev + n * HO, a, H);
            cpu::gru_row_backward(work, a, g, gin, ghid, gc, H);
            store(gin, gg + (t * N + n) * GH, 3 * H);
            store(ghid, ghg + (t * N + n) * GH, 3 * H);
            store(gc, ghx + n * HO, H);
          } else {
            const T* y = outp + (t * N + n) * HO;
            T* dst = gg + (t * N + n) * GH;
            for (int64_t j = 0; j < H; ++j) {
              const M v = static_cast<M>(y[j]), d = static_cast<M>(ghp[n * H + j]);
              dst[j] = static_cast<T>(r.mode == RecurrentMode::RNN_TANH ? d * (M(1) - v * v) : (v > M(0) ? d : M(0)));
            }
          }
        }
      });
      // Through W_hh to the previous step's output (GRU adds it to the direct part).
      const Tensor step_grad = grad_hidden_gates.select(0, t);
      grad_h = gru ? ember::addmm(grad_h, step_grad, r.w_hh) : ember::mm(step_grad, r.w_hh);
    }
  });
  const Tensor grad_w_hh = ember::mm(flat_rows(grad_hidden_gates).t(), flat_rows(previous_hidden(out, r.hx, reverse)));
  const std::vector<int64_t> time_and_batch{0, 1};
  Tensor grad_b_ih = has(b_ih) ? grad_gates.sum(time_and_batch) : Tensor();
  Tensor grad_b_hh = has(b_hh) ? grad_hidden_gates.sum(time_and_batch) : Tensor();
  Tensor grad_w_hr = raw.defined() ? ember::mm(flat_rows(grad_projected).t(), flat_rows(raw)) : Tensor();
  return {grad_gates, grad_h, grad_c, grad_w_hh, grad_b_ih, grad_b_hh, grad_w_hr};
}

}  // namespace ember::native
