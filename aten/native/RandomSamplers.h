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
