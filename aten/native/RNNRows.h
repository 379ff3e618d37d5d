#pragma once
// Plumbing shared by the recurrent row kernels (RNNCells.cpp,
// RNNRecurrence.cpp): rows are loaded into opmath buffers, computed by
// cpu/RNNCellMath.h and stored back in the tensor's dtype.

#include <aten/core/Tensor.h>
#include <aten/native/cpu/ElementwiseTraits.h>

#include <algorithm>
#include <cstdint>

namespace ember::native::rnn_rows {

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
