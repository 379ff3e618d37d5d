// _fft_c2c, _fft_r2c, _fft_c2r: checks, output geometry and normalization,
// the same on every device; the transform itself is the backend's fft_stub.
// ember.fft's functions (python/ember/fft) are built on these three.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/MemoryOrder.h>
#include <aten/native/SpectralOps.h>

#include <cmath>

namespace ember::native {

DispatchStub<FftFn> fft_stub("fft");

namespace {

std::vector<int64_t> checked_dims(const Tensor& self, IntArrayRef dim, const char* op) {
  EMBER_CHECK(!dim.empty(), "{}: expected at least one dim to transform", op);
  std::vector<int64_t> dims;
  std::vector<bool> seen(self.dim(), false);
  for (int64_t d : dim) {
    // A 0-d tensor has no dim to transform (wrapping would index past `seen`).
    const int64_t w = c10::maybe_wrap_dim(d, self.dim(), /*wrap_scalar=*/false);
    EMBER_CHECK(!seen[w], "{}: dims must be unique, but dim {} appears twice", op, w);
    seen[w] = true;
    dims.push_back(w);
  }
  return dims;
}

void check_signal_sizes(const Tensor& logical, IntArrayRef dims) {
  for (int64_t d : dims) {
    EMBER_CHECK(logical.size(d) >= 1, "Invalid number of data points ({}) specified", logical.size(d));
  }
}

// Multiplies by the normalization of a transform whose signal has the
// (logical) sizes of `logical` along `dims`.
Tensor normalized(Tensor result, const Tensor& logical, IntArrayRef dims, int64_t normalization) {
  const auto norm = static_cast<FftNorm>(normalization);
  EMBER_CHECK(normalization >= 0 && normalization <= 2, "fft: unknown normalization mode {}", normalization);
  if (norm == FftNorm::None || result.is_meta()) return result;
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(logical.size(d));
  result.mul_(norm == FftNorm::ByN ? 1.0 / n : 1.0 / std::sqrt(n));
  return result;
}

// A new tensor of `sizes` whose dims lie in memory in the order of self's:
// FFTW then reads and writes along the same strides (a transposed input gets
// a transposed result), which runs several times faster than transposing
// on the way.
Tensor empty_in_order_of(const Tensor& self, IntArrayRef sizes, ScalarType dtype) {
  const int64_t n = self.dim();
  const std::vector<int64_t> order = dims_in_memory_order(self);
  std::vector<int64_t> permuted_sizes, inverse(n);
  for (int64_t i = 0; i < n; ++i) {
    permuted_sizes.push_back(sizes[order[i]]);
    inverse[order[i]] = i;
  }
  return ember::empty(permuted_sizes, dtype, self.device()).permute(inverse);
}

void check_complex_input(const Tensor& self, const char* op) {
  EMBER_CHECK(self.is_complex(), "{}: expected a complex input tensor, but got {}", op,
              c10::toString(self.scalar_type()));
  EMBER_CHECK(self.scalar_type() == ScalarType::ComplexFloat || self.scalar_type() == ScalarType::ComplexDouble,
              "Unsupported dtype {}", c10::toString(self.scalar_type()));
}

bool is_fft_float(ScalarType t) { return t == ScalarType::Float || t == ScalarType::Double; }

}  // namespace

Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  check_complex_input(self, "_fft_c2c");
  const std::vector<int64_t> dims = checked_dims(self, dim, "_fft_c2c");
  check_signal_sizes(self, dims);
  Tensor out = empty_in_order_of(self, self.sizes(), self.scalar_type());
  if (out.is_meta() || out.numel() == 0) return out;
  fft_stub(self.device().type, FftKind::C2C, forward, self, out, IntArrayRef(dims));
  return normalized(out, self, dims, normalization);
}

Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  EMBER_CHECK(is_fft_float(self.scalar_type()), "_fft_r2c: expected a float or double input tensor, but got {}",
              c10::toString(self.scalar_type()));
  const std::vector<int64_t> dims = checked_dims(self, dim, "_fft_r2c");
  check_signal_sizes(self, dims);
  const int64_t last = dims.back();
  const int64_t n = self.size(last), half = n / 2 + 1;
  std::vector<int64_t> sizes = self.sizes().vec();
  if (onesided) sizes[last] = half;
  Tensor out = empty_in_order_of(self, sizes, c10::toComplexType(self.scalar_type()));
  if (out.is_meta() || out.numel() == 0) return out;
  const Tensor lower = onesided ? out : ember::narrow(out, last, 0, half);
  fft_stub(self.device().type, FftKind::R2C, true, self, lower, IntArrayRef(dims));
  if (!onesided && n > half) {
    // A real signal's spectrum is Hermitian: X[k] = conj(X[-k mod n]) in every
    // transformed dim, which fills the upper part of the last one.
    Tensor mirror = ember::flip(ember::narrow(lower, last, 1, n - half), {last});
    for (int64_t d : dims) {
      if (d != last && mirror.size(d) > 1) mirror = ember::roll(ember::flip(mirror, {d}), {1}, {d});
    }
    ember::narrow(out, last, half, n - half).copy_(ember::conj(mirror));
  }
  return normalized(out, self, dims, normalization);
}

Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  check_complex_input(self, "_fft_c2r");
  const std::vector<int64_t> dims = checked_dims(self, dim, "_fft_c2r");
  EMBER_CHECK(last_dim_size >= 1, "Invalid number of data points ({}) specified", last_dim_size);
  const int64_t half = last_dim_size / 2 + 1;
  EMBER_CHECK(self.size(dims.back()) >= half,
              "_fft_c2r: expected at least {} entries along dim {} for an output of size {}, but got {}", half,
              dims.back(), last_dim_size, self.size(dims.back()));
  std::vector<int64_t> sizes = self.sizes().vec();
  sizes[dims.back()] = last_dim_size;
  Tensor out = ember::empty(sizes, c10::toRealValueType(self.scalar_type()), self.device());
  check_signal_sizes(out, dims);
  if (out.is_meta() || out.numel() == 0) return out;
  // FFTW overwrites a multi-dim c2r input: transform a private copy.
  const Tensor input = ember::narrow(self, dims.back(), 0, half).clone();
  fft_stub(self.device().type, FftKind::C2R, false, input, out, IntArrayRef(dims));
  return normalized(out, out, dims, normalization);
}

}  // namespace ember::native
