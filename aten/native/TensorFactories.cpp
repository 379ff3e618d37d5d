// Tensor creation: allocation plus the deterministic fills. The kernels are
// device-generic: the device picks the allocator (Meta allocates nothing).

#include <aten/Functions.h>
#include <aten/core/ExpandUtils.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/FactoryUtils.h>
#include <aten/native/Resize.h>
#include <aten/native/TensorIterator.h>
#include <c10/core/DeviceHooks.h>
#include <c10/util/TypeCast.h>

#include <cmath>
#include <cstring>

namespace ember::native {

namespace {

using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;

void check_device_supported(Device device) {
  if (device.is_cpu() || device.is_meta()) return;
  const c10::DeviceHooks* hooks = c10::GetDeviceHooks(device.type);
  EMBER_CHECK(hooks != nullptr && c10::HasAllocator(device.type),
              "Device {} is not available: no {} backend is registered (Ember was built without it, or the "
              "backend's library is not loaded)", device.str(), c10::toString(device.type));
  hooks->check_device(device.index);
}

// The factories that compute their values on the host build them on the
// CPU and copy them to any other device.
bool on_host(OptDevice device) { return !device || device->is_cpu() || device->is_meta(); }

ScalarType dtype_for_value(const Scalar& v) {
  if (v.isBoolean()) return ScalarType::Bool;
  if (v.isIntegral(false)) return ScalarType::Long;
  if (v.isComplex()) return c10::get_default_complex_dtype();
  return c10::get_default_dtype();
}

// Writes f(i, tag) into a fresh contiguous tensor's i-th element.
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

OptDevice device_or(OptDevice device, const Tensor& like) { return device ? device : like.device(); }
OptDtype dtype_or(OptDtype dtype, const Tensor& like) { return dtype ? dtype : like.dtype(); }

}  // namespace

namespace {
// A tensor of `size` with `stride` (contiguous when not given) over new
// memory: the one place empty and empty_strided allocate.
Tensor fresh_tensor(IntArrayRef size, std::optional<IntArrayRef> stride, OptDtype dtype, OptDevice device_opt) {
  const Device device = device_opt.value_or(Device(DeviceType::CPU));
  check_device_supported(device);
  const ScalarType type = dtype.value_or(c10::get_default_dtype());
  const int64_t numel = c10::checked_numel(size);
  const c10::DimVector strides = stride ? c10::DimVector(*stride) : c10::contiguous_strides(size);
  size_t nbytes = 0;
  if (numel > 0) {
    EMBER_CHECK(!__builtin_mul_overflow(static_cast<size_t>(numel), c10::elementSize(type), &nbytes),
                "empty: size {} in bytes overflows", c10::str_sizes(size));
    if (stride) nbytes = c10::TensorImpl::storage_nbytes_for(size, strides, 0, c10::elementSize(type));
  }
  c10::DeviceGuard guard(device);
  c10::Storage storage(nbytes, c10::GetAllocator(device.type));
  // No version counter yet: it is made on first use.
  return Tensor(c10::make_intrusive<c10::TensorImpl>(std::move(storage), type, size, strides, 0, nullptr));
}
}  // namespace

Tensor empty(IntArrayRef size, OptDtype dtype, OptDevice device) {
  return fresh_tensor(size, std::nullopt, dtype, device);
}

Tensor empty_out(IntArrayRef size, const Tensor& out) { return out.resize_(size); }

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, OptDtype dtype, OptDevice device) {
  EMBER_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  return fresh_tensor(size, stride, dtype, device);
}

Tensor zeros(IntArrayRef size, OptDtype dtype, OptDevice device) {
  Tensor t = ember::empty(size, dtype, device);
  if (!t.is_cpu()) return fresh(t.zero_());
  if (t.nbytes() > 0) std::memset(t.data_ptr(), 0, t.nbytes());
  return t;
}

Tensor zeros_out(IntArrayRef size, const Tensor& out) { return out.resize_(size).zero_(); }

Tensor ones(IntArrayRef size, OptDtype dtype, OptDevice device) {
  return ember::full(size, 1, dtype.value_or(c10::get_default_dtype()), device);
}

Tensor ones_out(IntArrayRef size, const Tensor& out) { return out.resize_(size).fill_(1); }

