#include <aten/native/cpu/CopyKernels.h>
#include <aten/Parallel.h>
#include <aten/native/cpu/Loops.h>
#include <aten/native/cpu/StridedLoop.h>
#include <aten/native/cpu/VecMath.h>
#include <c10/util/TypeCast.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace ember::native::cpu {

namespace {

std::vector<int64_t> byte_strides(const Tensor& t) {
  std::vector<int64_t> s(t.strides().begin(), t.strides().end());
  for (int64_t& v : s) v *= static_cast<int64_t>(t.element_size());
  return s;
}

char* bytes(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }

template <typename T>
T& at(char* base, int64_t byte_offset) {
  return *reinterpret_cast<T*>(base + byte_offset);
}

template <size_t Bytes>
struct Bits {
  unsigned char b[Bytes];
};

// dst dense [rows, cols] from src stored column-major (a transpose): in
// 16 x 16 tiles, so that the reads and the writes both stay in cache (and a
// power-of-two stride does not map a whole tile onto one cache set).
template <size_t Bytes>
void transpose_copy(char* dst, const char* src, int64_t rows, int64_t cols, int64_t src_col_stride) {
  using E = Bits<Bytes>;
  constexpr int64_t kTile = 16;
  E* d = reinterpret_cast<E*>(dst);
  const E* sp = reinterpret_cast<const E*>(src);
  parallel_for(0, (rows + kTile - 1) / kTile, std::max<int64_t>(1, 2048 / std::max<int64_t>(cols, 1)),
               [&](int64_t tb, int64_t te) {
                 for (int64_t i0 = tb * kTile; i0 < std::min(rows, te * kTile); i0 += kTile) {
                   const int64_t i1 = std::min(rows, i0 + kTile);
                   for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
                     const int64_t j1 = std::min(cols, j0 + kTile);
                     for (int64_t i = i0; i < i1; ++i)
                       for (int64_t j = j0; j < j1; ++j) d[i * cols + j] = sp[i + j * src_col_stride];
                   }
                 }
               });
}

bool try_transpose_copy(const Tensor& dst, const Tensor& src) {
  if (dst.dim() != 2 || dst.dtype() != src.dtype() || !dst.is_contiguous() || src.stride(0) != 1 ||
      src.stride(1) < src.size(0) || dst.size(0) < 2 || dst.size(1) < 2)
    return false;
  const int64_t rows = dst.size(0), cols = dst.size(1), ld = src.stride(1);
  char* d = bytes(dst);
  const char* sp = bytes(src);
  switch (dst.element_size()) {
    case 1: transpose_copy<1>(d, sp, rows, cols, ld); return true;
    case 2: transpose_copy<2>(d, sp, rows, cols, ld); return true;
    case 4: transpose_copy<4>(d, sp, rows, cols, ld); return true;
    case 8: transpose_copy<8>(d, sp, rows, cols, ld); return true;
    case 16: transpose_copy<16>(d, sp, rows, cols, ld); return true;
    default: return false;
  }
}

}  // namespace

