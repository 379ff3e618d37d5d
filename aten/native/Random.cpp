// Random fills. Each fill holds the generator's lock once and writes a
// contiguous buffer, so results for a given seed do not depend on strides.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/core/ExpandUtils.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/FactoryUtils.h>
#include <aten/native/MemoryOrder.h>
#include <aten/native/RandomDraws.h>
#include <aten/native/RandomSamplers.h>
#include <aten/native/Resize.h>
#include <aten/native/SpecialMath.h>
#include <c10/util/TypeCast.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace ember::native {

namespace {

CPUGeneratorImpl& pick(const std::optional<Generator>& generator) {
  return (generator ? *generator : default_cpu_generator()).host_engine();
}

// Runs fill(dense_data) so that the values land in `self` in memory order,
// the order torch's TensorIterator visits an output in: a transposed tensor
// gets the numbers a contiguous one would, laid out the same in memory.
// The dims, largest stride first, form a view that is contiguous when
// `self` is dense; otherwise the fill goes through a temporary.
template <typename Fill>
Tensor fill_in_memory_order(const Tensor& self, Fill&& fill) {
  if (self.is_meta() || self.numel() == 0) return self;
  const Tensor view = self.permute(dims_in_memory_order(self));
  const bool direct = view.is_contiguous() && !self.is_conj() && !self.is_neg();
  Tensor target = direct ? view : ember::empty(view.sizes(), self.dtype(), self.device());
  fill(target);
  if (direct) {
    self.unsafeGetTensorImpl()->bump_version();
  } else {
    view.copy_(target);  // bumps the version itself
  }
  return self;
}

// Writes `count` values of a real type V: complex tensors are filled through
// their real and imaginary parts in memory order, as torch's view_as_real.
template <typename Visit>
void visit_real_values(const Tensor& t, Visit&& visit) {
  c10::visit_scalar_type(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (c10::is_complex_v<T>) {
      using V = typename T::value_type;
      visit(reinterpret_cast<V*>(t.data_ptr()), 2 * t.numel());
    } else if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
      visit(static_cast<T*>(t.data_ptr()), t.numel());
    }
  });
}

// Sixteen uniforms in data[0, 16) become sixteen normals: Box-Muller on the
// pairs (j, j + 8), in T (float or double) as torch's scalar kernel.
template <typename T>
void normal_fill_16(T* data, T mean, T std) {
  for (int j = 0; j < 8; ++j) {
    const T u1 = 1 - data[j];  // (0, 1]: the log stays finite
    const T u2 = data[j + 8];
    const T radius = std::sqrt(-2 * std::log(u1));
    const T theta = static_cast<T>(2.0 * M_PI * static_cast<double>(u2));
    data[j] = std::fma(radius * std::cos(theta), std, mean);
    data[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

// torch's path for contiguous tensors of 16 or more values: uniforms for
// all, transformed sixteen at a time; a ragged tail redraws the last 16.
// Half and bfloat16 values are float normals, rounded.
template <typename V>
void normal_fill(V* out, int64_t n, double mean, double std, CPUGeneratorImpl& gen) {
  using T = draw::acc_t<V>;
  std::vector<T> buffer(std::is_same_v<V, T> ? 0 : static_cast<size_t>(n));
  T* data = std::is_same_v<V, T> ? reinterpret_cast<T*>(out) : buffer.data();
  const auto uniforms = [&](T* at, int64_t count) {
    for (int64_t i = 0; i < count; ++i) at[i] = draw::uniform_real<T>(gen, 0, 1);
  };
  uniforms(data, n);
  for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16(data + i, T(mean), T(std));
  if (n % 16 != 0) {
    uniforms(data + n - 16, 16);
    normal_fill_16(data + n - 16, T(mean), T(std));
  }
  if constexpr (!std::is_same_v<V, T>) {
    for (int64_t i = 0; i < n; ++i) out[i] = c10::convert<V>(data[i]);
  }
}

void check_floating(const Tensor& self, const char* op) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point() || self.is_complex(),
                              "{} is only implemented for floating point and complex tensors, got {}", op,
                              c10::python_name(self.dtype()));
}

}  // namespace

