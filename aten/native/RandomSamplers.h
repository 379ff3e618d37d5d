#pragma once
// Samplers that take a variable number of draws per value (rejection
// methods), on top of RandomDraws.h. They follow torch's CPU samplers draw
// for draw, so that a seed gives torch's numbers. Callers hold the
// generator's mutex.

#include <aten/native/RandomDraws.h>

#include <array>
#include <cmath>

namespace ember::native::draw {

// Poisson(lambda) for finite lambda >= 0. Below 10: count uniforms until
// their running product falls to exp(-lambda). From 10 on: Hormann's
// transformed rejection with squeeze (PTRS, 1993), two uniforms per try.
inline double poisson(CPUGeneratorImpl& gen, double lambda) {
  if (lambda == 0) return 0;
  if (lambda < 10) {
    const double threshold = std::exp(-lambda);
    double product = 1, count = 0;
    while ((product *= uniform_double(gen)) > threshold) count += 1;
    return count;
  }
  const double root = std::sqrt(lambda), log_lambda = std::log(lambda);
  const double b = 0.931 + 2.53 * root;
  const double a = -0.059 + 0.02483 * b;
  const double log_inv_alpha = std::log(1.1239 + 1.1328 / (b - 3.4));
  const double v_r = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = uniform_double(gen) - 0.5;
    const double v = uniform_double(gen);
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + log_inv_alpha - std::log(a / (us * us) + b) <= -lambda + k * log_lambda - std::lgamma(k + 1)) {
      return k;
    }
  }
}

// Gamma(alpha, 1) by Marsaglia and Tsang's squeeze-and-reject on cubes of
// normals (2000); below alpha = 1, a sample of alpha + 1 times U^(1/alpha).
// Shapes that are not positive (NaN included) give 0, as torch's sampler.
// As torch's, the shape's own arithmetic (alpha + 1, 1 / alpha, alpha - 1/3)
// stays in T and the constants 1/3 and 0.0331 are floats; the rest is
// double. So a seed gives torch's numbers to the last bit.
template <typename T>
double standard_gamma(CPUGeneratorImpl& gen, T alpha) {
  if (!(alpha > 0)) return 0;
  double scale = 1;
  if (alpha < 1) {
    scale = std::pow(1 - uniform_double(gen), static_cast<double>(T(1) / alpha));
    alpha += T(1);
  }
  const double d = static_cast<double>(alpha - static_cast<T>(1.0f / 3.0f));
  const double c = 1 / std::sqrt(9 * d);
  constexpr double squeeze = static_cast<double>(0.0331f);
  for (;;) {
    double x, y;
    do {
      x = normal_double(gen, 0, 1);
      y = 1 + c * x;
    } while (y <= 0);
    const double v = y * y * y;
    const double u = 1 - uniform_double(gen);
    const double x2 = x * x;
    if (u < 1 - squeeze * x2 * x2) return scale * d * v;
    if (std::log(u) < 0.5 * x2 + d * (1 - v + std::log(v))) return scale * d * v;
  }
}

// log(k!) minus its Stirling approximation: a table below 10, the series after.
inline double stirling_tail(double k) {
  static constexpr std::array<double, 10> table = {
      0.08106146679532726, 0.04134069595540929, 0.02767792568499834, 0.02079067210376509, 0.01664469118982119,
      0.01387612882307075, 0.01189670994589177, 0.01041126526197209, 0.009255462182712733, 0.008330563433362871};
  if (k <= 9) return table[static_cast<size_t>(k)];
  const double square = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1);
}

// Binomial(count, prob), prob <= 0.5. Small means: count the geometric gaps
// between successes until they pass count. Means from 10 on: Hormann's
// BTRS (transformed rejection with squeeze).
template <typename T>
T binomial_low(CPUGeneratorImpl& gen, T count, T prob) {
  if (count * prob < T(10)) {
    const double log_q = std::log1p(-static_cast<double>(prob));
    double gaps = 0;
    T successes = 0;
    while ((gaps += std::ceil(std::log(uniform_double(gen)) / log_q)) <= static_cast<double>(count)) successes += 1;
    return successes;
  }
  const double n = static_cast<double>(count), p = static_cast<double>(prob);
  const double spread = std::sqrt(n * p * (1 - p));
  const double b = 1.15 + 2.53 * spread;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = n * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / (1 - p);
  const double alpha = (2.83 + 5.1 / b) * spread;
  const double m = std::floor((n + 1) * p);
  for (;;) {
    const double u = uniform_double(gen) - 0.5;
    double v = uniform_double(gen);
    const double us = 0.5 - std::fabs(u);
    const T k = static_cast<T>(std::floor((2 * a / us + b) * u + c));
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && v <= v_r) return k;
    const double kd = static_cast<double>(k);
    v = std::log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * std::log((m + 1) / (r * (n - m + 1))) +
                         (n + 1) * std::log((n - m + 1) / (n - kd + 1)) +
                         (kd + 0.5) * std::log(r * (n - kd + 1) / (kd + 1)) + stirling_tail(m) + stirling_tail(n - m) -
                         stirling_tail(kd) - stirling_tail(n - kd);
    if (v <= bound) return k;
  }
}

// Any prob: above one half, count the failures instead. NaN for a NaN prob.
template <typename T>
T binomial(CPUGeneratorImpl& gen, T count, T prob) {
  if (count <= 0 || prob <= 0) return 0;
  if (prob >= 1) return count;
  if (prob <= T(0.5)) return binomial_low(gen, count, prob);
  if (prob > T(0.5)) return count - binomial_low(gen, count, static_cast<T>(1 - prob));
  return prob;  // NaN
}

}  // namespace ember::native::draw
