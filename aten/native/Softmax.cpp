// softmax, log_softmax, _safe_softmax and their backward, row by row along
// one dim; the row loops are DispatchStubs so a backend brings its own.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/AlongDim.h>
#include <aten/native/DeviceKernels.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/FloatStaging.h>
#include <aten/native/cpu/VecMath.h>

#include <cmath>
#include <limits>

namespace ember::native {

namespace {

// The CPU's softmax_rows_stub.
void cpu_softmax_rows(const Tensor& rows, const Tensor& out, bool log, bool safe) {
  const int64_t outer = rows.size(0);
  c10::visit_scalar_type(rows.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = cpu::opmath_t<T>;
      const T* in = static_cast<const T*>(rows.data_ptr());
      T* o = static_cast<T*>(out.data_ptr());
      const int64_t n = rows.size(1);
      parallel_for(0, outer, rows_per_task(n), [&](int64_t b, int64_t e) {
        if constexpr (std::is_same_v<T, float>) {
          // Vectorized: y = exp(x - m) and its sum in one pass, then normalize.
          cpu::softmax_rows_floats(in + b * n, o + b * n, e - b, n, log, safe);
          return;
        } else if constexpr (c10::is_reduced_float_v<T>) {
          cpu::rows_as_floats<1>(std::array<const T*, 1>{in + b * n}, o + b * n, e - b, n,
                                 [&](const auto& x, float* y, int64_t rows) {
                                   cpu::softmax_rows_floats(x[0], y, rows, n, log, safe);
                                 });
          return;
        }
        for (int64_t r = b; r < e; ++r) {
          const T* x = in + r * n;
          T* y = o + r * n;
          M m = -std::numeric_limits<M>::infinity();
          for (int64_t i = 0; i < n; ++i) m = std::max(m, static_cast<M>(x[i]));
          if (safe && m == -std::numeric_limits<M>::infinity()) {
            std::fill(y, y + n, T(0));
            continue;
          }
          if (std::isinf(m)) m = m > 0 ? m : M(0);
          M total = 0;
          for (int64_t i = 0; i < n; ++i) total += std::exp(static_cast<M>(x[i]) - m);
          if (log) {
            const M shift = m + std::log(total);
            for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(static_cast<M>(x[i]) - shift);
          } else {
            const M inv = M(1) / total;
            for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(std::exp(static_cast<M>(x[i]) - m) * inv);
          }
        }
      });
    }
  });
}

// safe: rows that are all -inf give zeros instead of NaN (torch's
// _safe_softmax, which attention uses for fully masked rows).
Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, bool log, bool safe = false) {
  const ScalarType t = dtype.value_or(self.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(t), "\"{}\" not implemented for '{}'",
                              log ? "log_softmax" : "softmax",
                              c10::toString(t));
  if (self.is_meta() || self.numel() == 0) return ember::empty(self.sizes(), t, self.device());
  const AlongDim a = along_dim(self, dim, t);
  Tensor out = ember::empty_like(a.rows);
  softmax_rows_stub(out.device().type, a.rows, out, log, safe);
  const Tensor result = a.restore(out);
  return self.dim() == 0 ? result.reshape({}) : result;
}

}  // namespace

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(self, dim, dtype, false);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(self, dim, dtype, true);
}
Tensor _safe_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(self, dim, dtype, false, /*safe=*/true);
}

namespace {
// The CPU's softmax_backward_rows_stub.
void cpu_softmax_backward_rows(const Tensor& grad_rows, const Tensor& y_rows, const Tensor& out, bool log) {
  const int64_t outer = y_rows.size(0);
  c10::visit_scalar_type(y_rows.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = cpu::opmath_t<T>;
      const T* pg = static_cast<const T*>(grad_rows.data_ptr());
      const T* py = static_cast<const T*>(y_rows.data_ptr());
      T* o = static_cast<T*>(out.data_ptr());
      const int64_t n = y_rows.size(1);
      parallel_for(0, outer, rows_per_task(n), [&](int64_t b, int64_t e) {
        if constexpr (std::is_same_v<T, float>) {
          cpu::softmax_backward_rows_floats(pg + b * n, py + b * n, o + b * n, e - b, n, log);
          return;
        } else if constexpr (c10::is_reduced_float_v<T>) {
          cpu::rows_as_floats<2>(std::array<const T*, 2>{pg + b * n, py + b * n}, o + b * n, e - b, n,
                                 [&](const auto& gy, float* dx, int64_t rows) {
                                   cpu::softmax_backward_rows_floats(gy[0], gy[1], dx, rows, n, log);
                                 });
          return;
        }
        for (int64_t r = b; r < e; ++r) {
          const T* gr = pg + r * n;
          const T* yr = py + r * n;
          T* dx = o + r * n;
          M total = 0;
          for (int64_t i = 0; i < n; ++i)
            total += log ? static_cast<M>(gr[i]) : static_cast<M>(gr[i]) * static_cast<M>(yr[i]);
          for (int64_t i = 0; i < n; ++i) {
            const M gi = static_cast<M>(gr[i]), yi = static_cast<M>(yr[i]);
            dx[i] = static_cast<T>(log ? gi - std::exp(yi) * total : yi * (gi - total));
          }
        }
      });
    }
  });
}

// grad_input of softmax (log: of log_softmax) from the forward's output, row
// by row along dim.
Tensor softmax_backward_impl(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype,
                             bool log) {
  EMBER_CHECK(grad_output.sizes() == output.sizes(), "{}: grad_output of size {} does not match output of size {}",
              log ? "_log_softmax_backward_data" : "_softmax_backward_data", c10::str_sizes(grad_output.sizes()),
              c10::str_sizes(output.sizes()));
  const ScalarType t = output.dtype();
  if (output.is_meta() || output.numel() == 0) return ember::empty(output.sizes(), input_dtype, output.device());
  const AlongDim g = along_dim(grad_output, dim, t), y = along_dim(output, dim, t);
  Tensor out = ember::empty_like(y.rows);
  softmax_backward_rows_stub(out.device().type, g.rows, y.rows, out, log);
  const Tensor result = y.restore(out);
  return (output.dim() == 0 ? result.reshape({}) : result).to(input_dtype);
}
}  // namespace

Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return softmax_backward_impl(grad_output, output, dim, input_dtype, false);
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  return softmax_backward_impl(grad_output, output, dim, input_dtype, true);
}

DispatchStub<SoftmaxRowsFn> softmax_rows_stub("softmax");
DispatchStub<SoftmaxBackwardRowsFn> softmax_backward_rows_stub("_softmax_backward_data");
EMBER_REGISTER_STUB(softmax_rows_stub, CPU, &cpu_softmax_rows);
EMBER_REGISTER_STUB(softmax_backward_rows_stub, CPU, &cpu_softmax_backward_rows);

}  // namespace ember::native