void copy_kernel(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    std::memcpy(dst.data_ptr(), src.data_ptr(), dst.nbytes());
    return;
  }
  if (try_transpose_copy(dst, src)) return;
  const std::vector<int64_t> dst_strides = byte_strides(dst), src_strides = byte_strides(src);
  c10::visit_scalar_type(dst.dtype(), [&](auto dst_tag) {
    using D = typename decltype(dst_tag)::type;
    c10::visit_scalar_type(src.dtype(), [&](auto src_tag) {
      using S = typename decltype(src_tag)::type;
      // Runs that are dense on both sides (or a broadcast value) get a
      // memcpy or a fill; the rest an element loop.
      auto run = [](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
        if (s[1] == 0) {
          const D v = c10::convert<D>(at<S>(p[1], 0));
          for (int64_t i = 0; i < n; ++i) at<D>(p[0], i * s[0]) = v;
        } else if (std::is_same_v<D, S> && s[0] == sizeof(D) && s[1] == sizeof(S)) {
          std::memcpy(p[0], p[1], static_cast<size_t>(n) * sizeof(D));
        } else if (s[0] == sizeof(D) && s[1] == sizeof(S) && std::is_same_v<D, float> &&
                   std::is_same_v<S, c10::BFloat16>) {  // autocast's casts: the vectorized conversions
          bfloat16_to_floats(reinterpret_cast<const uint16_t*>(p[1]), reinterpret_cast<float*>(p[0]), n);
        } else if (s[0] == sizeof(D) && s[1] == sizeof(S) && std::is_same_v<D, c10::BFloat16> &&
                   std::is_same_v<S, float>) {
          floats_to_bfloat16(reinterpret_cast<const float*>(p[1]), reinterpret_cast<uint16_t*>(p[0]), n);
        } else if (s[0] == sizeof(D) && s[1] == sizeof(S) && std::is_same_v<D, float> &&
                   std::is_same_v<S, c10::Half>) {
          half_to_floats(reinterpret_cast<const uint16_t*>(p[1]), reinterpret_cast<float*>(p[0]), n);
        } else if (s[0] == sizeof(D) && s[1] == sizeof(S) && std::is_same_v<D, c10::Half> &&
                   std::is_same_v<S, float>) {
          floats_to_half(reinterpret_cast<const float*>(p[1]), reinterpret_cast<uint16_t*>(p[0]), n);
        } else if (s[0] == sizeof(D) && s[1] == sizeof(S)) {
          // Dense: Loops.h's contiguous loop and its vector clones (compiled
          // for baseline x86-64 only, float to int32 ran 4 at a time: 1M in
          // 148 us against torch's 92).
          char* dense[2] = {p[0], p[1]};
          detail::contiguous_loop(dense, n, [](S v) { return c10::convert<D>(v); }, std::index_sequence<0>{});
        } else {
          for (int64_t i = 0; i < n; ++i) at<D>(p[0], i * s[0]) = c10::convert<D>(at<S>(p[1], i * s[1]));
        }
      };
      // Large copies split along dim 0 over the pool (pointer arithmetic
      // only: no tensors are made on the workers).
      std::vector<int64_t> sizes = dst.sizes().vec();
      const int64_t rows = sizes.empty() ? 1 : sizes[0];
      const int64_t per_row = rows > 0 ? dst.numel() / rows : 0;
      parallel_for(0, rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(per_row, 1)), [&](int64_t b, int64_t e) {
        std::vector<int64_t> chunk = sizes;
        if (!chunk.empty()) chunk[0] = e - b;
        const int64_t d0 = dst_strides.empty() ? 0 : dst_strides[0], s0 = src_strides.empty() ? 0 : src_strides[0];
        StridedOperands<2> ops{{bytes(dst) + b * d0, bytes(src) + b * s0}, {dst_strides, src_strides}};
        strided_loop<2>(chunk, ops, run);
      });
    });
  });
}

void conj_neg_kernel(const Tensor& self, bool conj, bool neg) {
  conj = conj && self.is_complex();
  if (self.numel() == 0 || (!conj && !neg)) return;
  StridedOperands<1> ops{{bytes(self)}, {byte_strides(self)}};
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_CHECK(!neg, "Negation, the `-` operator, on a bool tensor is not supported.");
    } else {
      strided_loop<1>(self.sizes(), ops, [&](const std::array<char*, 1>& p, const std::array<int64_t, 1>& s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          T& v = at<T>(p[0], i * s[0]);
          if constexpr (c10::is_complex_v<T>) {
            if (conj) v = std::conj(v);
          }
          if (neg) {
            if constexpr (c10::is_reduced_float_v<T>) {
              v = T(-static_cast<float>(v));
            } else {
              v = static_cast<T>(-v);
            }
          }
        }
      });
    }
  });
}

void fill_kernel(const Tensor& self, const Scalar& value) {
  if (self.numel() == 0) return;
  StridedOperands<1> ops{{bytes(self)}, {byte_strides(self)}};
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.to<T>();
    strided_loop<1>(self.sizes(), ops, [v](const std::array<char*, 1>& p, const std::array<int64_t, 1>& s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) at<T>(p[0], i * s[0]) = v;
    });
  });
}

Scalar item_kernel(const Tensor& self) {
  return c10::visit_scalar_type(self.dtype(), [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    return Scalar(*static_cast<const T*>(self.data_ptr()));
  });
}

bool equal_kernel(const Tensor& a, const Tensor& b) {
  EMBER_INTERNAL_ASSERT(a.dtype() == b.dtype() && a.sizes() == b.sizes());
  bool same = true;
  StridedOperands<2> ops{{bytes(a), bytes(b)}, {byte_strides(a), byte_strides(b)}};
  c10::visit_scalar_type(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    strided_loop<2>(a.sizes(), ops, [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
      for (int64_t i = 0; i < n && same; ++i) {
        if constexpr (c10::is_reduced_float_v<T>) {
          same = static_cast<float>(at<T>(p[0], i * s[0])) == static_cast<float>(at<T>(p[1], i * s[1]));
        } else {
          same = at<T>(p[0], i * s[0]) == at<T>(p[1], i * s[1]);
        }
      }
    });
  });
  return same;
}

}  // namespace ember::native::cpu
