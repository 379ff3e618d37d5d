#pragma once
// How one random value of each kind is made from the generator's 32- and
// 64-bit draws. These are torch's CPU transforms, step for step, so that a
// seed gives torch's numbers; each function says which draw it takes.
// Callers hold the generator's mutex.

#include <aten/core/Generator.h>
#include <c10/util/Half.h>
#include <c10/util/TypeCast.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace ember::native::draw {

// Significand bits, the implicit one included.
template <typename T>
constexpr int digits() {
  if constexpr (std::is_same_v<T, c10::Half>) return 11;
  if constexpr (std::is_same_v<T, c10::BFloat16>) return 8;
  return std::numeric_limits<T>::digits;
}

// The type a value of T is computed in before it is stored.
template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Uniform in [from, to) for T float or double: digits<T>() random bits of
// one draw, 64-bit for double and 32-bit for float.
template <typename T>
T uniform_real(CPUGeneratorImpl& gen, T from, T to) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  constexpr uint64_t mask = (uint64_t{1} << digits<T>()) - 1;
  constexpr T divisor = T(1) / static_cast<T>(uint64_t{1} << digits<T>());
  const uint64_t bits = std::is_same_v<T, double> ? gen.random64() : gen.random();
  const T x = static_cast<T>(bits & mask) * divisor;
  // Fused, as torch's vectorized builds compile x * (to - from) + from.
  return std::fma(x, to - from, from);
}

inline double uniform_double(CPUGeneratorImpl& gen) { return uniform_real<double>(gen, 0.0, 1.0); }

// Box-Muller on two double uniforms; the sine half is kept for the next call.
inline double normal_double(CPUGeneratorImpl& gen, double mean, double std) {
  if (gen.next_double_normal_sample) {
    const double cached = *gen.next_double_normal_sample;
    gen.next_double_normal_sample.reset();
    return cached * std + mean;
  }
  const double u1 = uniform_double(gen);
  const double u2 = uniform_double(gen);
  const double radius = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * M_PI * u1;
  gen.next_double_normal_sample = radius * std::sin(theta);
  return radius * std::cos(theta) * std + mean;
}

inline double exponential_double(CPUGeneratorImpl& gen, double lambda) {
  return -1.0 / lambda * std::log1p(-uniform_double(gen));
}

// random_() without bounds: every value T holds exactly, from 0 up. A
// 64-bit draw for int64 and double, 32-bit otherwise.
template <typename T>
T uniform_int(CPUGeneratorImpl& gen) {
  constexpr bool wide = std::is_same_v<T, int64_t> || std::is_same_v<T, double>;
  const uint64_t bits = wide ? gen.random64() : gen.random();
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<bool>(bits & 1);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(bits % (static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1));
  } else {
    return c10::convert<T>(static_cast<double>(bits % ((uint64_t{1} << digits<T>()) + 1)));
  }
}

// random_(from, to): base + draw % range, with a 64-bit draw from a range
// of 2^28 on (torch's threshold, which keeps the modulo bias small).
template <typename T>
T uniform_int_from_to(CPUGeneratorImpl& gen, uint64_t range, int64_t base) {
  const uint64_t bits = range >= (uint64_t{1} << 28) ? gen.random64() : gen.random();
  return c10::convert<T>(static_cast<int64_t>(bits % range + static_cast<uint64_t>(base)));
}

// random_(from=-2^63, to=None): all 64 bits.
template <typename T>
T uniform_int_full_range(CPUGeneratorImpl& gen) {
  return c10::convert<T>(static_cast<int64_t>(gen.random64()));
}

}  // namespace ember::native::draw
