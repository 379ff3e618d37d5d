#pragma once
// Inner loops for TensorIterator kernels. cpu_kernel(iter, op) applies a
// scalar function `op(args...) -> result` to every element; the loop it
// builds has a separate path for all-contiguous operands and for inputs
// that stay constant (broadcast scalars), which the compiler vectorizes.

#include <aten/native/FunctionTraits.h>
#include <aten/native/TensorIterator.h>

#include <tuple>
#include <type_traits>
#include <utility>

namespace ember::native::cpu {

using native::function_traits;

namespace detail {

// The contiguous loops are compiled for AVX2 and for baseline x86-64; the
// loader picks the clone the CPU supports. (A feature clone, not
// "arch=haswell": that one is only chosen on Haswell itself.)
#define EMBER_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))

template <typename Op, size_t... I>
EMBER_VECTOR_CLONES void contiguous_loop(char** data, int64_t n, const Op& op, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  R* __restrict__ out = reinterpret_cast<R*>(data[0]);
  std::tuple<const std::tuple_element_t<I, typename traits::args>*...> in{
      reinterpret_cast<const std::tuple_element_t<I, typename traits::args>*>(data[I + 1])...};
  for (int64_t i = 0; i < n; ++i) out[i] = op(std::get<I>(in)[i]...);
}

template <typename Op, size_t... I>
inline void strided_loop(char** data, const int64_t* strides, int64_t n, const Op& op, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  for (int64_t i = 0; i < n; ++i) {
    R* out = reinterpret_cast<R*>(data[0] + i * strides[0]);
    *out = op(*reinterpret_cast<const std::tuple_element_t<I, typename traits::args>*>(data[I + 1] + i * strides[I + 1])...);
  }
}

// One input constant over the run (a broadcast scalar): hoist its load so
// the loop over the others stays contiguous.
template <size_t S, typename Op, size_t... I>
EMBER_VECTOR_CLONES void scalar_arg_loop(char** data, int64_t n, const Op& op, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  using ST = std::tuple_element_t<S, typename traits::args>;
  const ST scalar = *reinterpret_cast<const ST*>(data[S + 1]);
  R* __restrict__ out = reinterpret_cast<R*>(data[0]);
  auto arg = [&](auto index_constant, int64_t i) {
    constexpr size_t J = decltype(index_constant)::value;
    using T = std::tuple_element_t<J, typename traits::args>;
    if constexpr (J == S) {
      return scalar;
    } else {
      return reinterpret_cast<const T*>(data[J + 1])[i];
    }
  };
  for (int64_t i = 0; i < n; ++i) out[i] = op(arg(std::integral_constant<size_t, I>{}, i)...);
}

template <typename Op, size_t... I>
inline bool all_contiguous(const int64_t* strides, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  return strides[0] == sizeof(typename traits::result) &&
         ((strides[I + 1] == sizeof(std::tuple_element_t<I, typename traits::args>)) && ...);
}

}  // namespace detail

// Applies `op` elementwise. Its argument types must equal the iterator's
// input dtypes and its result type the output dtype (callers pick them with
// visit_scalar_type on the common dtype).
template <typename Op>
void cpu_kernel(TensorIterator& iter, const Op& op, int64_t grain_size = 32768) {
  using traits = function_traits<Op>;
  constexpr size_t arity = traits::arity;
  using Indices = std::make_index_sequence<arity>;
  iter.for_each(
      [&op](char** data, const int64_t* strides, int64_t n) {
        if (detail::all_contiguous<Op>(strides, Indices{})) {
          detail::contiguous_loop(data, n, op, Indices{});
          return;
        }
        if constexpr (arity == 2) {
          using R = typename traits::result;
          const bool out_contiguous = strides[0] == sizeof(R);
          if (out_contiguous && strides[1] == 0 &&
              strides[2] == sizeof(std::tuple_element_t<1, typename traits::args>)) {
            detail::scalar_arg_loop<0>(data, n, op, Indices{});
            return;
          }
          if (out_contiguous && strides[2] == 0 &&
              strides[1] == sizeof(std::tuple_element_t<0, typename traits::args>)) {
            detail::scalar_arg_loop<1>(data, n, op, Indices{});
            return;
          }
        }
        detail::strided_loop(data, strides, n, op, Indices{});
      },
      grain_size);
}

}  // namespace ember::native::cpu
