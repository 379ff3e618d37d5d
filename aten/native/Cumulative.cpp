// Running reductions along one dim: cumsum, cumprod, logcumsumexp, and
// cummax/cummin with the index of each running extreme.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/AlongDim.h>
#include <aten/native/ReduceUtils.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/LogAddExp.h>
#include <c10/util/TypeCast.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace ember::native {

namespace {

Tensor cumulative(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, bool product) {
  const ScalarType t = dtype.value_or(integer_to_long(self.dtype()));
  if (self.is_meta() || self.numel() == 0) return ember::empty(self.sizes(), t, self.device());
  const AlongDim a = along_dim(self, dim, t);
  Tensor out = ember::empty_like(a.rows);
  c10::visit_scalar_type(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = cpu::acc_t<T>;
    const T* in = static_cast<const T*>(a.rows.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    parallel_for(0, a.outer, rows_per_task(a.n), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        A acc = product ? A(1) : A(0);
        for (int64_t i = 0; i < a.n; ++i) {
          const A v = c10::convert<A>(in[r * a.n + i]);
          acc = product ? cpu::wrapping_mul(acc, v) : cpu::wrapping_add(acc, v);
          o[r * a.n + i] = c10::convert<T>(acc);
        }
      }
    });
  });
  const Tensor result = a.restore(out);
  return self.dim() == 0 ? result.reshape({}) : result;
}

}  // namespace

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return cumulative(self, dim, dtype, false); }
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return cumulative(self, dim, dtype, true); }
Tensor cumsum_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  return into_out(ember::cumsum(self, dim, dtype.value_or(out.dtype())), out);
}
Tensor cumsum_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(!dtype || *dtype == self.dtype(),
              "Bad in-place call: input tensor dtype {} and output tensor dtype {} should match",
              c10::toString(self.dtype()), c10::toString(*dtype));
  return self.copy_(ember::cumsum(self, dim, dtype));
}

namespace {

// The running max (or min) and the last index where it was reached; NaN, once
// seen, stays the extreme (as torch).
std::tuple<Tensor, Tensor> running_extreme(const Tensor& self, int64_t dim, bool is_max, const char* name) {
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_complex(), "\"{}\" not implemented for '{}'", name,
                              c10::toString(self.scalar_type()));
  if (self.dim() > 0) c10::maybe_wrap_dim(dim, self.dim());
  if (self.is_meta() || self.numel() == 0)
    return {ember::empty(self.sizes(), self.scalar_type(), self.device()),
            ember::empty(self.sizes(), ScalarType::Long, self.device())};
  const AlongDim a = along_dim(self, dim, self.scalar_type());
  Tensor values = ember::empty_like(a.rows);
  Tensor indices = ember::empty(a.rows.sizes(), ScalarType::Long, self.device());
  c10::visit_scalar_type(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!c10::is_complex_v<T>) {
      using M = cpu::opmath_t<T>;
      const T* in = static_cast<const T*>(a.rows.data_ptr());
      T* v = static_cast<T*>(values.data_ptr());
      int64_t* ix = indices.data_ptr<int64_t>();
      parallel_for(0, a.outer, rows_per_task(a.n), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const T* row = in + r * a.n;
          M best = M(row[0]);
          int64_t at = 0;
          for (int64_t i = 0; i < a.n; ++i) {
            const M x = M(row[i]);
            bool take;
            if constexpr (std::is_floating_point_v<M>) {
              take = std::isnan(x) || (!std::isnan(best) && (is_max ? x >= best : x <= best));
            } else {
              take = is_max ? x >= best : x <= best;
            }
            if (take) {
              best = x;
              at = i;
            }
            v[r * a.n + i] = static_cast<T>(best);
            ix[r * a.n + i] = at;
          }
        }
      });
    }
  });
  Tensor rv = a.restore(values), ri = a.restore(indices);
  if (self.dim() == 0) return {rv.reshape({}), ri.reshape({})};
  return {rv, ri};
}

}  // namespace

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) { return running_extreme(self, dim, true, "cummax"); }
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) { return running_extreme(self, dim, false, "cummin"); }

// log(cumsum(exp(self))): a running log-add-exp, exact for values far apart.
Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point() || self.is_complex(), "\"logcumsumexp\" not implemented for '{}'",
                              c10::toString(self.scalar_type()));
  if (self.dim() > 0) c10::maybe_wrap_dim(dim, self.dim());
  if (self.is_meta() || self.numel() == 0) return ember::empty(self.sizes(), self.scalar_type(), self.device());
  const AlongDim a = along_dim(self, dim, self.scalar_type());
  Tensor out = ember::empty_like(a.rows);
  c10::visit_scalar_type(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T> || c10::is_complex_v<T>) {
      using M = cpu::opmath_t<T>;
      const T* in = static_cast<const T*>(a.rows.data_ptr());
      T* o = static_cast<T*>(out.data_ptr());
      parallel_for(0, a.outer, rows_per_task(a.n), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          M acc = M(-std::numeric_limits<double>::infinity());
          for (int64_t i = 0; i < a.n; ++i) {
            acc = cpu::log_add_exp(acc, M(in[r * a.n + i]));
            o[r * a.n + i] = static_cast<T>(acc);
          }
        }
      });
    }
  });
  const Tensor result = a.restore(out);
  return self.dim() == 0 ? result.reshape({}) : result;
}

}  // namespace ember::native
