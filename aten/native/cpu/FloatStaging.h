#pragma once
// Kernels written for dense float arrays (VecMath.h) serving float, bfloat16
// and float16 tensors of any strides: dense float operands pass straight
// through, the others are converted a chunk at a time through buffers on the
// stack. What autocast leaves in bfloat16 (activations between matrix
// products) then runs at the float kernels' speed, computed in float as
// torch's bfloat16 kernels are, and rounded once on the way out.

#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/VecMath.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <array>
#include <type_traits>
#include <vector>

namespace ember::native::cpu {

inline bool is_float_or_16_bit(ScalarType t) { return t == ScalarType::Float || is_reduced_float(t); }

// Whether every operand of `iter` is one of those types.
inline bool float_kernel_serves(const TensorIterator& iter) {
  for (int i = 0; i < iter.ntensors(); ++i) {
    if (!is_float_or_16_bit(iter.dtype(i))) return false;
  }
  return true;
}

// Whether a float kernel should run `iter`: all its operands are served, and
// either they are dense (the kernel's own case) or some is 16-bit (whose
// generic loop converts and calls libm element by element). Strided float32
// stays on the generic loop, with libm's exactness.
inline bool float_kernel_pays(const TensorIterator& iter) {
  if (!float_kernel_serves(iter)) return false;
  if (iter.is_contiguous()) return true;
  for (int i = 0; i < iter.ntensors(); ++i) {
    if (iter.dtype(i) != ScalarType::Float) return true;
  }
  return false;
}

namespace staging {

constexpr int64_t kChunk = 256;

inline float load_one(ScalarType t, const char* p) {
  switch (t) {
    case ScalarType::Float: return *reinterpret_cast<const float*>(p);
    case ScalarType::BFloat16: return static_cast<float>(*reinterpret_cast<const c10::BFloat16*>(p));
    default: return static_cast<float>(*reinterpret_cast<const c10::Half*>(p));
  }
}

inline void store_one(ScalarType t, char* p, float v) {
  switch (t) {
    case ScalarType::Float: *reinterpret_cast<float*>(p) = v; break;
    case ScalarType::BFloat16: *reinterpret_cast<c10::BFloat16*>(p) = c10::BFloat16(v); break;
    default: *reinterpret_cast<c10::Half*>(p) = c10::Half(v); break;
  }
}

// m floats of an operand from element `start` on: its own memory where it
// is dense float, else `buffer` filled by conversion.
inline const float* load(ScalarType t, const char* base, int64_t stride, int64_t start, int64_t m, float* buffer) {
  if (t == ScalarType::Float && stride == 4) return reinterpret_cast<const float*>(base) + start;
  if (stride == 0) {
    std::fill_n(buffer, m, load_one(t, base));
  } else if (t == ScalarType::BFloat16 && stride == 2) {
    bfloat16_to_floats(reinterpret_cast<const uint16_t*>(base) + start, buffer, m);
  } else {
    for (int64_t i = 0; i < m; ++i) buffer[i] = load_one(t, base + (start + i) * stride);
  }
  return buffer;
}

inline void store(ScalarType t, char* base, int64_t stride, int64_t start, int64_t m, const float* values) {
  if (t == ScalarType::BFloat16 && stride == 2) {
    floats_to_bfloat16(values, reinterpret_cast<uint16_t*>(base) + start, m);
  } else {
    for (int64_t i = 0; i < m; ++i) store_one(t, base + (start + i) * stride, values[i]);
  }
}

}  // namespace staging

// Runs kernel(inputs, out, n), with inputs a std::array of kInputs dense
// float pointers, over `iter` (operand 0 the output, then the inputs), whose
// operands float_kernel_serves() accepts.
template <size_t kInputs, typename Kernel>
void for_each_as_floats(TensorIterator& iter, Kernel&& kernel) {
  std::array<ScalarType, kInputs + 1> types;
  for (size_t i = 0; i <= kInputs; ++i) types[i] = iter.dtype(static_cast<int>(i));
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    float in_buffers[kInputs][staging::kChunk];
    float out_buffer[staging::kChunk];
    const bool out_direct = types[0] == ScalarType::Float && strides[0] == 4;
    bool all_direct = out_direct;
    for (size_t i = 1; i <= kInputs; ++i) all_direct = all_direct && types[i] == ScalarType::Float && strides[i] == 4;
    if (all_direct) {  // the kernel's own case: one call over the whole run
      std::array<const float*, kInputs> inputs;
      for (size_t i = 0; i < kInputs; ++i) inputs[i] = reinterpret_cast<const float*>(data[i + 1]);
      kernel(inputs, reinterpret_cast<float*>(data[0]), n);
      return;
    }
    for (int64_t start = 0; start < n; start += staging::kChunk) {
      const int64_t m = std::min(staging::kChunk, n - start);
      std::array<const float*, kInputs> inputs;
      for (size_t i = 0; i < kInputs; ++i) {
        inputs[i] = staging::load(types[i + 1], data[i + 1], strides[i + 1], start, m, in_buffers[i]);
      }
      float* out = out_direct ? reinterpret_cast<float*>(data[0]) + start : out_buffer;
      kernel(inputs, out, m);
      if (!out_direct) staging::store(types[0], data[0], strides[0], start, m, out);
    }
  });
}

// n values of a 16-bit type as floats, and back.
template <typename T>
void to_floats(const T* x, float* y, int64_t n) {
  if constexpr (std::is_same_v<T, c10::BFloat16>) {
    bfloat16_to_floats(reinterpret_cast<const uint16_t*>(x), y, n);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i]);
  }
}

template <typename T>
void from_floats(const float* x, T* y, int64_t n) {
  if constexpr (std::is_same_v<T, c10::BFloat16>) {
    floats_to_bfloat16(x, reinterpret_cast<uint16_t*>(y), n);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(x[i]);
  }
}

// f(values, offset, m) over n values as floats: the values themselves for
// float, else converted into a buffer on the stack a chunk at a time.
template <typename T, typename F>
void for_each_float_chunk(const T* x, int64_t n, F&& f) {
  if constexpr (std::is_same_v<T, float>) {
    f(x, 0, n);
  } else {
    float buffer[1024];
    for (int64_t i = 0; i < n; i += 1024) {
      const int64_t m = std::min<int64_t>(1024, n - i);
      to_floats(x + i, buffer, m);
      f(buffer, i, m);
    }
  }
}

// Runs kernel(inputs, out, rows) -- a float kernel over `rows` contiguous
// rows of n -- on 16-bit rows: a block of rows at a time is converted into
// float buffers, and the block's result converted back into `out`.
template <size_t kInputs, typename T, typename Kernel>
void rows_as_floats(const std::array<const T*, kInputs>& in, T* out, int64_t rows, int64_t n, Kernel&& kernel) {
  const int64_t block = std::max<int64_t>(1, std::min<int64_t>(rows, 8192 / std::max<int64_t>(n, 1)));
  std::vector<float> buffers((kInputs + 1) * block * n);
  std::array<const float*, kInputs> staged;
  float* staged_out = buffers.data() + kInputs * block * n;
  for (int64_t r = 0; r < rows; r += block) {
    const int64_t m = std::min(block, rows - r);
    for (size_t i = 0; i < kInputs; ++i) {
      float* buffer = buffers.data() + i * block * n;
      to_floats(in[i] + r * n, buffer, m * n);
      staged[i] = buffer;
    }
    kernel(staged, staged_out, m);
    from_floats(staged_out, out + r * n, m * n);
  }
}

}  // namespace ember::native::cpu