Tensor uniform_(const Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from={} > to={}", from, to);
  check_floating(self, "uniform_");
  CPUGeneratorImpl& gen = pick(generator);
  return fill_in_memory_order(self, [&](const Tensor& t) {
    std::lock_guard<std::mutex> lock(gen.mutex);
    visit_real_values(t, [&](auto* data, int64_t n) {
      // Half and bfloat16 draw as float and round, as torch does; a value
      // that rounds up to `to` becomes `from`, as in torch, so that the
      // range stays half-open.
      using V = std::remove_pointer_t<decltype(data)>;
      using A = draw::acc_t<V>;
      const A low = static_cast<A>(from), high = static_cast<A>(to);
      const V top = c10::convert<V>(high);
      for (int64_t i = 0; i < n; ++i) {
        const V value = c10::convert<V>(draw::uniform_real<A>(gen, low, high));
        data[i] = value == top && from < to ? c10::convert<V>(low) : value;
      }
    });
  });
}

Tensor normal_(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std {}", std);
  check_floating(self, "normal_");
  CPUGeneratorImpl& gen = pick(generator);
  // Complex normal: real and imaginary parts each with variance std^2 / 2.
  const double scale = self.is_complex() ? std / std::sqrt(2.0) : std;
  const bool contiguous = self.is_contiguous();
  return fill_in_memory_order(self, [&](const Tensor& t) {
    std::lock_guard<std::mutex> lock(gen.mutex);
    visit_real_values(t, [&](auto* data, int64_t n) {
      using V = std::remove_pointer_t<decltype(data)>;
      if (contiguous && n >= 16) {
        normal_fill(data, n, mean, scale, gen);
      } else {
        for (int64_t i = 0; i < n; ++i) data[i] = c10::convert<V>(draw::normal_double(gen, mean, scale));
      }
    });
  });
}

namespace {

// Fills self (a real dtype: callers refuse complex ones), in memory order,
// with draw_one(gen, tag) per element under the generator's lock.
template <typename Draw>
Tensor fill_each(const Tensor& self, const std::optional<Generator>& generator, Draw&& draw_one) {
  CPUGeneratorImpl& gen = pick(generator);
  return fill_in_memory_order(self, [&](const Tensor& t) {
    std::lock_guard<std::mutex> lock(gen.mutex);
    c10::visit_scalar_type(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!c10::is_complex_v<T>) {
        T* data = static_cast<T*>(t.data_ptr());
        for (int64_t i = 0; i < t.numel(); ++i) data[i] = draw_one(gen, tag);
      }
    });
  });
}

// One value per element made from double draws and rounded to self's dtype
// (torch's scalar path for these fills).
template <typename Draw>
Tensor fill_with_draws(const Tensor& self, const std::optional<Generator>& generator, Draw&& draw_one) {
  return fill_each(self, generator, [&](CPUGeneratorImpl& gen, auto tag) {
    return c10::convert<typename decltype(tag)::type>(draw_one(gen));
  });
}

void check_real_floating(const Tensor& self, const char* op) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point(), "{} is only implemented for floating point tensors, got {}", op,
                              c10::python_name(self.dtype()));
}

}  // namespace

Tensor exponential_(const Tensor& self, double lambd, const std::optional<Generator>& generator) {
  EMBER_CHECK(lambd > 0.0 && std::isfinite(lambd), "exponential_ expects lambda > 0.0, but found lambda={}", lambd);
  check_real_floating(self, "exponential_");
  return fill_with_draws(self, generator, [&](CPUGeneratorImpl& gen) { return draw::exponential_double(gen, lambd); });
}

Tensor log_normal_(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  EMBER_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std={}", std);
  check_real_floating(self, "log_normal_");
  return fill_with_draws(self, generator,
                         [&](CPUGeneratorImpl& gen) { return std::exp(draw::normal_double(gen, mean, std)); });
}

