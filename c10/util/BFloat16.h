#pragma once
// bfloat16: the top 16 bits of an IEEE float32. Arithmetic goes through float.

#include <c10/util/bit_cast.h>

#include <cstdint>
#include <ostream>

namespace c10 {

struct alignas(2) BFloat16 {
  uint16_t x = 0;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }

  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float value) noexcept : x(round_to_nearest_even(value)) {}
  operator float() const noexcept { return bit_cast<float>(static_cast<uint32_t>(x) << 16); }

 private:
  // Both results computed and one selected, without a branch, so that loops
  // converting to bfloat16 vectorize.
  static uint16_t round_to_nearest_even(float value) noexcept {
    const uint32_t bits = bit_cast<uint32_t>(value);
    const uint32_t quiet_nan = (bits >> 16) | 0x0040u;
    const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    return static_cast<uint16_t>((bits & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
};

inline std::ostream& operator<<(std::ostream& out, BFloat16 b) { return out << static_cast<float>(b); }

}  // namespace c10
