// GradScaler's kernels: the fused unscale with its inf/NaN check, and the
// scale update, with torch's names.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <c10/util/bit_cast.h>

#include <atomic>
#include <cmath>

namespace ember::native {

namespace {

void check_unscale_arguments(const Tensor& found_inf, const Tensor& inv_scale) {
  EMBER_CHECK(found_inf.numel() == 1, "_amp_foreach_non_finite_check_and_unscale_: found_inf must be a 1-element "
                                      "tensor.");
  EMBER_CHECK(inv_scale.numel() == 1, "_amp_foreach_non_finite_check_and_unscale_: inv_scale must be a 1-element "
                                      "tensor.");
  EMBER_CHECK(found_inf.scalar_type() == ScalarType::Float,
              "_amp_foreach_non_finite_check_and_unscale_: found_inf must be a float tensor.");
  EMBER_CHECK(inv_scale.scalar_type() == ScalarType::Float,
              "_amp_foreach_non_finite_check_and_unscale_: inv_scale must be a float tensor.");
}

// x *= s over n values, returning whether any was inf or NaN (judged before
// scaling, as the scaled value of a huge finite one may overflow too).
template <typename T>
bool scale_and_check(T* x, int64_t n, float s) {
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(x[i]);
    bad |= !std::isfinite(v);
    x[i] = static_cast<T>(v * s);
  }
  return bad;
}

template <>
bool scale_and_check<float>(float* x, int64_t n, float s) {
  uint32_t seen = 0;  // an exponent of all ones is inf or NaN; a branch-free test vectorizes
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t exponent = c10::bit_cast<uint32_t>(x[i]) & 0x7f800000u;
    seen |= exponent == 0x7f800000u ? 1u : 0u;
    x[i] *= s;
  }
  return seen != 0;
}

template <>
bool scale_and_check<double>(double* x, int64_t n, float s) {
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) {
    bad |= !std::isfinite(x[i]);
    x[i] *= static_cast<double>(s);
  }
  return bad;
}

}  // namespace

// Where a gradient is not dense on the CPU (or is of another dtype), the
// composite's passes serve it.
Tensor amp_unscale_composite(c10::ArrayRef<Tensor> grads, const Tensor& found_inf, const Tensor& inv_scale) {
  check_unscale_arguments(found_inf, inv_scale);
  if (found_inf.is_meta()) return found_inf;  // no values to look at
  for (const Tensor& g : grads) {
    if (!g.defined()) continue;
    EMBER_CHECK(g.is_floating_point(), "_amp_foreach_non_finite_check_and_unscale_: expected floating gradients, "
                                       "got {}", c10::toString(g.scalar_type()));
    if (!ember::isfinite(g).all().item().toBool()) found_inf.fill_(1.0);
    g.mul_(inv_scale.to(g.scalar_type()));
  }
  return found_inf;
}

Tensor amp_unscale_cpu(c10::ArrayRef<Tensor> grads, const Tensor& found_inf, const Tensor& inv_scale) {
  check_unscale_arguments(found_inf, inv_scale);
  const float s = static_cast<float>(inv_scale.item().toDouble());
  bool any = false;
  for (const Tensor& g : grads) {
    if (!g.defined()) continue;
    const ScalarType t = g.scalar_type();
    const bool fused = g.device().is_cpu() && g.is_contiguous() && !g.is_conj() &&
                       (t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::BFloat16 ||
                        t == ScalarType::Half);
    if (!fused) {
      amp_unscale_composite({g}, found_inf, inv_scale);
      continue;
    }
    std::atomic<bool> bad{false};
    c10::visit_scalar_type(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, c10::BFloat16> ||
                    std::is_same_v<T, c10::Half>) {
        T* p = g.data_ptr<T>();
        parallel_for(0, g.numel(), 32768, [&](int64_t b, int64_t e) {
          if (scale_and_check(p + b, e - b, s)) bad.store(true, std::memory_order_relaxed);
        });
      }
    });
    g.unsafeGetTensorImpl()->bump_version();
    any = any || bad.load();
  }
  if (any) found_inf.fill_(1.0);
  return found_inf;
}

Tensor amp_update_scale_(const Tensor& self, const Tensor& growth_tracker, const Tensor& found_inf,
                         double growth_factor, double backoff_factor, int64_t growth_interval) {
  EMBER_CHECK(self.numel() == 1 && growth_tracker.numel() == 1 && found_inf.numel() == 1,
              "_amp_update_scale_: scale, growth_tracker and found_inf must be 1-element tensors.");
  EMBER_CHECK(self.scalar_type() == ScalarType::Float, "_amp_update_scale_: current_scale must be a float tensor.");
  EMBER_CHECK(growth_tracker.scalar_type() == ScalarType::Int,
              "_amp_update_scale_: growth_tracker must be an int tensor.");
  EMBER_CHECK(found_inf.scalar_type() == ScalarType::Float, "_amp_update_scale_: found_inf must be a float tensor.");
  if (self.is_meta()) return self;
  if (found_inf.item().toDouble() != 0.0) {
    self.mul_(backoff_factor);
    growth_tracker.fill_(0);
    return self;
  }
  const int64_t successful = growth_tracker.item().toLong() + 1;
  if (successful == growth_interval) {
    const double grown = self.item().toDouble() * growth_factor;
    // Growth stops where the scale would overflow float32, as in torch.
    if (std::isfinite(static_cast<float>(grown))) self.fill_(grown);
    growth_tracker.fill_(0);
  } else {
    growth_tracker.fill_(successful);
  }
  return self;
}

}  // namespace ember::native
