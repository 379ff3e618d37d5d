#pragma once
// log(exp(a) + exp(b)) without overflow: logaddexp's element and
// logcumsumexp's running step.

#include <c10/util/TypeCast.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

namespace ember::native::cpu {

// Equal infinities give themselves (their difference would be NaN).
template <typename M>
M log_add_exp(M a, M b) {
  if constexpr (c10::is_complex_v<M>) {
    // Factor out the operand with the larger real part: exp(other - larger) stays bounded.
    const bool a_larger = a.real() >= b.real();
    const M larger = a_larger ? a : b, smaller = a_larger ? b : a;
    if (std::isinf(larger.real()) && larger == smaller) return larger;
    // exp(-inf + iy) is 0 whatever y: adding it changes nothing (and -inf - -inf would be NaN).
    if (smaller.real() == -std::numeric_limits<decltype(smaller.real())>::infinity()) return larger;
    return larger + std::log(M(1) + std::exp(smaller - larger));
  } else {
    const M larger = std::max(a, b);
    if (std::isinf(larger) && a == b) return a;
    return larger + std::log1p(std::exp(-std::abs(a - b)));
  }
}

}  // namespace ember::native::cpu
