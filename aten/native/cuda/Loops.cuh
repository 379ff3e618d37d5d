#pragma once
// gpu_kernel(iter, op): the CUDA counterpart of cpu_kernel. `op` is a
// __host__ __device__ lambda from the operands' element types to the
// output's. Aligned contiguous operands are read kVec elements per thread in
// vector loads; anything else goes through the OffsetCalculator
// (broadcasts, transposes, slices), one element per step of a grid-stride loop. A 0-d CPU input (a
// Python number wrapped as a tensor) is read once on the host and passed by
// value, as PyTorch does.
//
// Three instantiations per op and dtype: the vectorized one for aligned
// contiguous operands, and the offset calculator with 32-bit and with 64-bit
// indices for everything else (an unaligned contiguous slice included: rare,
// and not worth a fourth copy of every kernel in compile time and binary).

#include <aten/native/FunctionTraits.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cuda/CUDAContext.h>
#include <aten/native/cuda/OffsetCalculator.h>

#include <tuple>
#include <utility>

namespace ember::native::cuda {

#define EMBER_GPU_LAMBDA __host__ __device__

template <typename F>
__global__ void elementwise_kernel(int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) f(i);
}

// Launches f(i) for i in [0, n) on the current stream.
template <typename F>
void launch_elementwise(int64_t n, const F& f) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{1} << 16);
  elementwise_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, current_stream()>>>(n, f);
  check_launch("elementwise_kernel");
}

template <int N>
OffsetCalculator<N> make_offset_calculator(const TensorIterator& iter) {
  EMBER_CHECK(iter.ndim() <= kMaxDims, "CUDA kernels take at most {} dimensions after merging, got {}", kMaxDims,
              iter.ndim());
  OffsetCalculator<N> calc;
  calc.dims = iter.ndim();
  for (int d = 0; d < iter.ndim(); ++d) {
    calc.sizes[d] = iter.shape()[d];
    for (int k = 0; k < N; ++k) calc.strides[d][k] = iter.strides(k)[d];
  }
  if (OffsetCalculator<N>::fits_32bit(iter.numel())) calc.init_dividers();
  return calc;
}

