// Recurrent layers over whole sequences (torch's lstm / gru / rnn_tanh /
// rnn_relu and their single-step cells), composed from GEMMs, the fused cell
// kernels and the whole-sequence recurrence, so that autograd records them
// like any other ops and every backend with those kernels runs them.
//
// A layer direction projects all time steps of its input at once (one GEMM).
// Over a dense sequence the steps are then one _rnn_recurrence op, with its
// own backward (RNNRecurrence.cpp). Packed sequences (data + batch_sizes)
// walk the steps here, one GEMM and one fused cell each, with a batch that
// shrinks (forward) or grows (reverse) as sequences end.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/RNNMode.h>
#include <c10/core/GradMode.h>

#include <string_view>
#include <tuple>
#include <vector>

namespace ember::native {

namespace {

// One layer and direction's weights, as torch orders them in _flat_weights.
struct CellParams {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

// A step's state: h, and for an LSTM also the cell c.
struct State {
  Tensor h, c;

  State rows(int64_t start, int64_t length) const {
    return {h.narrow(0, start, length), c.defined() ? c.narrow(0, start, length) : Tensor()};
  }
  State append_rows(const State& more) const {
    return {ember::cat({h, more.h}, 0), c.defined() ? ember::cat({c, more.c}, 0) : Tensor()};
  }
};

struct Config {
  std::string_view op;
  RecurrentMode kind;
  bool has_biases;
  int64_t num_layers;
  double dropout;
  bool train;
  bool bidirectional;
  int64_t directions() const { return bidirectional ? 2 : 1; }
};

std::vector<CellParams> gather_params(const Config& cfg, const std::vector<Tensor>& params, bool has_projections) {
  const int64_t per_cell = 2 + (cfg.has_biases ? 2 : 0) + (has_projections ? 1 : 0);
  const int64_t cells = cfg.num_layers * cfg.directions();
  EMBER_CHECK(cfg.num_layers >= 1, "{}: num_layers must be at least 1, got {}", cfg.op, cfg.num_layers);
  EMBER_CHECK(static_cast<int64_t>(params.size()) == cells * per_cell,
              "{}: expected {} parameter tensors ({} layers x {} directions x {} each), got {}", cfg.op,
              cells * per_cell, cfg.num_layers, cfg.directions(), per_cell, params.size());
  const int64_t gates = gate_count(cfg.kind);
  std::vector<CellParams> out;
  for (int64_t k = 0; k < cells; ++k) {
    const Tensor* p = params.data() + k * per_cell;
    CellParams cell{p[0], p[1], Tensor(), Tensor(), Tensor()};
    if (cfg.has_biases) cell.b_ih = p[2], cell.b_hh = p[3];
    if (has_projections) cell.w_hr = p[per_cell - 1];
    EMBER_CHECK(cell.w_ih.dim() == 2 && cell.w_hh.dim() == 2 && cell.w_ih.size(0) == cell.w_hh.size(0) &&
                    cell.w_hh.size(0) % gates == 0,
                "{}: expected weight_ih and weight_hh of shapes ({} * hidden_size, input_size) and ({} * hidden_size, "
                "hidden_size), got {} and {}",
                cfg.op, gates, gates, c10::str_sizes(cell.w_ih.sizes()), c10::str_sizes(cell.w_hh.sizes()));
    out.push_back(cell);
  }
  return out;
}

// All steps' input projections at once. RNN cells take their input bias here;
// the fused LSTM/GRU cells add both biases themselves.
Tensor input_projection(RecurrentMode kind, const Tensor& x, const CellParams& p) {
  if (kind == RecurrentMode::RNN_TANH || kind == RecurrentMode::RNN_RELU) return ember::linear(x, p.w_ih, p.b_ih);
  return ember::matmul(x, p.w_ih.t());
}

std::optional<Tensor> maybe(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

State step(RecurrentMode kind, const Tensor& input_gates, const State& s, const CellParams& p) {
  switch (kind) {
    case RecurrentMode::LSTM: {
      const Tensor hidden_gates = ember::mm(s.h, p.w_hh.t());
      auto [h, c] = ember::_fused_lstm_cell(input_gates, hidden_gates, s.c, maybe(p.b_ih), maybe(p.b_hh));
      return {p.w_hr.defined() ? ember::mm(h, p.w_hr.t()) : h, c};
    }
    case RecurrentMode::GRU: {
      const Tensor hidden_gates = ember::mm(s.h, p.w_hh.t());
      return {ember::_fused_gru_cell(input_gates, hidden_gates, s.h, maybe(p.b_ih), maybe(p.b_hh)), Tensor()};
    }
    default: {
      const Tensor hidden = p.b_hh.defined() ? ember::addmm(p.b_hh, s.h, p.w_hh.t()) : ember::mm(s.h, p.w_hh.t());
      const Tensor pre = input_gates + hidden;
      return {kind == RecurrentMode::RNN_TANH ? pre.tanh() : ember::relu(pre), Tensor()};
    }
  }
}

// oneDNN's LSTM primitive serves plain float32 LSTMs on the CPU.
bool onednn_lstm_applies(RecurrentMode kind, const Tensor& x, const State& s, const CellParams& p) {
  return kind == RecurrentMode::LSTM && x.is_cpu() && x.scalar_type() == ScalarType::Float && !p.w_hr.defined() &&
         s.h.is_cpu() && p.w_ih.is_cpu();
}

bool records_gradient(const Tensor& x, const State& s, const CellParams& p) {
  if (!c10::GradMode::is_enabled()) return false;
  for (const Tensor* t : {&x, &s.h, &s.c, &p.w_ih, &p.w_hh, &p.b_ih, &p.b_hh}) {
    if (t->defined() && t->requires_grad()) return true;
  }
  return false;
}

// One direction of one layer over a dense (L, N, features) input: oneDNN's
// LSTM, or the input projection and then the recurrence as one op
// (RNNRecurrence.cpp).
std::pair<Tensor, State> run_dense(RecurrentMode kind, const Tensor& x, const State& s, const CellParams& p,
                                   bool reverse) {
  if (onednn_lstm_applies(kind, x, s, p)) {
    auto [out, h, c, workspace] = ember::_onednn_lstm_layer(x, s.h, s.c, p.w_ih, p.w_hh, maybe(p.b_ih),
                                                            maybe(p.b_hh), reverse, records_gradient(x, s, p));
    return {out, {h, c}};
  }
  const bool rnn = kind == RecurrentMode::RNN_TANH || kind == RecurrentMode::RNN_RELU;
  auto [out, h, c, workspace] = ember::_rnn_recurrence(input_projection(kind, x, p), s.h, maybe(s.c),
                                                       p.w_hh, rnn ? std::nullopt : maybe(p.b_ih), maybe(p.b_hh),
                                                       maybe(p.w_hr), static_cast<int64_t>(kind), reverse);
  return {out, {h, kind == RecurrentMode::LSTM ? c : Tensor()}};
}

// One direction of one layer over packed data: step t holds batch_sizes[t]
// rows, the longest sequences first. Going forward, rows whose sequence ended
// leave the state (their final state is kept aside); in reverse, they join it
// from the initial state when their sequence begins.
std::pair<Tensor, State> run_packed(RecurrentMode kind, const Tensor& data, const std::vector<int64_t>& batch_sizes,
                                    const State& initial, const CellParams& p, bool reverse) {
  const Tensor projected = input_projection(kind, data, p);
  const int64_t steps = static_cast<int64_t>(batch_sizes.size());
  std::vector<int64_t> offsets(steps);
  for (int64_t t = 0, offset = 0; t < steps; offset += batch_sizes[t], ++t) offsets[t] = offset;
  std::vector<Tensor> outputs(steps);
  if (!reverse) {
    State s = initial;
    std::vector<State> finished;  // later entries hold lower rows
    int64_t rows = initial.h.size(0);
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t b = batch_sizes[t];
      if (b < rows) {
        finished.push_back(s.rows(b, rows - b));
        s = s.rows(0, b);
        rows = b;
      }
      s = step(kind, projected.narrow(0, offsets[t], b), s, p);
      outputs[t] = s.h;
    }
    for (auto it = finished.rbegin(); it != finished.rend(); ++it) s = s.append_rows(*it);
    return {ember::cat(outputs, 0), s};
  }
  int64_t rows = batch_sizes[steps - 1];
  State s = initial.rows(0, rows);
  for (int64_t t = steps - 1; t >= 0; --t) {
    const int64_t b = batch_sizes[t];
    if (b > rows) {
      s = s.append_rows(initial.rows(rows, b - rows));
      rows = b;
    }
    s = step(kind, projected.narrow(0, offsets[t], b), s, p);
    outputs[t] = s.h;
  }
  return {ember::cat(outputs, 0), s};
}

void check_hidden(const Config& cfg, const Tensor& h, std::string_view name, int64_t batch, int64_t size) {
  const std::vector<int64_t> expected{cfg.num_layers * cfg.directions(), batch, size};
  EMBER_CHECK(h.sizes() == IntArrayRef(expected), "{}: Expected {} size {}, got {}", cfg.op, name,
              c10::str_sizes(expected), c10::str_sizes(h.sizes()));
}

// Runs every layer; `run(x, state, params, reverse)` runs one direction.
// Returns the last layer's output and the final states, stacked per layer
// and direction like the initial ones.
template <typename RunDirection>
std::tuple<Tensor, Tensor, Tensor> run_layers(const Config& cfg, const Tensor& input, const std::vector<Tensor>& hx,
                                              const std::vector<Tensor>& params, int64_t batch,
                                              RunDirection&& run) {
  const bool is_lstm = cfg.kind == RecurrentMode::LSTM;
  EMBER_CHECK(static_cast<int64_t>(hx.size()) == (is_lstm ? 2 : 1), "{}: expected {} initial state tensors, got {}",
              cfg.op, is_lstm ? 2 : 1, hx.size());
  const bool has_projections = is_lstm && hx[0].dim() == 3 && hx[1].dim() == 3 && hx[0].size(2) != hx[1].size(2);
  const std::vector<CellParams> cells = gather_params(cfg, params, has_projections);
  const int64_t hidden_size = cells[0].w_hh.size(1);
  const int64_t cell_size = cells[0].w_hh.size(0) / gate_count(cfg.kind);
  check_hidden(cfg, hx[0], is_lstm ? "hidden[0]" : "hidden", batch, hidden_size);
  if (is_lstm) check_hidden(cfg, hx[1], "hidden[1]", batch, cell_size);
  EMBER_CHECK(input.size(-1) == cells[0].w_ih.size(1), "{}: input.size(-1) must be equal to input_size. Expected {}, got {}",
              cfg.op, cells[0].w_ih.size(1), input.size(-1));

  for (const Tensor& p : params) {
    EMBER_CHECK(p.scalar_type() == input.scalar_type() && p.device() == input.device(),
                "{}: expected the parameters to have the input's dtype and device ({} on {}), got {} on {}", cfg.op,
                c10::toString(input.scalar_type()), input.device().str(), c10::toString(p.scalar_type()),
                p.device().str());
  }
  Tensor x = input;
  std::vector<Tensor> final_h, final_c;
  for (int64_t layer = 0; layer < cfg.num_layers; ++layer) {
    std::vector<Tensor> directions;
    for (int64_t d = 0; d < cfg.directions(); ++d) {
      const int64_t k = layer * cfg.directions() + d;
      const State initial{hx[0].select(0, k), is_lstm ? hx[1].select(0, k) : Tensor()};
      auto [out, last] = run(x, initial, cells[k], d == 1);
      directions.push_back(out);
      final_h.push_back(last.h);
      if (is_lstm) final_c.push_back(last.c);
    }
    x = directions.size() == 1 ? directions[0] : ember::cat(directions, -1);
    if (cfg.dropout != 0 && cfg.train && layer + 1 < cfg.num_layers) x = ember::dropout(x, cfg.dropout, true);
  }
  return {x, ember::stack(final_h, 0), is_lstm ? ember::stack(final_c, 0) : Tensor()};
}

std::tuple<Tensor, Tensor, Tensor> run_dense_layers(const Config& cfg, const Tensor& input,
                                                    const std::vector<Tensor>& hx, const std::vector<Tensor>& params,
                                                    bool batch_first) {
  EMBER_CHECK(input.dim() == 3, "{}: Expected input to be 3-D (sequence, batch, features), got {}-D", cfg.op,
              input.dim());
  const Tensor x = batch_first ? input.transpose(0, 1) : input;
  EMBER_CHECK(x.size(0) > 0, "{}: Expected sequence length to be larger than 0 in RNN", cfg.op);
  auto [out, h, c] = run_layers(cfg, x, hx, params, x.size(1), [&](const Tensor& in, const State& s,
                                                                    const CellParams& p, bool reverse) {
    return run_dense(cfg.kind, in, s, p, reverse);
  });
  return {batch_first ? out.transpose(0, 1) : out, h, c};
}

std::vector<int64_t> checked_batch_sizes(const Config& cfg, const Tensor& data, const Tensor& batch_sizes) {
  EMBER_CHECK(batch_sizes.dim() == 1 && batch_sizes.scalar_type() == ScalarType::Long && batch_sizes.is_cpu(),
              "{}: batch_sizes must be a 1-D int64 CPU tensor, got a {}-D {} tensor on {}", cfg.op,
              batch_sizes.dim(), c10::toString(batch_sizes.scalar_type()), batch_sizes.device().str());
  EMBER_CHECK(data.dim() == 2, "{}: expected packed data of 2 dims (total steps, features), got {}-D", cfg.op,
              data.dim());
  const Tensor dense = batch_sizes.contiguous();
  const int64_t* p = dense.data_ptr<int64_t>();
  std::vector<int64_t> sizes(p, p + dense.numel());
  EMBER_CHECK(!sizes.empty(), "{}: batch_sizes is empty", cfg.op);
  int64_t total = 0;
  for (size_t t = 0; t < sizes.size(); ++t) {
    EMBER_CHECK(sizes[t] >= 1 && (t == 0 || sizes[t] <= sizes[t - 1]),
                "{}: batch_sizes must be positive and non-increasing, got {} at step {}", cfg.op, sizes[t], t);
    total += sizes[t];
  }
  EMBER_CHECK(total == data.size(0), "{}: batch_sizes add up to {} but the packed data has {} rows", cfg.op, total,
              data.size(0));
  return sizes;
}

std::tuple<Tensor, Tensor, Tensor> run_packed_layers(const Config& cfg, const Tensor& data, const Tensor& batch_sizes,
                                                     const std::vector<Tensor>& hx,
                                                     const std::vector<Tensor>& params) {
  const std::vector<int64_t> sizes = checked_batch_sizes(cfg, data, batch_sizes);
  return run_layers(cfg, data, hx, params, sizes[0], [&](const Tensor& in, const State& s, const CellParams& p,
                                                         bool reverse) {
    return run_packed(cfg.kind, in, sizes, s, p, reverse);
  });
}

Config config(std::string_view op, RecurrentMode kind, bool has_biases, int64_t num_layers, double dropout, bool train,
              bool bidirectional) {
  return {op, kind, has_biases, num_layers, dropout, train, bidirectional};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, c10::ArrayRef<Tensor> hx, c10::ArrayRef<Tensor> params,
                                        bool has_biases, int64_t num_layers, double dropout, bool train,
                                        bool bidirectional, bool batch_first) {
  return run_dense_layers(config("lstm", RecurrentMode::LSTM, has_biases, num_layers, dropout, train, bidirectional), input,
                          hx.vec(), params.vec(), batch_first);
}

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& data, const Tensor& batch_sizes, c10::ArrayRef<Tensor> hx,
                                        c10::ArrayRef<Tensor> params, bool has_biases, int64_t num_layers,
                                        double dropout, bool train, bool bidirectional) {
  return run_packed_layers(config("lstm", RecurrentMode::LSTM, has_biases, num_layers, dropout, train, bidirectional),
                           data, batch_sizes, hx.vec(), params.vec());
}

namespace {

std::tuple<Tensor, Tensor> one_state_dense(std::string_view op, RecurrentMode kind, const Tensor& input, const Tensor& hx,
                                           c10::ArrayRef<Tensor> params, bool has_biases, int64_t num_layers,
                                           double dropout, bool train, bool bidirectional, bool batch_first) {
  auto [out, h, c] = run_dense_layers(config(op, kind, has_biases, num_layers, dropout, train, bidirectional), input,
                                      {hx}, params.vec(), batch_first);
  return {out, h};
}

std::tuple<Tensor, Tensor> one_state_packed(std::string_view op, RecurrentMode kind, const Tensor& data,
                                            const Tensor& batch_sizes, const Tensor& hx, c10::ArrayRef<Tensor> params,
                                            bool has_biases, int64_t num_layers, double dropout, bool train,
                                            bool bidirectional) {
  auto [out, h, c] = run_packed_layers(config(op, kind, has_biases, num_layers, dropout, train, bidirectional), data,
                                       batch_sizes, {hx}, params.vec());
  return {out, h};
}

}  // namespace

std::tuple<Tensor, Tensor> gru(const Tensor& input, const Tensor& hx, c10::ArrayRef<Tensor> params, bool has_biases,
                               int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first) {
  return one_state_dense("gru", RecurrentMode::GRU, input, hx, params, has_biases, num_layers, dropout, train,
                         bidirectional, batch_first);
}

std::tuple<Tensor, Tensor> gru(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                               c10::ArrayRef<Tensor> params, bool has_biases, int64_t num_layers, double dropout,
                               bool train, bool bidirectional) {
  return one_state_packed("gru", RecurrentMode::GRU, data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
                          bidirectional);
}

std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& input, const Tensor& hx, c10::ArrayRef<Tensor> params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first) {
  return one_state_dense("rnn_tanh", RecurrentMode::RNN_TANH, input, hx, params, has_biases, num_layers, dropout, train,
                         bidirectional, batch_first);
}

std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                    c10::ArrayRef<Tensor> params, bool has_biases, int64_t num_layers, double dropout,
                                    bool train, bool bidirectional) {
  return one_state_packed("rnn_tanh", RecurrentMode::RNN_TANH, data, batch_sizes, hx, params, has_biases, num_layers,
                          dropout, train, bidirectional);
}

