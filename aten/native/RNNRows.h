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

// Rows per parallel task: about 16K hidden units of work each.
inline int64_t rows_per_task(int64_t hidden) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(hidden, 1)); }

// Calls f(T{}, M{}) for the floating dtype of `t` (T) and its opmath type (M).
template <typename F>
void visit_floating(const Tensor& t, F&& f) {
  c10::visit_scalar_type(t.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) f(T{}, cpu::opmath_t<T>{});
  });
}

}  // namespace ember::native::rnn_rows
