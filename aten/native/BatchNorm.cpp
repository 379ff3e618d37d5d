// Batch norm as one kernel per direction, channel by channel over an
// (N, C, *) input seen as [N, C, S]. Training computes each channel's mean
// and 1/std (kept for the backward) and updates the running statistics;
// evaluation normalizes with the running statistics.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/FloatStaging.h>
#include <c10/core/GradMode.h>

#include <cmath>
#include <tuple>
#include <vector>

namespace ember::native {

namespace {

struct ChannelGeometry {
  int64_t batch = 1, channels = 1, spatial = 1;
  int64_t per_channel() const { return batch * spatial; }
};

ChannelGeometry channel_geometry(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 2, "batch_norm: expected input with at least 2 dims (N, C, ...), got {}-D", input.dim());
  ChannelGeometry g;
  g.batch = input.size(0);
  g.channels = input.size(1);
  for (int64_t d = 2; d < input.dim(); ++d) g.spatial *= input.size(d);
  return g;
}

bool defined(const std::optional<Tensor>& t) { return t && t->defined(); }

// float, bfloat16 and float16 run the vectorized kernels (VecMath.h), the
// 16-bit types through float buffers of kChunk values.
template <typename T>
constexpr bool kFloatKernels = std::is_same_v<T, float> || c10::is_reduced_float_v<T>;
constexpr int64_t kChunk = 512;

// One channel of an [N, C, S] tensor as float runs of S values (one per
// batch entry): the tensor's own memory for float; for 16-bit types, the
// whole channel converted once into `stage` where it holds at most
// kStageLimit values (each pass then reads floats), else converted a chunk
// at a time on every pass.
template <typename T>
class ChannelRuns {
 public:
  ChannelRuns(const T* data, int64_t N, int64_t C, int64_t S) : data_(data), N_(N), C_(C), S_(S) {}

  void select(int64_t c) {
    c_ = c;
    if constexpr (!std::is_same_v<T, float>) {
      staged_ = N_ * S_ <= kStageLimit;
      if (!staged_) return;
      stage_.resize(static_cast<size_t>(N_ * S_));
      for (int64_t n = 0; n < N_; ++n) cpu::to_floats(run(n), stage_.data() + n * S_, S_);
    }
  }
  // Values per step: whole runs where they are floats already, else kChunk.
  int64_t step() const { return std::is_same_v<T, float> || staged_ ? S_ : kChunk; }
  // m values of run n from `offset` on, as floats (in `buffer` if converted now).
  const float* chunk(int64_t n, int64_t offset, int64_t m, float* buffer) const {
    if constexpr (std::is_same_v<T, float>) {
      return run(n) + offset;
    } else {
      if (staged_) return stage_.data() + n * S_ + offset;
      cpu::to_floats(run(n) + offset, buffer, m);
      return buffer;
    }
  }

 private:
  static constexpr int64_t kStageLimit = int64_t{1} << 18;
  const T* run(int64_t n) const { return data_ + (n * C_ + c_) * S_; }
  const T* data_;
  int64_t N_, C_, S_, c_ = 0;
  bool staged_ = false;
  std::vector<float> stage_;
};

// f(n, offset, m) over every chunk of `step` values of the N runs of S.
template <typename F>
void for_chunks(int64_t N, int64_t S, int64_t step, F&& f) {
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t offset = 0; offset < S; offset += step) f(n, offset, std::min(step, S - offset));
  }
}

// compute(y) writes m floats; they land in `out` (through `buffer` for 16-bit).
template <typename T, typename F>
void write_floats(T* out, int64_t m, float* buffer, F&& compute) {
  if constexpr (std::is_same_v<T, float>) {
    compute(out);
  } else {
    compute(buffer);
    cpu::from_floats(buffer, out, m);
  }
}

