// Random fills. Each fill holds the generator's lock once and writes a
// contiguous buffer, so results for a given seed do not depend on strides.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/FactoryUtils.h>
#include <aten/native/Resize.h>
#include <c10/util/TypeCast.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

namespace ember::native {

namespace {

CPUGeneratorImpl& pick(const std::optional<Generator>& generator) {
  return generator ? generator->impl() : default_cpu_generator().impl();
}

// Runs fill(contiguous_data) on `self`, going through a temporary when
// `self` is not contiguous.
template <typename Fill>
Tensor fill_contiguous(const Tensor& self, Fill&& fill) {
  if (self.is_meta() || self.numel() == 0) return self;
  // empty(), not empty_like(): the latter keeps a transposed layout, and
  // the numbers must land in logical order whatever the strides.
  const bool direct = self.is_contiguous() && !self.is_conj() && !self.is_neg();
  Tensor target = direct ? self : ember::empty(self.sizes(), self.dtype(), self.device());
  fill(target);
  if (target.is_same(self)) {
    self.unsafeGetTensorImpl()->bump_version();
  } else {
    self.copy_(target);  // bumps the version itself
  }
  return self;
}

template <typename T>
constexpr int significand_bits() {
  if constexpr (std::is_same_v<T, c10::Half>) return 11;
  if constexpr (std::is_same_v<T, c10::BFloat16>) return 8;
  return std::numeric_limits<T>::digits;
}

// Uniform in [0, 1) with as many random bits as T's significand holds: T
// represents every such value exactly, so converting never rounds up to 1.
template <typename T>
double uniform01(std::mt19937_64& engine) {
  constexpr int bits = significand_bits<T>();
  return static_cast<double>(engine() >> (64 - bits)) * std::ldexp(1.0, -bits);
}

template <typename T>
void fill_uniform(T* data, int64_t n, double from, double to, std::mt19937_64& engine) {
  if constexpr (c10::is_complex_v<T>) {
    using V = typename T::value_type;
    V* values = reinterpret_cast<V*>(data);
    for (int64_t i = 0; i < 2 * n; ++i) values[i] = static_cast<V>(from + (to - from) * uniform01<V>(engine));
  } else if constexpr (std::is_same_v<T, double>) {
    for (int64_t i = 0; i < n; ++i) data[i] = from + (to - from) * uniform01<double>(engine);
  } else {
    const float f = static_cast<float>(from), span = static_cast<float>(to - from);
    for (int64_t i = 0; i < n; ++i) data[i] = c10::convert<T>(f + span * static_cast<float>(uniform01<T>(engine)));
  }
}

// Box-Muller, written out so a seed gives the same numbers on every platform
// (std::normal_distribution's algorithm is implementation-defined).
void fill_standard_normal(double* out, int64_t n, std::mt19937_64& engine) {
  for (int64_t i = 0; i < n; i += 2) {
    const double u1 = 1.0 - uniform01<double>(engine);  // (0, 1]: log stays finite
    const double u2 = uniform01<double>(engine);
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * M_PI * u2;
    out[i] = radius * std::cos(theta);
    if (i + 1 < n) out[i + 1] = radius * std::sin(theta);
  }
}

}  // namespace

Tensor uniform_(const Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from={} > to={}", from, to);
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point() || self.is_complex(),
                              "uniform_ is only implemented for floating point and complex tensors, got {}",
                              c10::python_name(self.dtype()));
  CPUGeneratorImpl& gen = pick(generator);
  return fill_contiguous(self, [&](const Tensor& t) {
    std::lock_guard<std::mutex> lock(gen.mutex);
    c10::visit_scalar_type(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T> || c10::is_complex_v<T>) {
        fill_uniform(static_cast<T*>(t.data_ptr()), t.numel(), from, to, gen.engine);
      }
    });
  });
}

Tensor normal_(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std {}", std);
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point() || self.is_complex(),
                              "normal_ is only implemented for floating point and complex tensors, got {}",
                              c10::python_name(self.dtype()));
  CPUGeneratorImpl& gen = pick(generator);
  return fill_contiguous(self, [&](const Tensor& t) {
    // Complex normal: real and imaginary parts each with variance std^2 / 2.
    const int64_t count = t.is_complex() ? 2 * t.numel() : t.numel();
    const double scale = t.is_complex() ? std / std::sqrt(2.0) : std;
    std::vector<double> values(static_cast<size_t>(count));
    {
      std::lock_guard<std::mutex> lock(gen.mutex);
      fill_standard_normal(values.data(), count, gen.engine);
    }
    c10::visit_scalar_type(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* data = static_cast<T*>(t.data_ptr());
      for (int64_t i = 0; i < t.numel(); ++i) {
        if constexpr (c10::is_complex_v<T>) {
          using V = typename T::value_type;
          data[i] = T(static_cast<V>(values[2 * i] * scale), static_cast<V>(values[2 * i + 1] * scale));
        } else {
          data[i] = c10::convert<T>(mean + values[i] * scale);
        }
      }
    });
  });
}

