#pragma once
// Pseudo-random number generators. A Generator is a shared handle: copies
// draw from the same stream. Each draw locks, so a generator shared between
// threads stays consistent (kernels take the lock once per tensor).

#include <aten/core/MT19937.h>
#include <c10/util/intrusive_ptr.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace ember {

// The CPU generator draws as torch's does (the same engine, the same two
// draw widths, the same cached second normal sample), so that a seed gives
// torch's random numbers. Callers hold `mutex` around draws.
struct CPUGeneratorImpl final : c10::intrusive_ptr_target {
  explicit CPUGeneratorImpl(uint64_t seed) { set_seed(seed); }
  void set_seed(uint64_t seed) {
    engine.reseed(seed);
    next_double_normal_sample.reset();
    next_float_normal_sample.reset();
  }
  uint64_t seed() const { return engine.data().seed; }

  uint32_t random() { return engine(); }
  // Two draws, the first one in the high half.
  uint64_t random64() {
    const uint64_t high = engine();
    const uint64_t low = engine();
    return (high << 32) | low;
  }

  MT19937 engine;
  // Box-Muller makes two samples; the second waits here for the next draw.
  std::optional<double> next_double_normal_sample;
  std::optional<float> next_float_normal_sample;
  std::mutex mutex;
};

class Generator {
 public:
  // PyTorch's default CPU seed, so fresh processes start from a known state.
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;

  explicit Generator(uint64_t seed = kDefaultSeed) : impl_(c10::make_intrusive<CPUGeneratorImpl>(seed)) {}

  Generator& manual_seed(uint64_t seed) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->set_seed(seed);
    return *this;
  }
  uint64_t initial_seed() const { return impl_->seed(); }
  // Re-seeds from a non-deterministic source and returns the new seed.
  uint64_t seed();

  // The engine state in torch's layout (kStateBytes bytes), so a state saved
  // by either library restores in the other.
  static constexpr size_t kStateBytes = 5056;
  std::vector<uint8_t> get_state() const;
  void set_state(const std::vector<uint8_t>& state);

  CPUGeneratorImpl& impl() const { return *impl_; }
  bool is_same(const Generator& other) const { return impl_ == other.impl_; }

 private:
  c10::intrusive_ptr<CPUGeneratorImpl> impl_;
};

Generator& default_cpu_generator();
// Seeds the default generator, like torch.manual_seed.
void manual_seed(uint64_t seed);

}  // namespace ember
