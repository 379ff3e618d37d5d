// Tensor creation: allocation plus the deterministic fills.

#include <aten/Functions.h>
#include <aten/core/ExpandUtils.h>
#include <c10/util/TypeCast.h>

#include <cmath>
#include <cstring>

namespace ember {

namespace {

void check_device_supported(Device device) {
  EMBER_CHECK(device.is_cpu() || device.is_meta(),
              "Device {} is not available: Ember was built without {} support", device.str(),
              c10::toString(device.type));
}

// Finishes a factory: requires_grad comes from the options.
Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.set_requires_grad(true);
  return t;
}

ScalarType dtype_for_value(const Scalar& v) {
  if (v.isBoolean()) return ScalarType::Bool;
  if (v.isIntegral(false)) return ScalarType::Long;
  if (v.isComplex()) return c10::get_default_complex_dtype();
  return c10::get_default_dtype();
}

// Writes f(i) into a fresh contiguous tensor's i-th element for each i.
template <typename F>
void fill_with_index(const Tensor& t, F&& f) {
  if (t.is_meta()) return;
  c10::visit_scalar_type(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = static_cast<T*>(t.data_ptr());
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) data[i] = f(i, tag);
  });
}

}  // namespace

Tensor empty(IntArrayRef sizes, TensorOptions options) {
  const Device device = options.device_or_cpu();
  check_device_supported(device);
  const ScalarType dtype = options.dtype_or_default();
  const int64_t numel = c10::checked_numel(sizes);
  size_t nbytes = 0;
  EMBER_CHECK(!__builtin_mul_overflow(static_cast<size_t>(numel), c10::elementSize(dtype), &nbytes),
              "empty: size {} in bytes overflows", c10::str_sizes(sizes));
  c10::Storage storage(nbytes, c10::GetAllocator(device.type));
  return finish(Tensor(c10::make_intrusive<c10::TensorImpl>(std::move(storage), dtype, sizes)), options);
}

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions options) {
  EMBER_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  Tensor t = empty({0}, options.requires_grad(false));
  auto* impl = t.unsafeGetTensorImpl();
  impl->set_sizes_and_strides(sizes, strides, 0);
  impl->storage().unsafeGetStorageImpl()->grow(impl->required_storage_nbytes());
  return finish(t, options);
}

Tensor zeros(IntArrayRef sizes, TensorOptions options) {
  Tensor t = empty(sizes, options.requires_grad(false));
  if (!t.is_meta() && t.nbytes() > 0) std::memset(t.data_ptr(), 0, t.nbytes());
  return finish(t, options);
}

Tensor ones(IntArrayRef sizes, TensorOptions options) { return full(sizes, 1, options.dtype(options.dtype_or_default())); }

Tensor full(IntArrayRef sizes, const Scalar& fill_value, TensorOptions options) {
  Tensor t = empty(sizes, options.dtype(options.dtype_or(dtype_for_value(fill_value))).requires_grad(false));
  fill_(t, fill_value);
  return finish(t, options);
}

Tensor scalar_tensor(const Scalar& value, TensorOptions options) {
  // Unlike full(), torch.scalar_tensor(3) is a float tensor: only a complex
  // value (which torch rejects) picks a type of its own.
  const ScalarType dtype = value.isComplex() ? c10::get_default_complex_dtype() : c10::get_default_dtype();
  return full({}, value, options.dtype(options.dtype_or(dtype)));
}

Tensor empty_like(const Tensor& self, TensorOptions options) {
  // Like torch.preserve_format: keep a dense layout (e.g. a transposed
  // matrix stays column-major), otherwise a dense one in the same dim order.
  const TensorOptions resolved = options.dtype(options.dtype_or(self.dtype()))
                                     .device(options.device_opt().value_or(self.device()));
  // (An empty tensor counts as contiguous, so it keeps its strides, as in torch.)
  if (self.is_contiguous() || is_non_overlapping_and_dense(self.sizes(), self.strides())) {
    return empty_strided(self.sizes(), self.strides(), resolved);
  }
  return empty_strided(self.sizes(), infer_dense_strides(self.sizes(), self.strides()), resolved);
}