Tensor random_(const Tensor& self, int64_t to, const std::optional<Generator>& generator) {
  return self.random_(0, to, generator);
}

Tensor random_(const Tensor& self, int64_t from, std::optional<int64_t> to_opt,
               const std::optional<Generator>& generator) {
  // Without an upper bound: up to the largest value the dtype holds exactly.
  const int64_t to = to_opt.value_or(self.is_floating_point() ? (int64_t{1} << std::numeric_limits<float>::digits)
                                                              : std::numeric_limits<int64_t>::max());
  EMBER_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from={} >= to={}", from, to);
  EMBER_CHECK(!self.is_complex(), "random_ is not implemented for complex tensors");
  CPUGeneratorImpl& gen = pick(generator);
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  return fill_contiguous(self, [&](const Tensor& t) {
    std::lock_guard<std::mutex> lock(gen.mutex);
    c10::visit_scalar_type(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* data = static_cast<T*>(t.data_ptr());
      for (int64_t i = 0; i < t.numel(); ++i) {
        data[i] = c10::convert<T>(static_cast<int64_t>(static_cast<uint64_t>(from) + gen.engine() % range));
      }
    });
  });
}

Tensor rand(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
            std::optional<Device> device) {
  return fresh(ember::empty(size, dtype, device).uniform_(0, 1, generator));
}

Tensor rand_out(IntArrayRef size, const std::optional<Generator>& generator, const Tensor& out) {
  return out.resize_(size).uniform_(0, 1, generator);
}

Tensor randn(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
             std::optional<Device> device) {
  return fresh(ember::empty(size, dtype, device).normal_(0, 1, generator));
}

Tensor randn_out(IntArrayRef size, const std::optional<Generator>& generator, const Tensor& out) {
  return out.resize_(size).normal_(0, 1, generator);
}

Tensor randint(int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
               std::optional<ScalarType> dtype, std::optional<Device> device) {
  return ember::randint(0, high, size, generator, dtype, device);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
               std::optional<ScalarType> dtype, std::optional<Device> device) {
  return fresh(ember::empty(size, dtype.value_or(ScalarType::Long), device).random_(low, high, generator));
}

Tensor randint_out(int64_t high, IntArrayRef size, const std::optional<Generator>& generator, const Tensor& out) {
  return out.resize_(size).random_(0, high, generator);
}

Tensor randint_out(int64_t low, int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
                   const Tensor& out) {
  return out.resize_(size).random_(low, high, generator);
}

Tensor rand_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return fresh(ember::empty_like(self, dtype, device).uniform_(0, 1));
}

Tensor randn_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return fresh(ember::empty_like(self, dtype, device).normal_(0, 1));
}

namespace {
// Every value 0..n-1 must be exact in the result dtype, or the "permutation"
// would repeat values.
void check_randperm_fits(int64_t n, ScalarType dtype) {
  int64_t float_digits = 0;
  switch (dtype) {
    case ScalarType::Half: float_digits = 11; break;
    case ScalarType::BFloat16: float_digits = 8; break;
    case ScalarType::Float: float_digits = 24; break;
    case ScalarType::Double: float_digits = 53; break;
    default: break;
  }
  if (float_digits > 0) {
    const int64_t limit = (int64_t{1} << float_digits) + 1;
    EMBER_CHECK(n <= limit, "n cannot be greater than {} for {} type.", limit, c10::toString(dtype));
    return;
  }
  EMBER_CHECK(!c10::isComplexType(dtype), "randperm is not implemented for {}", c10::toString(dtype));
  const int64_t largest = c10::visit_scalar_type(dtype, [](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) return static_cast<int64_t>(std::numeric_limits<T>::max());
    return 0;
  });
  EMBER_CHECK(n == 0 || n - 1 <= largest, "randperm: n = {} does not fit in dtype {} (largest value {})", n,
              c10::toString(dtype), largest);
}
}  // namespace

Tensor randperm(int64_t n, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                std::optional<Device> device) {
  EMBER_CHECK(n >= 0, "Trying to create tensor with negative dimension {}: [{}]", n, n);
  const ScalarType result_dtype = dtype.value_or(ScalarType::Long);
  check_randperm_fits(n, result_dtype);
  if (device && device->is_meta()) return ember::empty({n}, result_dtype, device);
  Tensor perm = ember::arange(n, ScalarType::Long);
  int64_t* data = perm.data_ptr<int64_t>();
  CPUGeneratorImpl& gen = pick(generator);
  {
    // Fisher-Yates; the bound is drawn by rejection so every order is equally likely.
    std::lock_guard<std::mutex> lock(gen.mutex);
    for (int64_t i = n - 1; i > 0; --i) {
      std::uniform_int_distribution<int64_t> pick_index(0, i);
      std::swap(data[i], data[pick_index(gen.engine)]);
    }
  }
  return fresh(perm.to(result_dtype).to(device.value_or(Device(DeviceType::CPU))));
}