Tensor full(IntArrayRef size, const Scalar& fill_value, OptDtype dtype, OptDevice device) {
  return fresh(ember::empty(size, dtype.value_or(dtype_for_value(fill_value)), device).fill_(fill_value));
}

Tensor full_out(IntArrayRef size, const Scalar& fill_value, const Tensor& out) {
  return out.resize_(size).fill_(fill_value);
}

Tensor scalar_tensor(const Scalar& s, OptDtype dtype, OptDevice device) {
  // Unlike full(), torch.scalar_tensor(3) is a float tensor: only a complex
  // value (which torch rejects) picks a type of its own.
  const ScalarType fallback = s.isComplex() ? c10::get_default_complex_dtype() : c10::get_default_dtype();
  return ember::full({}, s, dtype.value_or(fallback), device);
}

Tensor empty_like(const Tensor& self, OptDtype dtype, OptDevice device, std::optional<MemoryFormat> memory_format) {
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  std::vector<int64_t> strides;
  if (format != MemoryFormat::Preserve) {
    strides = c10::strides_in(format, self.sizes(), "empty_like");
  } else if (self.is_contiguous() || is_non_overlapping_and_dense(self.sizes(), self.strides())) {
    // preserve_format keeps a dense layout (a transposed matrix stays column-major;
    // an empty tensor counts as contiguous, so it keeps its strides, as in torch),
    strides = self.strides().vec();
  } else {
    strides = infer_dense_strides(self.sizes(), self.strides());  // else a dense one in the same dim order
  }
  return ember::empty_strided(self.sizes(), strides, dtype_or(dtype, self), device_or(device, self));
}

// new_*: a fresh contiguous tensor of any size with self's dtype and device
// unless given (self's layout and values play no part).
Tensor new_empty(const Tensor& self, IntArrayRef size, OptDtype dtype, OptDevice device) {
  return ember::empty(size, dtype_or(dtype, self), device_or(device, self));
}

Tensor new_zeros(const Tensor& self, IntArrayRef size, OptDtype dtype, OptDevice device) {
  return ember::zeros(size, dtype_or(dtype, self), device_or(device, self));
}

Tensor new_ones(const Tensor& self, IntArrayRef size, OptDtype dtype, OptDevice device) {
  return ember::ones(size, dtype_or(dtype, self), device_or(device, self));
}

Tensor new_full(const Tensor& self, IntArrayRef size, const Scalar& fill_value, OptDtype dtype, OptDevice device) {
  return ember::full(size, fill_value, dtype_or(dtype, self), device_or(device, self));
}

Tensor zeros_like(const Tensor& self, OptDtype dtype, OptDevice device, std::optional<MemoryFormat> memory_format) {
  return fresh(ember::empty_like(self, dtype, device, memory_format).zero_());
}

Tensor ones_like(const Tensor& self, OptDtype dtype, OptDevice device, std::optional<MemoryFormat> memory_format) {
  return fresh(ember::empty_like(self, dtype, device, memory_format).fill_(1));
}

Tensor full_like(const Tensor& self, const Scalar& fill_value, OptDtype dtype, OptDevice device,
                 std::optional<MemoryFormat> memory_format) {
  return fresh(ember::empty_like(self, dtype, device, memory_format).fill_(fill_value));
}

Tensor arange(const Scalar& end, OptDtype dtype, OptDevice device) { return ember::arange(0, end, 1, dtype, device); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype_opt, OptDevice device) {
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  const ScalarType dtype = dtype_opt.value_or(integral ? ScalarType::Long : c10::get_default_dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(!c10::isComplexType(dtype), "arange(): complex dtype {} is not supported",
                              c10::python_name(dtype));
  if (!on_host(device)) return fresh(ember::arange(start, end, step, dtype, std::nullopt).to(*device));
  const double xstart = start.toDouble(), xend = end.toDouble(), xstep = step.toDouble();
  EMBER_CHECK(xstep != 0, "step must be nonzero");
  EMBER_CHECK(std::isfinite(xstart) && std::isfinite(xend), "unsupported range: {} -> {}", xstart, xend);
  EMBER_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
              "upper bound and larger bound inconsistent with step sign");
  int64_t size = 0;
  if (integral) {
    // In 128 bits: the length of [INT64_MIN, INT64_MAX) does not fit in 64 (then empty() refuses it).
    const __int128 s = start.toLong(), e = end.toLong(), st = step.toLong();
    const __int128 count = st > 0 ? (e - s + st - 1) / st : (s - e - st - 1) / (-st);
    EMBER_CHECK(count <= INT64_MAX, "arange(): the range {} -> {} by {} has more than {} elements", start.toLong(),
                end.toLong(), step.toLong(), INT64_MAX);
    size = static_cast<int64_t>(count);
  } else {
    size = static_cast<int64_t>(std::ceil((xend - xstart) / xstep));
  }
  Tensor t = ember::empty({size}, dtype, device);
  fill_with_index(t, [&](int64_t i, auto tag) {
    using T = typename decltype(tag)::type;
    if (integral) {
      // Every value lies in the range, but i * step alone may not fit in 64 bits.
      return c10::convert<T>(static_cast<int64_t>(__int128{start.toLong()} + __int128{i} * step.toLong()));
    }
    return c10::convert<T>(xstart + static_cast<double>(i) * xstep);
  });
  return t;
}

