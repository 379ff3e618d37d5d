// Layer norm as one kernel per direction, over rows of the normalized size.
// The forward keeps each row's mean and 1/std (the backward needs both), and
// the backward computes dx row by row and dweight/dbias from per-block
// partial sums, so no intermediate tensor is ever materialized.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/FloatStaging.h>
#include <aten/native/cpu/VecMath.h>
#include <c10/util/TypeCast.h>

#include <cmath>
#include <tuple>
#include <vector>

namespace ember::native {

namespace {

struct RowGeometry {
  int64_t rows = 1;  // product of the leading dims
  int64_t cols = 1;  // product of normalized_shape
  std::vector<int64_t> stat_shape;  // leading dims, then 1 per normalized dim
};

RowGeometry layer_norm_geometry(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& bias) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(k >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
                      "but got normalized_shape = {}", c10::str_sizes(normalized_shape));
  EMBER_CHECK(input.dim() >= k && input.sizes().slice(input.dim() - k) == normalized_shape,
              "Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}",
              c10::str_sizes(normalized_shape), fmt::join(normalized_shape, ", "), c10::str_sizes(input.sizes()));
  for (const auto& [t, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (t->has_value() && (*t)->defined()) {
      EMBER_CHECK((*t)->sizes() == normalized_shape,
                  "Expected {} to be of same shape as normalized_shape, but got {} of shape {} and normalized_shape = {}",
                  name, name, c10::str_sizes((*t)->sizes()), c10::str_sizes(normalized_shape));
    }
  }
  RowGeometry g;
  const int64_t axis = input.dim() - k;
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (d < axis) {
      g.rows *= input.size(d);
      g.stat_shape.push_back(input.size(d));
    } else {
      g.cols *= input.size(d);
      g.stat_shape.push_back(1);
    }
  }
  return g;
}

Tensor dense_or_undefined(const std::optional<Tensor>& t, ScalarType dtype) {
  return t && t->defined() ? t->to(dtype).contiguous() : Tensor();
}

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

template <typename T>
void layer_norm_rows(const T* x, const T* w, const T* b, T* y, cpu::opmath_t<T>* mean, cpu::opmath_t<T>* rstd,
                     int64_t rows, int64_t cols, double eps) {
  using M = cpu::opmath_t<T>;
  constexpr bool k16Bit = c10::is_reduced_float_v<T>;
  // 16-bit rows run the float kernels through float copies of each row.
  std::vector<float> wf(k16Bit && w ? cols : 0), bf(k16Bit && b ? cols : 0);
  if constexpr (k16Bit) {
    if (w) cpu::to_floats(w, wf.data(), cols);
    if (b) cpu::to_floats(b, bf.data(), cols);
  }
  parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(cols, 1)), [&](int64_t begin, int64_t end) {
    std::vector<float> xf(k16Bit ? cols : 0), yf(k16Bit ? cols : 0);
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * cols;
      T* yr = y + r * cols;
      if constexpr (std::is_same_v<T, float>) {
        cpu::row_moments_floats(xr, cols, static_cast<float>(eps), &mean[r], &rstd[r]);
        cpu::normalize_row_floats(xr, cols, mean[r], rstd[r], w, b, yr);
      } else if constexpr (k16Bit) {
        cpu::to_floats(xr, xf.data(), cols);
        cpu::row_moments_floats(xf.data(), cols, static_cast<float>(eps), &mean[r], &rstd[r]);
        cpu::normalize_row_floats(xf.data(), cols, mean[r], rstd[r], w ? wf.data() : nullptr,
                                  b ? bf.data() : nullptr, yf.data());
        cpu::from_floats(yf.data(), yr, cols);
      } else {
        M sum = 0;
        for (int64_t i = 0; i < cols; ++i) sum += static_cast<M>(xr[i]);
        const M mu = sum / static_cast<M>(cols);
        M sq = 0;
        for (int64_t i = 0; i < cols; ++i) {
          const M d = static_cast<M>(xr[i]) - mu;
          sq += d * d;
        }
        const M inv = M(1) / std::sqrt(sq / static_cast<M>(cols) + static_cast<M>(eps));
        for (int64_t i = 0; i < cols; ++i) {
          M v = (static_cast<M>(xr[i]) - mu) * inv;
          if (w) v *= static_cast<M>(w[i]);
          if (b) v += static_cast<M>(b[i]);
          yr[i] = static_cast<T>(v);
        }
        mean[r] = mu;
        rstd[r] = inv;
      }
    }
  });
}