std::tuple<Tensor, Tensor> rnn_relu(const Tensor& input, const Tensor& hx, c10::ArrayRef<Tensor> params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first) {
  return one_state_dense("rnn_relu", RecurrentMode::RNN_RELU, input, hx, params, has_biases, num_layers, dropout, train,
                         bidirectional, batch_first);
}

std::tuple<Tensor, Tensor> rnn_relu(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                    c10::ArrayRef<Tensor> params, bool has_biases, int64_t num_layers, double dropout,
                                    bool train, bool bidirectional) {
  return one_state_packed("rnn_relu", RecurrentMode::RNN_RELU, data, batch_sizes, hx, params, has_biases, num_layers,
                          dropout, train, bidirectional);
}

std::tuple<Tensor, Tensor, Tensor> _rnn_recurrence_differentiable(const Tensor& input_gates, const Tensor& hx,
                                                                  const std::optional<Tensor>& cx, const Tensor& w_hh,
                                                                  const std::optional<Tensor>& b_ih,
                                                                  const std::optional<Tensor>& b_hh,
                                                                  const std::optional<Tensor>& w_hr, int64_t mode,
                                                                  bool reverse) {
  EMBER_CHECK(mode >= 0 && mode <= 3 && input_gates.dim() == 3 && input_gates.size(0) > 0,
              "_rnn_recurrence_differentiable: expected a mode in 0..3 and a non-empty (L, N, G*H) input_gates");
  const auto kind = static_cast<RecurrentMode>(mode);
  const CellParams p{Tensor(), w_hh, b_ih.value_or(Tensor()), b_hh.value_or(Tensor()), w_hr.value_or(Tensor())};
  const bool rnn = kind == RecurrentMode::RNN_TANH || kind == RecurrentMode::RNN_RELU;
  // The RNN cell's step adds its input bias with the projection; here the gates already are the projection.
  const CellParams step_params = rnn && p.b_ih.defined()
                                     ? CellParams{Tensor(), w_hh, Tensor(), p.b_hh.defined() ? p.b_hh + p.b_ih : p.b_ih,
                                                  Tensor()}
                                     : p;
  const int64_t steps = input_gates.size(0);
  std::vector<Tensor> outputs(steps);
  State s{hx, cx.value_or(Tensor())};
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k;
    s = step(kind, input_gates.select(0, t), s, step_params);
    outputs[t] = s.h;
  }
  return {ember::stack(outputs, 0), s.h, s.c.defined() ? s.c : ember::empty({0}, input_gates.options())};
}

