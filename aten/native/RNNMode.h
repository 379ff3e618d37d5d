#pragma once
// The recurrence kinds, as the `mode` argument of _rnn_recurrence carries them.

#include <cstdint>

namespace ember::native {

enum class RecurrentMode : int64_t { LSTM = 0, GRU = 1, RNN_TANH = 2, RNN_RELU = 3 };

// Gates per hidden unit: the rows of W_ih / W_hh are gate_count * hidden_size.
inline int64_t gate_count(RecurrentMode mode) {
  switch (mode) {
    case RecurrentMode::LSTM: return 4;
    case RecurrentMode::GRU: return 3;
    default: return 1;
  }
}

}  // namespace ember::native