// A per-channel parameter or statistic as a dense vector of `dtype` (undefined if absent).
Tensor channel_vector(const std::optional<Tensor>& t, int64_t channels, ScalarType dtype, const char* name) {
  if (!defined(t)) return Tensor();
  EMBER_CHECK(t->numel() == channels, "batch_norm: expected {} to have {} elements, got {}", name, channels,
              t->numel());
  return t->reshape({channels}).to(dtype).contiguous();
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps) {
  const ChannelGeometry g = channel_geometry(input);
  EMBER_CHECK_NOT_IMPLEMENTED(input.is_floating_point(), "\"batch_norm\" not implemented for '{}'",
                              c10::toString(input.dtype()));
  EMBER_CHECK(training || (defined(running_mean) && defined(running_var)),
              "running_mean and running_var must be defined in evaluation mode");
  const ScalarType acc = cpu::opmath_type(input.dtype());
  Tensor out = ember::empty(input.sizes(), input.dtype(), input.device());
  Tensor save_mean = ember::empty({training ? g.channels : 0}, acc, input.device());
  Tensor save_invstd = ember::empty({training ? g.channels : 0}, acc, input.device());
  if (input.is_meta()) return {out, save_mean, save_invstd};
  EMBER_CHECK_VALUE(!training || g.per_channel() > 1,
                    "Expected more than 1 value per channel when training, got input size {}",
                    c10::str_sizes(input.sizes()));
  const Tensor x = input.contiguous();
  const Tensor w = channel_vector(weight, g.channels, acc, "weight"), b = channel_vector(bias, g.channels, acc, "bias");
  // The statistics used to normalize, per channel, in the accumulation dtype.
  Tensor mean = training ? save_mean : channel_vector(running_mean, g.channels, acc, "running_mean");
  Tensor invstd = training ? save_invstd : ember::empty({g.channels}, acc, input.device());
  const Tensor eval_var = training ? Tensor() : channel_vector(running_var, g.channels, acc, "running_var");
  c10::visit_scalar_type(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = cpu::opmath_t<T>;
      const T* px = x.data_ptr<T>();
      T* po = out.data_ptr<T>();
      M* pm = mean.data_ptr<M>();
      M* pi = invstd.data_ptr<M>();
      const M* pw = w.defined() ? w.data_ptr<M>() : nullptr;
      const M* pb = b.defined() ? b.data_ptr<M>() : nullptr;
      const M* pv = eval_var.defined() ? eval_var.data_ptr<M>() : nullptr;
      const int64_t S = g.spatial, C = g.channels, count = g.per_channel();
      if constexpr (kFloatKernels<T>) {
        parallel_for(0, C, 1, [&](int64_t c0, int64_t c1) {
          float in[kChunk], out_buffer[kChunk];
          ChannelRuns<T> x_runs(px, g.batch, C, S);
          for (int64_t c = c0; c < c1; ++c) {
            x_runs.select(c);
            const int64_t step = x_runs.step();
            if (training) {
              double sum = 0;
              for_chunks(g.batch, S, step, [&](int64_t n, int64_t offset, int64_t m) {
                sum += cpu::sum_floats(x_runs.chunk(n, offset, m, in), m);
              });
              const float mu = static_cast<float>(sum / static_cast<double>(count));
              double sq = 0;
              for_chunks(g.batch, S, step, [&](int64_t n, int64_t offset, int64_t m) {
                sq += cpu::sum_squared_deviations_floats(x_runs.chunk(n, offset, m, in), m, mu);
              });
              pm[c] = mu;
              pi[c] = static_cast<float>(1.0 / std::sqrt(sq / static_cast<double>(count) + eps));
            } else {
              pi[c] = static_cast<float>(1.0 / std::sqrt(static_cast<double>(pv[c]) + eps));
            }
            const float scale = pi[c] * (pw ? pw[c] : 1.0f);
            const float shift = (pb ? pb[c] : 0.0f) - pm[c] * scale;
            for_chunks(g.batch, S, std::min(step, kChunk), [&](int64_t n, int64_t offset, int64_t m) {
              const float* v = x_runs.chunk(n, offset, m, in);
              write_floats(po + (n * C + c) * S + offset, m, out_buffer,
                           [&](float* y) { cpu::scale_shift_floats(v, y, m, scale, shift); });
            });
          }
        });
        return;
      }
      parallel_for(0, C, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          if (training) {
            double sum = 0;
            for (int64_t n = 0; n < g.batch; ++n) {
              const T* row = px + (n * C + c) * S;
              M part = 0;
              for (int64_t s = 0; s < S; ++s) part += static_cast<M>(row[s]);
              sum += part;
            }
            const M mu = static_cast<M>(sum / static_cast<double>(count));
            double sq = 0;
            for (int64_t n = 0; n < g.batch; ++n) {
              const T* row = px + (n * C + c) * S;
              M part = 0;
              for (int64_t s = 0; s < S; ++s) {
                const M d = static_cast<M>(row[s]) - mu;
                part += d * d;
              }
              sq += part;
            }
            pm[c] = mu;
            pi[c] = static_cast<M>(1.0 / std::sqrt(sq / static_cast<double>(count) + eps));
          } else {
            pi[c] = static_cast<M>(1.0 / std::sqrt(static_cast<double>(pv[c]) + eps));
          }
          // y = x * scale + shift, folding mean, 1/std, weight and bias.
          const M scale = pi[c] * (pw ? pw[c] : M(1));
          const M shift = (pb ? pb[c] : M(0)) - pm[c] * scale;
          for (int64_t n = 0; n < g.batch; ++n) {
            const T* row = px + (n * C + c) * S;
            T* orow = po + (n * C + c) * S;
            for (int64_t s = 0; s < S; ++s) orow[s] = static_cast<T>(static_cast<M>(row[s]) * scale + shift);
          }
        }
      });
    }
  });
  return {out, save_mean, save_invstd};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  const ChannelGeometry g = channel_geometry(input);
  EMBER_CHECK(grad_out.sizes() == input.sizes(),
              "native_batch_norm_backward: grad_out of size {} does not match input of size {}",
              c10::str_sizes(grad_out.sizes()), c10::str_sizes(input.sizes()));
  const ScalarType acc = cpu::opmath_type(input.dtype());
  Tensor dx = output_mask[0] ? ember::empty(input.sizes(), input.dtype(), input.device()) : Tensor();
  Tensor dw = output_mask[1] ? ember::empty({g.channels}, acc, input.device()) : Tensor();
  Tensor db = output_mask[2] ? ember::empty({g.channels}, acc, input.device()) : Tensor();
  const ScalarType param_dtype = defined(weight) ? weight->dtype() : input.dtype();
  auto finish = [&] {
    return std::make_tuple(dx, dw.defined() ? dw.to(param_dtype) : dw, db.defined() ? db.to(param_dtype) : db);
  };
  if (input.is_meta() || input.numel() == 0) return finish();
  const Tensor x = input.contiguous(), dy = grad_out.to(input.dtype()).contiguous();
  const Tensor w = channel_vector(weight, g.channels, acc, "weight");
  Tensor mean, invstd;
  // The statistics the normalization used are required: the forward saved
  // them (training) or took them from the running estimates (evaluation).
  const auto required = [&](const std::optional<Tensor>& t, const char* name) {
    EMBER_CHECK(defined(t), "native_batch_norm_backward: {} is required when train={}", name, train);
    return channel_vector(t, g.channels, acc, name);
  };
  if (train) {
    mean = required(save_mean, "save_mean");
    invstd = required(save_invstd, "save_invstd");
  } else {
    mean = required(running_mean, "running_mean");
    invstd = ember::rsqrt(ember::add(required(running_var, "running_var"), eps));
  }
  c10::visit_scalar_type(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = cpu::opmath_t<T>;
      const T* px = x.data_ptr<T>();
      const T* pdy = dy.data_ptr<T>();
      const M* pm = mean.data_ptr<M>();
      const M* pi = invstd.data_ptr<M>();
      const M* pw = w.defined() ? w.data_ptr<M>() : nullptr;
      T* pdx = dx.defined() ? dx.data_ptr<T>() : nullptr;
      M* pdw = dw.defined() ? dw.data_ptr<M>() : nullptr;
      M* pdb = db.defined() ? db.data_ptr<M>() : nullptr;
      const int64_t S = g.spatial, C = g.channels;
      const double count = static_cast<double>(g.per_channel());
      if constexpr (kFloatKernels<T>) {
        parallel_for(0, C, 1, [&](int64_t c0, int64_t c1) {
          float xs[kChunk], gs[kChunk], out_buffer[kChunk];
          ChannelRuns<T> x_runs(px, g.batch, C, S), g_runs(pdy, g.batch, C, S);
          for (int64_t c = c0; c < c1; ++c) {
            x_runs.select(c);
            g_runs.select(c);
            const int64_t step = std::min(x_runs.step(), g_runs.step());
            const float mu = pm[c], inv = pi[c];
            double sum_dy = 0, sum_dy_xhat = 0;
            for_chunks(g.batch, S, step, [&](int64_t n, int64_t offset, int64_t m) {
              double a = 0, b = 0;
              cpu::gradient_sums_floats(g_runs.chunk(n, offset, m, gs), x_runs.chunk(n, offset, m, xs), m, mu, &a,
                                        &b);
              sum_dy += a;
              sum_dy_xhat += b;
            });
            sum_dy_xhat *= inv;
            if (pdw) pdw[c] = static_cast<float>(sum_dy_xhat);
            if (pdb) pdb[c] = static_cast<float>(sum_dy);
            if (!pdx) continue;
            const float scale = inv * (pw ? pw[c] : 1.0f);
            const float mean_dy = train ? static_cast<float>(sum_dy / count) : 0.0f;
            const float proj = train ? static_cast<float>(sum_dy_xhat / count) * inv : 0.0f;
            for_chunks(g.batch, S, std::min(step, kChunk), [&](int64_t n, int64_t offset, int64_t m) {
              const float* gv = g_runs.chunk(n, offset, m, gs);
              const float* xv = x_runs.chunk(n, offset, m, xs);
              write_floats(pdx + (n * C + c) * S + offset, m, out_buffer, [&](float* d) {
                cpu::batch_norm_backward_floats(gv, xv, d, m, mu, scale, mean_dy, proj);
              });
            });
          }
        });
        return;
      }
      parallel_for(0, C, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          const M mu = pm[c], inv = pi[c];
          double sum_dy = 0, sum_dy_xhat = 0;
          for (int64_t n = 0; n < g.batch; ++n) {
            const T* xr = px + (n * C + c) * S;
            const T* gr = pdy + (n * C + c) * S;
            M a = 0, b = 0;
            for (int64_t s = 0; s < S; ++s) {
              const M gi = static_cast<M>(gr[s]);
              a += gi;
              b += gi * (static_cast<M>(xr[s]) - mu);
            }
            sum_dy += a;
            sum_dy_xhat += b;
          }
          sum_dy_xhat *= inv;
          if (pdw) pdw[c] = static_cast<M>(sum_dy_xhat);
          if (pdb) pdb[c] = static_cast<M>(sum_dy);
          if (!pdx) continue;
          const M scale = inv * (pw ? pw[c] : M(1));
          // Training: the statistics depend on x too, which subtracts the
          // gradient's mean and its projection on xhat.
          const M mean_dy = train ? static_cast<M>(sum_dy / count) : M(0);
          const M proj = train ? static_cast<M>(sum_dy_xhat / count) : M(0);
          for (int64_t n = 0; n < g.batch; ++n) {
            const T* xr = px + (n * C + c) * S;
            const T* gr = pdy + (n * C + c) * S;
            T* dr = pdx + (n * C + c) * S;
            for (int64_t s = 0; s < S; ++s) {
              const M xhat = (static_cast<M>(xr[s]) - mu) * inv;
              dr[s] = static_cast<T>(scale * (static_cast<M>(gr[s]) - mean_dy - xhat * proj));
            }
          }
        }
      });
    }
  });
  return finish();
}

// The running statistics are updated here, after the kernel, rather than by
// it: the kernel's autograd node saves its arguments, and a buffer changed
// under it would fail the version check at backward. (Training never reads
// them, so they are not passed.)
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool /*cudnn_enabled*/) {
  if (!training) {
    return std::get<0>(ember::native_batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps));
  }
  auto [out, mean, invstd] = ember::native_batch_norm(input, weight, bias, std::nullopt, std::nullopt, true, momentum, eps);
  if (input.is_meta()) return out;
  c10::NoGradGuard no_grad;
  if (defined(running_mean)) running_mean->mul_(1 - momentum).add_(mean.to(running_mean->dtype()), momentum);
  if (defined(running_var)) {
    // Running statistics track the unbiased variance, as in torch.
    const double count = static_cast<double>(input.numel() / input.size(1));
    const Tensor var = ember::sub(ember::reciprocal(ember::mul(invstd, invstd)), eps);
    running_var->mul_(1 - momentum).add_(var.to(running_var->dtype()), momentum * count / (count - 1));
  }
  return out;
}

}  // namespace ember::native