// ---- Single steps (RNNCell, LSTMCell, GRUCell) --------------------------------------

namespace {

CellParams cell_params(const Tensor& w_ih, const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                       const std::optional<Tensor>& b_hh) {
  return {w_ih, w_hh, b_ih.value_or(Tensor()), b_hh.value_or(Tensor()), Tensor()};
}

void check_cell_input(std::string_view op, const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                      const Tensor& w_hh) {
  EMBER_CHECK(input.dim() == 2 && hx.dim() == 2, "{}: expected 2-D input and hidden state, got {}-D and {}-D", op,
              input.dim(), hx.dim());
  EMBER_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2, "{}: expected 2-D weights, got {}-D and {}-D", op, w_ih.dim(),
              w_hh.dim());
  EMBER_CHECK(input.size(1) == w_ih.size(1), "{}: input has inconsistent input_size: got {} expected {}", op,
              input.size(1), w_ih.size(1));
  EMBER_CHECK(input.size(0) == hx.size(0), "{}: Input batch size {} doesn't match hidden batch size {}", op,
              input.size(0), hx.size(0));
  EMBER_CHECK(hx.size(1) == w_hh.size(1), "{}: hidden has inconsistent hidden_size: got {}, expected {}", op,
              hx.size(1), w_hh.size(1));
}

}  // namespace

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, c10::ArrayRef<Tensor> hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                                     const std::optional<Tensor>& b_hh) {
  EMBER_CHECK(hx.size() == 2, "lstm_cell: expected two hidden state tensors (h, c), got {}", hx.size());
  check_cell_input("lstm_cell", input, hx[0], w_ih, w_hh);
  const CellParams p = cell_params(w_ih, w_hh, b_ih, b_hh);
  const State s = step(RecurrentMode::LSTM, ember::mm(input, w_ih.t()), {hx[0], hx[1]}, p);
  return {s.h, s.c};
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  check_cell_input("gru_cell", input, hx, w_ih, w_hh);
  const CellParams p = cell_params(w_ih, w_hh, b_ih, b_hh);
  return step(RecurrentMode::GRU, ember::mm(input, w_ih.t()), {hx, Tensor()}, p).h;
}

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  check_cell_input("rnn_tanh_cell", input, hx, w_ih, w_hh);
  const CellParams p = cell_params(w_ih, w_hh, b_ih, b_hh);
  return step(RecurrentMode::RNN_TANH, input_projection(RecurrentMode::RNN_TANH, input, p), {hx, Tensor()}, p).h;
}

Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  check_cell_input("rnn_relu_cell", input, hx, w_ih, w_hh);
  const CellParams p = cell_params(w_ih, w_hh, b_ih, b_hh);
  return step(RecurrentMode::RNN_RELU, input_projection(RecurrentMode::RNN_RELU, input, p), {hx, Tensor()}, p).h;
}

}  // namespace ember::native