template <typename T>
void layer_norm_backward_rows(const T* dy, const T* x, const T* w, const cpu::opmath_t<T>* mean,
                              const cpu::opmath_t<T>* rstd, T* dx, cpu::opmath_t<T>* dw, cpu::opmath_t<T>* db,
                              int64_t rows, int64_t cols) {
  using M = cpu::opmath_t<T>;
  constexpr bool k16Bit = c10::is_reduced_float_v<T>;
  std::vector<float> wf(k16Bit && w ? cols : 0);
  if constexpr (k16Bit) {
    if (w) cpu::to_floats(w, wf.data(), cols);
  }
  // Rows split into fixed blocks, each with its own dweight/dbias partial
  // sums; the partials are added up afterwards.
  const int64_t blocks = std::min<int64_t>(rows, std::max(1, get_num_threads()));
  const int64_t per_block = (rows + blocks - 1) / std::max<int64_t>(blocks, 1);
  std::vector<M> partial_w(dw ? blocks * cols : 0, M(0)), partial_b(db ? blocks * cols : 0, M(0));
  parallel_for(0, blocks, 1, [&](int64_t block_begin, int64_t block_end) {
    for (int64_t blk = block_begin; blk < block_end; ++blk) {
      M* pw = dw ? partial_w.data() + blk * cols : nullptr;
      M* pb = db ? partial_b.data() + blk * cols : nullptr;
      const int64_t first = blk * per_block, last = std::min(rows, (blk + 1) * per_block);
      if constexpr (std::is_same_v<T, float>) {
        if (first < last) {
          cpu::layer_norm_backward_rows_floats(dy + first * cols, x + first * cols, w, mean + first, rstd + first,
                                               dx ? dx + first * cols : nullptr, pw, pb, last - first, cols);
        }
        continue;
      } else if constexpr (k16Bit) {
        std::vector<float> dyf(cols), xf(cols), dxf(dx ? cols : 0);
        for (int64_t r = first; r < last; ++r) {
          cpu::to_floats(dy + r * cols, dyf.data(), cols);
          cpu::to_floats(x + r * cols, xf.data(), cols);
          cpu::layer_norm_backward_rows_floats(dyf.data(), xf.data(), w ? wf.data() : nullptr, mean + r, rstd + r,
                                               dx ? dxf.data() : nullptr, pw, pb, 1, cols);
          if (dx) cpu::from_floats(dxf.data(), dx + r * cols, cols);
        }
        continue;
      }
      for (int64_t r = first; r < last; ++r) {
        const T* dyr = dy + r * cols;
        const T* xr = x + r * cols;
        const M mu = mean[r], inv = rstd[r];
        if (dx) {
          M g_sum = 0, gx_sum = 0;
          for (int64_t i = 0; i < cols; ++i) {
            const M g = static_cast<M>(dyr[i]) * (w ? static_cast<M>(w[i]) : M(1));
            g_sum += g;
            gx_sum += g * (static_cast<M>(xr[i]) - mu) * inv;
          }
          const M g_mean = g_sum / static_cast<M>(cols), gx_mean = gx_sum / static_cast<M>(cols);
          T* dxr = dx + r * cols;
          for (int64_t i = 0; i < cols; ++i) {
            const M g = static_cast<M>(dyr[i]) * (w ? static_cast<M>(w[i]) : M(1));
            const M xhat = (static_cast<M>(xr[i]) - mu) * inv;
            dxr[i] = static_cast<T>(inv * (g - g_mean - xhat * gx_mean));
          }
        }
        for (int64_t i = 0; i < cols; ++i) {
          if (pw) pw[i] += static_cast<M>(dyr[i]) * (static_cast<M>(xr[i]) - mu) * inv;
          if (pb) pb[i] += static_cast<M>(dyr[i]);
        }
      }
    }
  });
  for (int64_t blk = 0; blk < blocks; ++blk) {
    for (int64_t i = 0; i < cols; ++i) {
      if (dw) dw[i] += partial_w[blk * cols + i];
      if (db) db[i] += partial_b[blk * cols + i];
    }
  }
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  const RowGeometry g = layer_norm_geometry(input, normalized_shape, weight, bias);
  EMBER_CHECK_NOT_IMPLEMENTED(input.is_floating_point(), "\"layer_norm\" not implemented for '{}'",
                              c10::toString(input.dtype()));
  Tensor out = ember::empty(input.sizes(), input.dtype(), input.device());
  Tensor mean = ember::empty(g.stat_shape, cpu::opmath_type(input.dtype()), input.device());
  Tensor rstd = ember::empty(g.stat_shape, cpu::opmath_type(input.dtype()), input.device());
  if (input.is_meta() || input.numel() == 0) return {out, mean, rstd};
  const Tensor x = input.contiguous();
  const Tensor w = dense_or_undefined(weight, input.dtype()), b = dense_or_undefined(bias, input.dtype());
  c10::visit_scalar_type(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = cpu::opmath_t<T>;
      layer_norm_rows<T>(x.data_ptr<T>(), data_or_null<T>(w), data_or_null<T>(b), out.data_ptr<T>(),
                         mean.data_ptr<M>(), rstd.data_ptr<M>(), g.rows, g.cols, eps);
    }
  });
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              IntArrayRef normalized_shape, const Tensor& mean,
                                                              const Tensor& rstd, const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias,
                                                              std::array<bool, 3> output_mask) {
  const RowGeometry g = layer_norm_geometry(input, normalized_shape, weight, bias);
  EMBER_CHECK(grad_out.sizes() == input.sizes(),
              "native_layer_norm_backward: grad_out of size {} does not match input of size {}",
              c10::str_sizes(grad_out.sizes()), c10::str_sizes(input.sizes()));
  // mean and rstd are read row by row: one value per normalized row.
  EMBER_CHECK(mean.numel() == g.rows && rstd.numel() == g.rows,
              "native_layer_norm_backward: expected mean and rstd with {} elements (one per row), got {} and {}",
              g.rows, mean.numel(), rstd.numel());
  const bool has_weight = weight && weight->defined(), has_bias = bias && bias->defined();
  Tensor dx = output_mask[0] ? ember::empty(input.sizes(), input.dtype(), input.device()) : Tensor();
  // dw and db accumulate in the statistics' dtype, then take the parameter's.
  const ScalarType accumulate = cpu::opmath_type(input.dtype());
  Tensor dw = output_mask[1] && has_weight ? ember::zeros(normalized_shape, accumulate, input.device()) : Tensor();
  Tensor db = output_mask[2] && has_bias ? ember::zeros(normalized_shape, accumulate, input.device()) : Tensor();
  auto finish = [&] {
    return std::make_tuple(dx, dw.defined() ? dw.to(weight->dtype()) : dw, db.defined() ? db.to(bias->dtype()) : db);
  };
  if (input.is_meta() || input.numel() == 0) return finish();
  const Tensor x = input.contiguous(), dy = grad_out.to(input.dtype()).contiguous();
  const Tensor w = dense_or_undefined(weight, input.dtype());
  const Tensor mu = mean.to(accumulate).contiguous(), inv = rstd.to(accumulate).contiguous();
  c10::visit_scalar_type(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = cpu::opmath_t<T>;
      layer_norm_backward_rows<T>(dy.data_ptr<T>(), x.data_ptr<T>(), data_or_null<T>(w), mu.data_ptr<M>(),
                                  inv.data_ptr<M>(), dx.defined() ? dx.data_ptr<T>() : nullptr,
                                  dw.defined() ? dw.data_ptr<M>() : nullptr, db.defined() ? db.data_ptr<M>() : nullptr,
                                  g.rows, g.cols);
    }
  });
  return finish();
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  return std::get<0>(ember::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

}  // namespace ember::native
