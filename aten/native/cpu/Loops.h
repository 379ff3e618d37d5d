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

// The contiguous loops are compiled for x86-64-v4 (AVX-512 F/BW/CD/DQ/VL),
// AVX2 and baseline x86-64; the loader picks the clone the CPU supports. (A
// feature or ISA-level clone, not "arch=haswell": that one is only chosen on
// Haswell itself.) AVX-512 halves the instructions of loops that are not
// memory-bound and has the int64 <-> float conversions AVX2 lacks: 1M int64
// to float 580 -> 149 us, float to int64 540 -> 146 (torch 302, 516).
#define EMBER_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))

template <typename Op, size_t... I>
EMBER_VECTOR_CLONES void contiguous_loop(char** data, int64_t n, const Op& shared_op, std::index_sequence<I...>) {
  // A local copy of the op: its captured constants then live in registers.
  // Read through the reference they are loads that GCC neither hoists nor
  // if-converts where only one branch uses them (a scalar, branchy loop:
  // leaky_relu 5.6 -> 0.3 ms over 1M floats).
  const Op op = shared_op;
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

// Inputs constant over the run (broadcast scalars: the bits of Mask) are
// read once, so that the loop over the contiguous others vectorizes.
template <unsigned Mask, typename Op, size_t... I>
EMBER_VECTOR_CLONES void broadcast_loop(char** data, int64_t n, const Op& shared_op, std::index_sequence<I...>) {
  const Op op = shared_op;  // as in contiguous_loop
  using traits = function_traits<Op>;
  using R = typename traits::result;
  const std::tuple<std::tuple_element_t<I, typename traits::args>...> scalars{
      ((Mask >> I) & 1u ? *reinterpret_cast<const std::tuple_element_t<I, typename traits::args>*>(data[I + 1])
                        : std::tuple_element_t<I, typename traits::args>{})...};
  R* __restrict__ out = reinterpret_cast<R*>(data[0]);
  auto arg = [&](auto index_constant, int64_t i) {
    constexpr size_t J = decltype(index_constant)::value;
    using T = std::tuple_element_t<J, typename traits::args>;
    if constexpr (((Mask >> J) & 1u) != 0) {
      return std::get<J>(scalars);
    } else {
      return reinterpret_cast<const T*>(data[J + 1])[i];
    }
  };
  for (int64_t i = 0; i < n; ++i) out[i] = op(arg(std::integral_constant<size_t, I>{}, i)...);
}

template <size_t... I, typename F>
inline void for_each_index(std::index_sequence<I...>, F&& f) {
  (f(std::integral_constant<size_t, I>{}), ...);
}

// The broadcast_loop for `mask` (one of 1 .. 2^arity - 2: some inputs
// broadcast, not all), false for none.
template <typename Op, size_t... I, unsigned... M>
bool broadcast_dispatch(unsigned mask, char** data, int64_t n, const Op& op, std::index_sequence<I...> indices,
                        std::integer_sequence<unsigned, M...>) {
  return ((mask == M + 1 ? (broadcast_loop<M + 1>(data, n, op, indices), true) : false) || ...);
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
        if constexpr (arity == 2 || arity == 3) {
          // A contiguous output, each input contiguous or a broadcast scalar.
          using R = typename traits::result;
          unsigned mask = 0;
          bool dense = strides[0] == sizeof(R);
          detail::for_each_index(Indices{}, [&](auto index_constant) {
            constexpr size_t J = decltype(index_constant)::value;
            const int64_t stride = strides[J + 1];
            if (stride == 0) mask |= 1u << J;
            else if (stride != static_cast<int64_t>(sizeof(std::tuple_element_t<J, typename traits::args>))) dense = false;
          });
          if (dense && detail::broadcast_dispatch(mask, data, n, op, Indices{},
                                                  std::make_integer_sequence<unsigned, (1u << arity) - 2>{})) {
            return;
          }
        }
        detail::strided_loop(data, strides, n, op, Indices{});
      },
      grain_size);
}

}  // namespace ember::native::cpu