Tensor arange_out(const Scalar& end, const Tensor& out) { return ember::arange_outf(0, end, 1, out); }

Tensor arange_out(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out) {
  return resize_out(out, ember::arange(start, end, step, out.dtype(), out.device()));
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, OptDtype dtype, OptDevice device) {
  EMBER_CHECK(steps >= 0, "number of steps must be non-negative");
  if (!on_host(device)) return fresh(ember::linspace(start, end, steps, dtype, std::nullopt).to(*device));
  // Complex endpoints make a complex tensor, as in torch (not a real one
  // that silently drops the imaginary parts).
  const bool complex = start.isComplex() || end.isComplex();
  Tensor t = ember::empty({steps}, dtype.value_or(complex ? c10::get_default_complex_dtype() : c10::get_default_dtype()),
                          device);
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
  return t;
}

Tensor linspace_out(const Scalar& start, const Scalar& end, int64_t steps, const Tensor& out) {
  return resize_out(out, ember::linspace(start, end, steps, out.dtype(), out.device()));
}

Tensor eye(int64_t n, OptDtype dtype, OptDevice device) { return ember::eye(n, n, dtype, device); }

Tensor eye(int64_t n, int64_t m, OptDtype dtype, OptDevice device) {
  EMBER_CHECK(n >= 0, "n must be greater or equal to 0, got {}", n);
  EMBER_CHECK(m >= 0, "m must be greater or equal to 0, got {}", m);
  if (!on_host(device)) return fresh(ember::eye(n, m, dtype, std::nullopt).to(*device));
  Tensor t = ember::zeros({n, m}, dtype, device);
  if (!t.is_meta()) {
    c10::visit_scalar_type(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* data = static_cast<T*>(t.data_ptr());
      for (int64_t i = 0; i < std::min(n, m); ++i) data[i * m + i] = c10::convert<T>(1);
    });
  }
  return t;
}

Tensor eye_out(int64_t n, const Tensor& out) { return ember::eye_outf(n, n, out); }

Tensor eye_out(int64_t n, int64_t m, const Tensor& out) {
  return resize_out(out, ember::eye(n, m, out.dtype(), out.device()));
}

// The coordinates of a triangle's entries, row by row: where column - row is
// at most (lower) or at least (upper) offset.
namespace {
Tensor triangle_indices(const char* op, int64_t row, int64_t col, int64_t offset, bool lower, OptDtype dtype,
                        OptDevice device) {
  EMBER_CHECK(row >= 0, "{}: row must be non-negative, got {}", op, row);
  EMBER_CHECK(col >= 0, "{}: col must be non-negative, got {}", op, col);
  const ScalarType type = dtype.value_or(ScalarType::Long);
  EMBER_CHECK(type == ScalarType::Long || type == ScalarType::Int, "{}: \"{}\" not implemented for the indices",
              op, c10::toString(type));
  const Tensor rows = ember::arange(row, ScalarType::Long, device).unsqueeze(1).expand({row, col});
  const Tensor cols = ember::arange(col, ScalarType::Long, device).unsqueeze(0).expand({row, col});
  const Tensor offsets = ember::sub(cols, rows);
  const Tensor inside = lower ? ember::le(offsets, offset) : ember::ge(offsets, offset);
  return ember::stack({rows.masked_select(inside), cols.masked_select(inside)}).to(type);
}
}  // namespace

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, OptDtype dtype, OptDevice device) {
  return triangle_indices("tril_indices", row, col, offset, true, dtype, device);
}

