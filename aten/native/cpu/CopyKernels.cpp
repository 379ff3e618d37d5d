#include <aten/native/cpu/CopyKernels.h>
#include <aten/native/cpu/StridedLoop.h>
#include <c10/util/TypeCast.h>

#include <cstring>

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

}  // namespace

void copy_kernel(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    std::memcpy(dst.data_ptr(), src.data_ptr(), dst.nbytes());
    return;
  }
  StridedOperands<2> ops{{bytes(dst), bytes(src)}, {byte_strides(dst), byte_strides(src)}};
  c10::visit_scalar_type(dst.dtype(), [&](auto dst_tag) {
    using D = typename decltype(dst_tag)::type;
    c10::visit_scalar_type(src.dtype(), [&](auto src_tag) {
      using S = typename decltype(src_tag)::type;
      strided_loop<2>(dst.sizes(), ops, [](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) at<D>(p[0], i * s[0]) = c10::convert<D>(at<S>(p[1], i * s[1]));
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