Tensor cauchy_(const Tensor& self, double median, double sigma, const std::optional<Generator>& generator) {
  EMBER_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma={}", sigma);
  EMBER_CHECK(self.is_floating_point(),
              "cauchy_: Cauchy distribution is a continuous probability distribution. dtype must be a floating point "
              "but you specified {}", c10::python_name(self.dtype()));
  return fill_with_draws(self, generator, [&](CPUGeneratorImpl& gen) {
    return median + sigma * std::tan(M_PI * (draw::uniform_double(gen) - 0.5));
  });
}

// The number of Bernoulli(p) trials up to and including the first success.
Tensor geometric_(const Tensor& self, double p, const std::optional<Generator>& generator) {
  EMBER_CHECK(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p={}", p);
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_complex() && self.scalar_type() != ScalarType::Bool,
                              "geometric_ is not implemented for {} tensors", c10::python_name(self.dtype()));
  const double log_q = std::log1p(-p);
  return fill_with_draws(self, generator,
                         [&](CPUGeneratorImpl& gen) { return std::ceil(std::log(draw::uniform_double(gen)) / log_q); });
}

namespace {

// out[i] = sample(gen, in[i]...) over contiguous float inputs of one dtype,
// in T's compute type (float for half and bfloat16), under the generator's lock.
template <typename Sample>
Tensor sample_elementwise(const std::vector<Tensor>& inputs, const std::optional<Generator>& generator,
                          Sample&& sample) {
  Tensor result = ember::empty(inputs[0].sizes(), inputs[0].dtype(), inputs[0].device());
  CPUGeneratorImpl& gen = pick(generator);
  std::lock_guard<std::mutex> lock(gen.mutex);
  c10::visit_scalar_type(result.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
      using A = draw::acc_t<T>;
      T* out = result.data_ptr<T>();
      std::vector<const T*> in;
      for (const Tensor& t : inputs) in.push_back(t.data_ptr<T>());
      for (int64_t i = 0; i < result.numel(); ++i) {
        out[i] = c10::convert<T>(sample(gen, static_cast<A>(in[0][i]), in.size() > 1 ? static_cast<A>(in[1][i]) : A(0)));
      }
    }
  });
  return fresh(result);
}

}  // namespace

Tensor poisson(const Tensor& self, const std::optional<Generator>& generator) {
  check_real_floating(self, "poisson");
  if (self.is_meta()) return fresh(ember::empty(self.sizes(), self.dtype(), self.device()));
  const Tensor rates = self.detach().contiguous();
  EMBER_CHECK(ember::logical_and(ember::ge(rates, 0), ember::isfinite(rates)).all().item<bool>(),
              "poisson: invalid Poisson rate, expected rate to be non-negative and finite");
  return sample_elementwise({rates}, generator, [](CPUGeneratorImpl& gen, auto rate, auto) {
    return draw::poisson(gen, static_cast<double>(rate));
  });
}

Tensor binomial(const Tensor& count, const Tensor& prob, const std::optional<Generator>& generator) {
  for (const auto& [t, name] : {std::pair<const Tensor&, const char*>{count, "count"}, {prob, "prob"}}) {
    EMBER_CHECK(t.is_floating_point(), "binomial only supports floating-point dtypes for {}, got: {}", name,
                c10::python_name(t.dtype()));
  }
  EMBER_CHECK(count.scalar_type() == prob.scalar_type(),
              "binomial: expected count and prob of one dtype, but got {} and {}", c10::python_name(count.dtype()),
              c10::python_name(prob.dtype()));
  const std::vector<int64_t> shape = infer_size(count.sizes(), prob.sizes(), "binomial");
  if (count.is_meta() || prob.is_meta()) return fresh(ember::empty(shape, count.dtype(), Device(DeviceType::Meta)));
  const Tensor n = count.detach().expand(shape).contiguous();
  const Tensor p = prob.detach().expand(shape).contiguous();
  return sample_elementwise({n, p}, generator, [](CPUGeneratorImpl& gen, auto trials, auto probability) {
    return draw::binomial(gen, trials, probability);
  });
}

namespace {

// torch's gamma and Dirichlet samplers exist for float and double only.
void check_float_or_double(const Tensor& t, const char* op) {
  EMBER_CHECK_NOT_IMPLEMENTED(t.scalar_type() == ScalarType::Float || t.scalar_type() == ScalarType::Double,
                              "{} is only implemented for float32 and float64 tensors, got {}", op,
                              c10::python_name(t.dtype()));
}

}  // namespace