Tensor triu_indices(int64_t row, int64_t col, int64_t offset, OptDtype dtype, OptDevice device) {
  return triangle_indices("triu_indices", row, col, offset, false, dtype, device);
}

// ---- windows for spectral analysis ------------------------------------------------------------
// Computed in the window's dtype by torch's formulas (the values agree with its to an ulp).

namespace {

ScalarType window_dtype(const char* name, OptDtype dtype) {
  const ScalarType t = dtype.value_or(c10::get_default_dtype());
  EMBER_CHECK(c10::isFloatingType(t), "{} expects floating point dtypes, got: {}", name, c10::toString(t));
  return t;
}

// The positions 0 .. length-1, or nullopt for the lengths whose window is fixed (empty, a single 1).
std::optional<Tensor> window_positions(const char* name, int64_t length, ScalarType t, OptDevice device) {
  EMBER_CHECK(length >= 0, "{} requires non-negative window_length, got window_length={}", name, length);
  if (length <= 1) return std::nullopt;
  return ember::arange(length, t, device);
}

Tensor fixed_window(int64_t length, ScalarType t, OptDevice device) {
  return length == 0 ? ember::empty({0}, t, device) : ember::ones({1}, t, device);
}

}  // namespace

Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta, OptDtype dtype,
                      OptDevice device) {
  const ScalarType t = window_dtype("hamming_window", dtype);
  const auto n = window_positions("hamming_window", window_length, t, device);
  if (!n) return fixed_window(window_length, t, device);
  const int64_t span = periodic ? window_length : window_length - 1;
  return n->mul(2 * M_PI / static_cast<double>(span)).cos().mul(-beta).add(alpha);
}

Tensor hann_window(int64_t window_length, bool periodic, OptDtype dtype, OptDevice device) {
  window_dtype("hann_window", dtype);
  return ember::hamming_window(window_length, periodic, 0.5, 0.5, dtype, device);
}

Tensor blackman_window(int64_t window_length, bool periodic, OptDtype dtype, OptDevice device) {
  const ScalarType t = window_dtype("blackman_window", dtype);
  const auto n = window_positions("blackman_window", window_length, t, device);
  if (!n) return fixed_window(window_length, t, device);
  const int64_t span = periodic ? window_length : window_length - 1;
  const Tensor angle = n->mul(M_PI / static_cast<double>(span));
  return angle.mul(4).cos().mul(0.08) - angle.mul(2).cos().mul(0.5) + 0.42;
}

Tensor bartlett_window(int64_t window_length, bool periodic, OptDtype dtype, OptDevice device) {
  const ScalarType t = window_dtype("bartlett_window", dtype);
  const auto n = window_positions("bartlett_window", window_length, t, device);
  if (!n) return fixed_window(window_length, t, device);
  const int64_t span = periodic ? window_length : window_length - 1;
  Tensor window = n->mul(2.0 / static_cast<double>(span));
  const int64_t rising = (span >> 1) + 1;
  window.narrow(0, rising, window_length - rising).mul_(-1).add_(2);
  return window;
}

// base ** linspace(start, end, steps).
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, OptDtype dtype, OptDevice device) {
  const ScalarType t = dtype.value_or(c10::get_default_dtype());
  const Tensor exponents = ember::linspace(start, end, steps, ScalarType::Double, device);
  return ember::pow(wrapped_scalar_tensor(Scalar(base)).to(exponents.device()), exponents).to(t);
}

// torch.range: like arange, but end is included and the default dtype is the default float.
Tensor range(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype, OptDevice device) {
  const double a = start.toDouble(), b = end.toDouble(), s = step.toDouble();
  EMBER_CHECK(s != 0, "range: step must be nonzero");
  EMBER_CHECK((s > 0 && b >= a) || (s < 0 && b <= a), "range: upper bound and larger bound inconsistent with step sign");
  const int64_t count = static_cast<int64_t>(std::floor((b - a) / s)) + 1;
  return ember::arange(count, ScalarType::Double, device).mul(s).add(a).to(dtype.value_or(c10::get_default_dtype()));
}

}  // namespace ember::native

