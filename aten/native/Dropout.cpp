// Dropout as one pass that writes the output and the keep-mask together,
// and a backward that reuses the mask (no second random draw, no saved
// float mask).
//
// The mask comes from a counter-based stream: one 64-bit key is drawn from
// the generator per call, and the bits for element pair j are SplitMix64's
// output function applied to key + j. That keeps results independent of
// how the work is split across threads, and needs no lock in the loop.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/core/Generator.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <c10/util/TypeCast.h>

#include <cmath>
#include <tuple>

namespace ember::native {

namespace {

inline uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// 1 / (1 - p): the scale that keeps the expected value; 0 when nothing survives.
double keep_scale(double p) { return p == 1 ? 0.0 : 1.0 / (1.0 - p); }

void check_probability(double p) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got {}", p);
}

}  // namespace

std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  check_probability(p);
  EMBER_CHECK_NOT_IMPLEMENTED(input.is_floating_point(), "\"dropout\" not implemented for '{}'",
                              c10::toString(input.dtype()));
  Tensor mask = ember::empty(input.sizes(), ScalarType::Bool, input.device());
  if (train.has_value() && !*train) return {input.clone(), mask.fill_(true)};
  Tensor out = ember::empty(input.sizes(), input.dtype(), input.device());
  if (input.is_meta() || input.numel() == 0) return {out, mask};

  const Tensor x = input.contiguous();
  uint64_t key;
  {
    CPUGeneratorImpl& gen = default_cpu_generator().host_engine();
    std::lock_guard<std::mutex> lock(gen.mutex);
    key = gen.random64();
  }
  // Element i is kept when its 32 random bits are at least p * 2^32.
  const uint64_t threshold = static_cast<uint64_t>(std::llround(p * 4294967296.0));
  const int64_t n = x.numel();
  bool* keep = mask.data_ptr<bool>();
  c10::visit_scalar_type(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_floating_v<T>) {
      using M = cpu::opmath_t<T>;
      const M scale = static_cast<M>(keep_scale(p));
      const T* src = x.data_ptr<T>();
      T* dst = out.data_ptr<T>();
      // Pairs of elements share one 64-bit draw; chunks start on even indices.
      parallel_for(0, (n + 1) / 2, 16384, [&](int64_t begin, int64_t end) {
        for (int64_t j = begin; j < end; ++j) {
          const uint64_t bits = splitmix64(key + static_cast<uint64_t>(j));
          for (int64_t half = 0; half < 2; ++half) {
            const int64_t i = 2 * j + half;
            if (i >= n) break;
            const bool kept = ((bits >> (32 * half)) & 0xffffffffULL) >= threshold;
            keep[i] = kept;
            dst[i] = kept ? static_cast<T>(static_cast<M>(src[i]) * scale) : T(0);
          }
        }
      });
    }
  });
  return {out, mask};
}

Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "Mask should be Bool Scalar Type {}", c10::toString(mask.dtype()));
  return ember::mul(grad_output, ember::mul(mask, scale));
}

Tensor dropout(const Tensor& input, double p, bool train) {
  check_probability(p);
  if (!train || p == 0) return input;
  if (p == 1) return ember::mul(input, ember::zeros({}, input.dtype(), input.device()));
  return std::get<0>(ember::native_dropout(input, p, train));
}

}  // namespace ember::native