namespace detail {

// The operands' base pointers, captured by value into the kernel.
template <int N>
struct Pointers {
  char* data[N];
};

// Input I's value at byte offset `off`, or the host scalar passed by value.
template <size_t I, typename Args>
__host__ __device__ __forceinline__ std::tuple_element_t<I, Args> load_input(char* const* data, const Args& scalars,
                                                                     unsigned host_scalars, int64_t off) {
  using T = std::tuple_element_t<I, Args>;
  if (host_scalars & (1u << I)) return std::get<I>(scalars);
  return *reinterpret_cast<const T*>(data[I + 1] + off);
}

// Everything a launch reads besides the op: operand pointers and the host
// scalars. One value, captured explicitly (nvcc miscounts implicit captures
// of extended lambdas when a parameter pack is empty).
template <int N, typename Args>
struct LaunchState {
  Pointers<N> ptrs;
  Args scalars;
  unsigned host_scalars;
};

// Elements per thread in the contiguous kernel: one 16-byte load per float
// operand keeps enough memory requests in flight to reach full bandwidth.
constexpr int kVec = 4;

template <typename T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// kVec consecutive elements of input I from element `base`, in one load.
template <size_t I, typename Args>
__host__ __device__ __forceinline__ Vec<std::tuple_element_t<I, Args>, kVec> load_vec(char* const* data,
                                                                                     const Args& scalars,
                                                                                     unsigned host_scalars,
                                                                                     int64_t base) {
  using T = std::tuple_element_t<I, Args>;
  Vec<T, kVec> out;
  if (host_scalars & (1u << I)) {
    for (int k = 0; k < kVec; ++k) out.v[k] = std::get<I>(scalars);
  } else {
    out = *reinterpret_cast<const Vec<T, kVec>*>(data[I + 1] + base * static_cast<int64_t>(sizeof(T)));
  }
  return out;
}

template <typename Op, typename Args, size_t... I>
void gpu_kernel_impl(TensorIterator& iter, const Op& op, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  constexpr int N = static_cast<int>(sizeof...(I)) + 1;
  LaunchState<N, Args> state{};
  for (int k = 0; k < N; ++k) state.ptrs.data[k] = static_cast<char*>(iter.data_ptr(k));
  // 0-d CPU inputs: read on the host now (their dtype is the op's argument type).
  (([&] {
     const Tensor& t = iter.input(static_cast<int>(I));
     if (t.is_cpu()) {
       std::get<I>(state.scalars) = *static_cast<const std::tuple_element_t<I, Args>*>(t.data_ptr());
       state.host_scalars |= 1u << I;
     }
   }()),
   ...);
  const int64_t n = iter.numel();
  bool contiguous = iter.ndim() <= 1;
  if (contiguous && iter.ndim() == 1) {
    contiguous = iter.strides(0)[0] == static_cast<int64_t>(sizeof(R));
    ((contiguous = contiguous && ((state.host_scalars & (1u << I)) ||
                                  iter.strides(static_cast<int>(I) + 1)[0] ==
                                      static_cast<int64_t>(sizeof(std::tuple_element_t<I, Args>)))),
     ...);
  }
  // Aligned for whole-vector loads and stores (fresh allocations always are).
  bool aligned = reinterpret_cast<uintptr_t>(state.ptrs.data[0]) % (kVec * sizeof(R)) == 0;
  ((aligned = aligned && ((state.host_scalars & (1u << I)) ||
                          reinterpret_cast<uintptr_t>(state.ptrs.data[I + 1]) %
                                  (kVec * sizeof(std::tuple_element_t<I, Args>)) ==
                              0)),
   ...);
  if (contiguous && aligned && n >= kVec) {
    launch_elementwise((n + kVec - 1) / kVec, [state, op, n] EMBER_GPU_LAMBDA(int64_t j) {
      const int64_t base = j * kVec;
      R* out = reinterpret_cast<R*>(state.ptrs.data[0]);
      if (base + kVec <= n) {
        const auto inputs = std::make_tuple(load_vec<I>(state.ptrs.data, state.scalars, state.host_scalars, base)...);
        (void)inputs;  // unused by nullary ops (fill)
        Vec<R, kVec> result;
        for (int k = 0; k < kVec; ++k) result.v[k] = op(std::get<I>(inputs).v[k]...);
        *reinterpret_cast<Vec<R, kVec>*>(out + base) = result;
      } else {
        for (int64_t i = base; i < n; ++i)
          out[i] = op(load_input<I>(state.ptrs.data, state.scalars, state.host_scalars,
                                    i * static_cast<int64_t>(sizeof(std::tuple_element_t<I, Args>)))...);
      }
    });
  } else {
    const OffsetCalculator<N> calc = make_offset_calculator<N>(iter);
    if (OffsetCalculator<N>::fits_32bit(n)) {
      launch_elementwise(n, [state, calc, op] EMBER_GPU_LAMBDA(int64_t i) {
        int64_t off[N];
        calc.get32(static_cast<uint32_t>(i), off);
        R* out = reinterpret_cast<R*>(state.ptrs.data[0] + off[0]);
        *out = op(load_input<I>(state.ptrs.data, state.scalars, state.host_scalars, off[I + 1])...);
      });
    } else {
      launch_elementwise(n, [state, calc, op] EMBER_GPU_LAMBDA(int64_t i) {
        int64_t off[N];
        calc.get(i, off);
        R* out = reinterpret_cast<R*>(state.ptrs.data[0] + off[0]);
        *out = op(load_input<I>(state.ptrs.data, state.scalars, state.host_scalars, off[I + 1])...);
      });
    }
  }
}

}  // namespace detail

// Applies `op` to every element of `iter` on the GPU, then finishes the
// iterator (versions, casts back into out= tensors of another dtype).
template <typename Op>
void gpu_kernel(TensorIterator& iter, const Op& op) {
  using traits = function_traits<Op>;
  using Args = typename traits::args;
  EMBER_INTERNAL_ASSERT(iter.ntensors() == static_cast<int>(traits::arity) + 1);
  if (iter.numel() > 0) detail::gpu_kernel_impl<Op, Args>(iter, op, std::make_index_sequence<traits::arity>{});
  iter.finish();
}

}  // namespace ember::native::cuda