// Gamma(alpha, 1) draws, never below the dtype's smallest normal number, so
// that a log or a division by the sample stays finite (torch clamps alike).
Tensor standard_gamma(const Tensor& self, const std::optional<Generator>& generator) {
  check_float_or_double(self, "_standard_gamma");
  if (self.is_meta()) return fresh(ember::empty(self.sizes(), self.dtype(), self.device()));
  const Tensor shapes = self.detach().contiguous();
  Tensor result = sample_elementwise({shapes}, generator, [](CPUGeneratorImpl& gen, auto alpha, auto) {
    return draw::standard_gamma(gen, alpha);
  });
  c10::visit_scalar_type(result.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      T* data = result.data_ptr<T>();
      for (int64_t i = 0; i < result.numel(); ++i) data[i] = std::max(data[i], std::numeric_limits<T>::min());
    }
  });
  return result;
}

Tensor standard_gamma_grad(const Tensor& self, const Tensor& output) {
  check_float_or_double(self, "_standard_gamma_grad");
  EMBER_CHECK(self.scalar_type() == output.scalar_type(),
              "_standard_gamma_grad: expected self and output of one dtype, but got {} and {}",
              c10::python_name(self.dtype()), c10::python_name(output.dtype()));
  const std::vector<int64_t> shape = infer_size(self.sizes(), output.sizes(), "_standard_gamma_grad");
  Tensor result = ember::empty(shape, self.dtype(), self.device());
  if (self.is_meta() || output.is_meta()) return fresh(result);
  const Tensor alpha = self.detach().expand(shape).contiguous();
  const Tensor sample = output.detach().expand(shape).contiguous();
  c10::visit_scalar_type(result.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T* a = alpha.data_ptr<T>();
      const T* x = sample.data_ptr<T>();
      T* out = result.data_ptr<T>();
      parallel_for(0, result.numel(), 64, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          out[i] = static_cast<T>(special::standard_gamma_sample_derivative(a[i], x[i]));
        }
      });
    }
  });
  return fresh(result);
}

namespace {

// The values random_ may produce for a dtype, as int64 bounds: [lowest,
// largest] for integers, and for floating types the range of integers they
// hold exactly, [-2^digits, 2^digits].
struct IntegerRange {
  int64_t lowest, largest;
};

IntegerRange exact_integers(ScalarType dtype) {
  return c10::visit_scalar_type(dtype, [](auto tag) -> IntegerRange {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return {0, 1};
    } else if constexpr (std::is_integral_v<T>) {
      return {static_cast<int64_t>(std::numeric_limits<T>::lowest()),
              static_cast<int64_t>(std::min<uint64_t>(std::numeric_limits<T>::max(), INT64_MAX))};
    } else if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
      const int64_t bound = draw::digits<T>() >= 63 ? INT64_MAX : int64_t{1} << draw::digits<T>();
      return {-bound, bound};
    } else {
      return {0, 0};
    }
  });
}

void check_in_range(int64_t value, const char* name, const IntegerRange& range, ScalarType dtype) {
  EMBER_CHECK(value >= range.lowest && value <= range.largest, "random_: {} is out of bounds for {}", name,
              c10::toString(dtype));
}

template <typename Draw>
Tensor random_fill(const Tensor& self, const std::optional<Generator>& generator, Draw&& draw_one) {
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_complex(), "random_ is not implemented for complex tensors");
  return fill_each(self, generator, std::forward<Draw>(draw_one));
}

}  // namespace

Tensor random_(const Tensor& self, const std::optional<Generator>& generator) {
  return random_fill(self, generator, [](CPUGeneratorImpl& gen, auto tag) {
    return draw::uniform_int<typename decltype(tag)::type>(gen);
  });
}

Tensor random_(const Tensor& self, int64_t to, const std::optional<Generator>& generator) {
  return self.random_(0, to, generator);
}

