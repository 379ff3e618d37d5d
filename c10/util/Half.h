#pragma once
// IEEE 754 binary16. Stored as bits; arithmetic goes through float, which is
// exact for every operation on two halves followed by rounding back.

#include <c10/util/bit_cast.h>

#include <cstdint>
#include <ostream>

namespace c10 {

namespace detail {

inline uint16_t half_bits_from_float(float f) noexcept {
  const uint32_t x = bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u;   // NaN stays a (quiet) NaN
  if (a >= 0x47800000u) return sign | 0x7c00u;  // >= 2^16: infinity
  if (a >= 0x38800000u) {                       // normal half (exponent >= -14)
    const uint32_t mant = a & 0x7fffffu;
    uint32_t h = ((((a >> 23) - 127u + 15u)) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fffu;
    // Round to nearest even; a carry into the exponent is the right answer
    // (up to and including overflow to infinity).
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h += 1;
    return static_cast<uint16_t>(sign | h);
  }
  if (a < 0x33000000u) return sign;  // below half the smallest subnormal: zero
  // Subnormal half: the value in units of 2^-24, rounded to nearest even.
  const uint32_t mant = (a & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - (a >> 23);
  uint32_t h = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (rem > halfway || (rem == halfway && (h & 1u))) h += 1;
  return static_cast<uint16_t>(sign | h);
}

inline float float_from_half_bits(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    const float magnitude = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24, exact
    return sign ? -magnitude : magnitude;
  }
  return bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace detail

struct alignas(2) Half {
  uint16_t x = 0;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }

  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float value) noexcept : x(detail::half_bits_from_float(value)) {}
  operator float() const noexcept { return detail::float_from_half_bits(x); }
};

inline std::ostream& operator<<(std::ostream& out, Half h) { return out << static_cast<float>(h); }

}  // namespace c10