Tensor randperm_out(int64_t n, const std::optional<Generator>& generator, const Tensor& out) {
  return out.resize_({n}).copy_(ember::randperm(n, generator, out.dtype(), out.device()));
}

// Draws: 1 where a uniform [0, 1) sample is below the probability.
Tensor bernoulli(const Tensor& self, const std::optional<Generator>& generator) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point(), "\"bernoulli_tensor_cpu_p_\" not implemented for '{}'",
                              c10::toString(self.dtype()));
  const Tensor p = self.detach();
  EMBER_CHECK(p.is_meta() || ember::logical_and(ember::ge(p, 0), ember::le(p, 1)).all().item<bool>(),
              "bernoulli expects all probabilities in [0, 1]");
  const Tensor u = ember::empty(self.sizes(), self.dtype(), self.device()).uniform_(0, 1, generator);
  return fresh(ember::lt(u, p).to(self.dtype()));
}

Tensor bernoulli_(const Tensor& self, double p, const std::optional<Generator>& generator) {
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p={}", p);
  const Tensor u = ember::empty(self.sizes(), ScalarType::Double, self.device()).uniform_(0, 1, generator);
  return self.copy_(ember::lt(u, p));
}

Tensor bernoulli(const Tensor& self, double p, const std::optional<Generator>& generator) {
  return fresh(ember::empty_like(self).bernoulli_(p, generator));
}

// Draws category indices from each row of (unnormalized) probabilities.
// With replacement: inverse transform sampling on the running sum. Without:
// the k largest keys log(u) / p (exponential races), which has the law of k
// sequential draws that each remove the category drawn.
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement,
                   const std::optional<Generator>& generator) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "prob_dist must be 1 or 2 dim");
  EMBER_CHECK(self.is_floating_point(), "multinomial only supports floating-point dtypes for input, got: {}",
              c10::toString(self.dtype()));
  EMBER_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t categories = self.size(-1);
  EMBER_CHECK(replacement || num_samples <= categories,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  const int64_t rows = self.dim() == 2 ? self.size(0) : 1;
  std::vector<int64_t> result_shape = {num_samples};
  if (self.dim() == 2) result_shape.insert(result_shape.begin(), rows);
  if (self.is_meta()) return ember::empty(result_shape, ScalarType::Long, self.device());

  const Tensor probs = self.detach().to(ScalarType::Double).contiguous();
  const double* p = probs.data_ptr<double>();
  Tensor result = ember::empty(result_shape, ScalarType::Long);
  int64_t* out = result.data_ptr<int64_t>();
  CPUGeneratorImpl& gen = pick(generator);
  std::lock_guard<std::mutex> lock(gen.mutex);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> cumulative(categories);
  std::vector<int64_t> order(categories);
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = p + r * categories;
    double total = 0;
    for (int64_t c = 0; c < categories; ++c) {
      EMBER_CHECK(std::isfinite(row[c]) && row[c] >= 0, "probability tensor contains either `inf`, `nan` or element < 0");
      total += row[c];
      cumulative[c] = total;
    }
    EMBER_CHECK(total > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
    int64_t* row_out = out + r * num_samples;
    if (replacement) {
      for (int64_t s = 0; s < num_samples; ++s) {
        const double target = uniform(gen.engine) * total;
        auto it = std::upper_bound(cumulative.begin(), cumulative.end(), target);
        int64_t c = std::min<int64_t>(it - cumulative.begin(), categories - 1);
        while (row[c] == 0 && c > 0) --c;  // a target that lands on a boundary rounds into a live category
        row_out[s] = c;
      }
      continue;
    }
    std::vector<double> keys(categories);
    for (int64_t c = 0; c < categories; ++c) {
      // 1 - u lies in (0, 1], so the log is finite. Zero-probability
      // categories come last (as in torch, which then returns them rather
      // than fail), in index order.
      keys[c] = row[c] > 0 ? std::log(1.0 - uniform(gen.engine)) / row[c] : -std::numeric_limits<double>::infinity();
    }
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + num_samples, order.end(),
                      [&](int64_t a, int64_t b) { return keys[a] > keys[b] || (keys[a] == keys[b] && a < b); });
    std::copy(order.begin(), order.begin() + num_samples, row_out);
  }
  return fresh(result.to(self.device()));
}

Tensor multinomial_out(const Tensor& self, int64_t num_samples, bool replacement,
                       const std::optional<Generator>& generator, const Tensor& out) {
  const Tensor drawn = ember::multinomial(self, num_samples, replacement, generator);
  return out.resize_(drawn.sizes()).copy_(drawn);
}

}  // namespace ember::native