Tensor random_(const Tensor& self, int64_t from, std::optional<int64_t> to_opt,
               const std::optional<Generator>& generator) {
  const IntegerRange exact = exact_integers(self.dtype());
  uint64_t range = 0;  // 0 stands for all 2^64 values
  if (to_opt) {
    EMBER_CHECK(from < *to_opt, "random_ expects 'from' to be less than 'to', but got from={} >= to={}", from, *to_opt);
    check_in_range(from, "from", exact, self.dtype());
    check_in_range(*to_opt - 1, "to - 1", exact, self.dtype());
    range = static_cast<uint64_t>(*to_opt) - static_cast<uint64_t>(from);
  } else if (from != std::numeric_limits<int64_t>::lowest() || exact.largest < INT64_MAX) {
    // [from, largest exact value]
    check_in_range(from, "from", exact, self.dtype());
    range = static_cast<uint64_t>(exact.largest) - static_cast<uint64_t>(from) + 1;
  }
  return random_fill(self, generator, [&](CPUGeneratorImpl& gen, auto tag) {
    using T = typename decltype(tag)::type;
    return range == 0 ? draw::uniform_int_full_range<T>(gen) : draw::uniform_int_from_to<T>(gen, range, from);
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

// normal(mean, std): standard normals scaled and shifted, drawn in the order torch draws them.
namespace {
void check_std_tensor(const Tensor& std) {
  EMBER_CHECK(std.is_meta() || std.numel() == 0 || !ember::lt(std, Scalar(0)).any().item<bool>(),
              "normal expects all elements of std >= 0.0");
}
}  // namespace

Tensor normal(const Tensor& mean, double std, const std::optional<Generator>& generator) {
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std {}", std);
  return fresh(ember::empty_like(mean).normal_(0, 1, generator).mul_(Scalar(std)).add_(mean));
}

Tensor normal(double mean, const Tensor& std, const std::optional<Generator>& generator) {
  check_std_tensor(std);
  return fresh(ember::empty_like(std).normal_(0, 1, generator).mul_(std).add_(Scalar(mean)));
}

Tensor normal(const Tensor& mean, const Tensor& std, const std::optional<Generator>& generator) {
  check_std_tensor(std);
  const std::vector<int64_t> shape = infer_size(mean.sizes(), std.sizes(), "normal");
  const ScalarType dtype = c10::promoteTypes(mean.scalar_type(), std.scalar_type());
  return fresh(ember::empty(shape, dtype, mean.device()).normal_(0, 1, generator).mul_(std).add_(mean));
}

Tensor normal(double mean, double std, IntArrayRef size, const std::optional<Generator>& generator,
              std::optional<ScalarType> dtype, std::optional<Device> device) {
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std {}", std);
  return fresh(ember::empty(size, dtype, device).normal_(mean, std, generator));
}

Tensor randint_like(const Tensor& self, int64_t high, std::optional<ScalarType> dtype, std::optional<Device> device,
                    std::optional<MemoryFormat> memory_format) {
  return fresh(ember::empty_like(self, dtype, device, memory_format).random_(0, high));
}

Tensor randint_like(const Tensor& self, int64_t low, int64_t high, std::optional<ScalarType> dtype,
                    std::optional<Device> device, std::optional<MemoryFormat> memory_format) {
  return fresh(ember::empty_like(self, dtype, device, memory_format).random_(low, high));
}

Tensor rand_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                 std::optional<MemoryFormat> memory_format) {
  return fresh(ember::empty_like(self, dtype, device, memory_format).uniform_(0, 1));
}

Tensor randn_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                  std::optional<MemoryFormat> memory_format) {
  return fresh(ember::empty_like(self, dtype, device, memory_format).normal_(0, 1));
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
    // torch's shuffle: position i swaps with i + draw % (n - i). A 32-bit
    // draw (as torch) while the count fits in one.
    std::lock_guard<std::mutex> lock(gen.mutex);
    for (int64_t i = 0; i + 1 < n; ++i) {
      const uint64_t left = static_cast<uint64_t>(n - i);
      const uint64_t bits = left <= (uint64_t{1} << 32) ? gen.random() : gen.random64();
      std::swap(data[i], data[i + static_cast<int64_t>(bits % left)]);
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
  const Tensor u = ember::empty_like(self).uniform_(0, 1, generator);
  return fresh(ember::lt(u, p).to(self.dtype()));
}

Tensor bernoulli_(const Tensor& self, double p, const std::optional<Generator>& generator) {
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p={}", p);
  const Tensor u = ember::empty_like(self, ScalarType::Double).uniform_(0, 1, generator);
  return self.copy_(ember::lt(u, p));
}

Tensor bernoulli(const Tensor& self, double p, const std::optional<Generator>& generator) {
  return fresh(ember::empty_like(self).bernoulli_(p, generator));
}

// Draws category indices from each row of (unnormalized) weights, as torch.
// With replacement: the running sum, normalized, searched for a double
// uniform, in T's own precision (float for float, half and bfloat16).
// Without replacement, and for a single sample: the k largest of p / q
// with q exponential (exponential races, the law of k sequential draws
// that each remove the category drawn).
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement,
                   const std::optional<Generator>& generator) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "prob_dist must be 1 or 2 dim");
  EMBER_CHECK(self.is_floating_point(), "multinomial only supports floating-point dtypes for input, got: {}",
              c10::toString(self.dtype()));
  EMBER_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t categories = self.size(-1);
  EMBER_CHECK(replacement || num_samples <= categories,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  EMBER_CHECK(categories <= (int64_t{1} << 24), "number of categories cannot exceed 2^24");
  const int64_t rows = self.dim() == 2 ? self.size(0) : 1;
  std::vector<int64_t> result_shape = {num_samples};
  if (self.dim() == 2) result_shape.insert(result_shape.begin(), rows);
  if (self.is_meta()) return ember::empty(result_shape, ScalarType::Long, self.device());
  EMBER_CHECK(rows > 0 && categories > 0, "multinomial: the distribution is empty (shape {})", c10::str_sizes(self.sizes()));

  const Tensor weights = self.detach().contiguous();
  const Tensor in_range = ember::logical_and(ember::ge(weights, 0), ember::isfinite(weights));
  EMBER_CHECK(in_range.all().item<bool>(), "probability tensor contains either `inf`, `nan` or element < 0");
  const std::vector<int64_t> last_dim = {-1};
  EMBER_CHECK(!ember::eq(weights.sum(last_dim), 0).any().item<bool>(),
              "invalid multinomial distribution (sum of probabilities <= 0)");
  if (!replacement || num_samples == 1) {
    const Tensor races = ember::div(weights, ember::empty_like(weights).exponential_(1, generator));
    if (num_samples == 1) return fresh(ember::argmax(races, -1, true));
    return fresh(std::get<1>(ember::topk(races, num_samples)).contiguous());
  }

  Tensor result = ember::empty(result_shape, ScalarType::Long);
  int64_t* out = result.data_ptr<int64_t>();
  CPUGeneratorImpl& gen = pick(generator);
  c10::visit_scalar_type(weights.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
      using A = draw::acc_t<T>;
      const T* p = weights.data_ptr<T>();
      std::vector<A> cumulative(static_cast<size_t>(categories));
      std::lock_guard<std::mutex> lock(gen.mutex);
      for (int64_t r = 0; r < rows; ++r) {
        A total = 0;
        for (int64_t c = 0; c < categories; ++c) cumulative[c] = total += static_cast<A>(p[r * categories + c]);
        for (A& c : cumulative) c /= total;
        cumulative.back() = 1;
        for (int64_t s = 0; s < num_samples; ++s) {
          const double u = draw::uniform_double(gen);
          out[r * num_samples + s] = std::lower_bound(cumulative.begin(), cumulative.end(), u,
                                                      [](A c, double v) { return c < v; }) - cumulative.begin();
        }
      }
    }
  });
  return fresh(result);
}

Tensor multinomial_out(const Tensor& self, int64_t num_samples, bool replacement,
                       const std::optional<Generator>& generator, const Tensor& out) {
  return resize_out(out, ember::multinomial(self, num_samples, replacement, generator));
}

}  // namespace ember::native
