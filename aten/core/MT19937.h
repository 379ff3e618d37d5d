#pragma once
// The 32-bit Mersenne Twister (MT19937), kept in the form PyTorch's CPU
// generator keeps it: the seed, a countdown `left` to the next regeneration
// and a read position `next`. The same seed gives torch's numbers, and the
// fields map one to one onto torch's saved generator state.

#include <array>
#include <cstdint>

namespace ember {

class MT19937 {
 public:
  static constexpr int kStateSize = 624;

  struct Data {
    uint64_t seed = 0;
    int32_t left = 1;  // draws until the state regenerates, plus one
    bool seeded = false;
    uint32_t next = 0;  // index of the next word to temper
    std::array<uint32_t, kStateSize> state{};
  };

  explicit MT19937(uint64_t seed = 5489) { reseed(seed); }

  // Only the low 32 bits take part, as in the reference generator.
  void reseed(uint64_t seed) {
    data_.seed = seed;
    data_.seeded = true;
    data_.left = 1;
    data_.next = 0;
    data_.state[0] = static_cast<uint32_t>(seed & 0xffffffffULL);
    for (int j = 1; j < kStateSize; ++j) {
      const uint32_t previous = data_.state[j - 1];
      data_.state[j] = 1812433253U * (previous ^ (previous >> 30)) + static_cast<uint32_t>(j);
    }
  }

  uint32_t operator()() {
    if (--data_.left == 0) regenerate();
    uint32_t y = data_.state[data_.next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
  }

  const Data& data() const { return data_; }

  // A state is usable when reading never runs past the array: until the
  // next regeneration (left - 1 draws) reads stay below kStateSize.
  static bool is_valid(const Data& d) {
    return d.left >= 1 && d.left <= kStateSize && d.next <= static_cast<uint32_t>(kStateSize) &&
           d.next + static_cast<uint32_t>(d.left - 1) <= static_cast<uint32_t>(kStateSize);
  }
  void set_data(const Data& d) { data_ = d; }

 private:
  static uint32_t twist(uint32_t upper, uint32_t lower, uint32_t far) {
    const uint32_t y = (upper & 0x80000000U) | (lower & 0x7fffffffU);
    return far ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
  }

  void regenerate() {
    auto& s = data_.state;
    for (int i = 0; i < kStateSize; ++i) {
      s[i] = twist(s[i], s[(i + 1) % kStateSize], s[(i + 397) % kStateSize]);
    }
    data_.left = kStateSize;
    data_.next = 0;
  }

  Data data_;
};

}  // namespace ember
