#pragma once
// Pseudo-random number generators. A Generator is a shared handle: copies
// draw from the same stream. Each draw locks, so a generator shared between
// threads stays consistent (kernels take the lock once per tensor).

#include <c10/util/intrusive_ptr.h>

#include <cstdint>
#include <mutex>
#include <random>
#include <vector>

namespace ember {

struct CPUGeneratorImpl final : c10::intrusive_ptr_target {
  explicit CPUGeneratorImpl(uint64_t seed) { set_seed(seed); }
  void set_seed(uint64_t seed) {
    seed_ = seed;
    engine.seed(seed);
  }
  uint64_t seed() const { return seed_; }

  std::mt19937_64 engine;
  std::mutex mutex;

 private:
  uint64_t seed_ = 0;
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

  // Serialized engine state, for get_state/set_state.
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
