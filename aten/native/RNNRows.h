#pragma once
// Plumbing shared by the recurrent kernels (RNNCells.cpp, RNNRecurrence.cpp,
// RNNOneDNN.cpp): optional operands, and rows loaded into opmath buffers,
// computed by cpu/RNNCellMath.h and stored back in the tensor's dtype.

#include <aten/core/Tensor.h>
#include <aten/native/cpu/ElementwiseTraits.h>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace ember::native::rnn_rows {

// Whether an optional operand (a bias, a cell state) was given.
inline bool has(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

template <typename T, typename M>
void load(const T* src, M* dst, int64_t n) {
  for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<M>(src[j]);
}

template <typename M, typename T>
void store(const M* src, T* dst, int64_t n) {
  for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<T>(src[j]);
}

}  // namespace ember::native::rnn_rows