Tensor zeros_like(const Tensor& self, TensorOptions options) { return full_like(self, 0, options); }

Tensor ones_like(const Tensor& self, TensorOptions options) { return full_like(self, 1, options); }

Tensor full_like(const Tensor& self, const Scalar& fill_value, TensorOptions options) {
  Tensor t = empty_like(self, options.requires_grad(false));
  fill_(t, fill_value);
  return finish(t, options);
}

Tensor arange(const Scalar& end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions options) {
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  const ScalarType dtype = options.dtype_or(integral ? ScalarType::Long : c10::get_default_dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(!c10::isComplexType(dtype), "arange(): complex dtype {} is not supported",
                              c10::python_name(dtype));
  const double xstart = start.toDouble(), xend = end.toDouble(), xstep = step.toDouble();
  EMBER_CHECK(xstep != 0, "step must be nonzero");
  EMBER_CHECK(std::isfinite(xstart) && std::isfinite(xend), "unsupported range: {} -> {}", xstart, xend);
  EMBER_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
              "upper bound and larger bound inconsistent with step sign");
  int64_t size = 0;
  if (integral) {
    const int64_t s = start.toLong(), e = end.toLong(), st = step.toLong();
    size = st > 0 ? (e - s + st - 1) / st : (s - e - st - 1) / (-st);
  } else {
    size = static_cast<int64_t>(std::ceil((xend - xstart) / xstep));
  }
  Tensor t = empty({size}, options.dtype(dtype).requires_grad(false));
  fill_with_index(t, [&](int64_t i, auto tag) {
    using T = typename decltype(tag)::type;
    if (integral) return c10::convert<T>(start.toLong() + i * step.toLong());
    return c10::convert<T>(xstart + static_cast<double>(i) * xstep);
  });
  return finish(t, options);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options) {
  EMBER_CHECK(steps >= 0, "number of steps must be non-negative");
  // Complex endpoints make a complex tensor, as in torch (not a real one
  // that silently drops the imaginary parts).
  const bool complex = start.isComplex() || end.isComplex();
  const ScalarType dtype = options.dtype_or(complex ? c10::get_default_complex_dtype() : c10::get_default_dtype());
  Tensor t = empty({steps}, options.dtype(dtype).requires_grad(false));
  const c10::complex<double> a = start.toComplexDouble(), b = end.toComplexDouble();
  const c10::complex<double> step = steps > 1 ? (b - a) / static_cast<double>(steps - 1) : 0.0;
  // Fill the first half from `start` and the second from `end`, so both
  // endpoints come out exact. A single step is `start`, not `end`.
  const int64_t halfway = steps == 1 ? 1 : steps / 2;
  fill_with_index(t, [&](int64_t i, auto tag) {
    using T = typename decltype(tag)::type;
    const c10::complex<double> v =
        i < halfway ? a + step * static_cast<double>(i) : b - step * static_cast<double>(steps - 1 - i);
    return c10::convert<T>(v);
  });
  return finish(t, options);
}

Tensor eye(int64_t n, std::optional<int64_t> m_opt, TensorOptions options) {
  const int64_t m = m_opt.value_or(n);
  EMBER_CHECK(n >= 0, "n must be greater or equal to 0, got {}", n);
  EMBER_CHECK(m >= 0, "m must be greater or equal to 0, got {}", m);
  Tensor t = zeros({n, m}, options.requires_grad(false));
  if (!t.is_meta()) {
    c10::visit_scalar_type(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* data = static_cast<T*>(t.data_ptr());
      for (int64_t i = 0; i < std::min(n, m); ++i) data[i * m + i] = c10::convert<T>(1);
    });
  }
  return finish(t, options);
}

}  // namespace ember
