#pragma once
// Pseudo-random number generators. A Generator is a shared handle: copies
// draw from the same stream. Each draw locks, so a generator shared between
// threads stays consistent (kernels take the lock once per tensor).

#include <aten/core/MT19937.h>
#include <c10/core/Device.h>
#include <c10/util/intrusive_ptr.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace ember {

// A generator's engine and state. Each device type has its kind, made by
// the factory its backend registers (RegisterGeneratorFactory), so that
// Generator(device) and default_generator(device) work for any backend.
// Callers hold `mutex` around draws and state changes.
struct GeneratorImpl : c10::intrusive_ptr_target {
  explicit GeneratorImpl(c10::Device device) : device_(device) {}
  c10::Device device() const { return device_; }

  virtual void set_seed(uint64_t seed) = 0;
  virtual uint64_t seed() const = 0;
  virtual std::vector<uint8_t> get_state() const = 0;
  virtual void set_state(const std::vector<uint8_t>& state) = 0;

  std::mutex mutex;

 private:
  c10::Device device_;
};

// The host engine: the CPU's generator, and that of any backend whose
// kernels draw on the host. It draws as torch's CPU generator does (the
// same engine, the same two draw widths, the same cached second normal
// sample), so that a seed gives torch's random numbers.
struct CPUGeneratorImpl final : GeneratorImpl {
  explicit CPUGeneratorImpl(uint64_t seed, c10::Device device = c10::Device(c10::DeviceType::CPU))
      : GeneratorImpl(device) {
    set_seed(seed);
  }
  void set_seed(uint64_t seed) override {
    engine.reseed(seed);
    next_double_normal_sample.reset();
    next_float_normal_sample.reset();
  }
  uint64_t seed() const override { return engine.data().seed; }

  // The engine state in torch's layout (kStateBytes bytes), so a state saved
  // by either library restores in the other.
  static constexpr size_t kStateBytes = 5056;
  std::vector<uint8_t> get_state() const override;
  void set_state(const std::vector<uint8_t>& state) override;

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
};

class Generator {
 public:
  // PyTorch's default CPU seed, so fresh processes start from a known state.
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;

  // A CPU generator.
  explicit Generator(uint64_t seed = kDefaultSeed) : impl_(c10::make_intrusive<CPUGeneratorImpl>(seed)) {}
  explicit Generator(c10::intrusive_ptr<GeneratorImpl> impl) : impl_(std::move(impl)) {}

  Generator& manual_seed(uint64_t seed) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->set_seed(seed);
    return *this;
  }
  uint64_t initial_seed() const { return impl_->seed(); }
  // Re-seeds from a non-deterministic source and returns the new seed.
  uint64_t seed();
  std::vector<uint8_t> get_state() const;
  void set_state(const std::vector<uint8_t>& state);
  c10::Device device() const { return impl_->device(); }

  GeneratorImpl& impl() const { return *impl_; }
  // The host engine for kernels that draw on the host; a generator of
  // another kind is an error naming its device.
  CPUGeneratorImpl& host_engine() const;
  bool is_same(const Generator& other) const { return impl_ == other.impl_; }

 private:
  c10::intrusive_ptr<GeneratorImpl> impl_;
};

// What a backend registers to give its device type generators: a new
// generator for a device (of that type, with an index), at the default seed.
using GeneratorFactory = Generator (*)(c10::Device device);
void RegisterGeneratorFactory(c10::DeviceType type, GeneratorFactory factory);
// A new generator for `device`; an error when its backend has no generators.
Generator make_generator(c10::Device device);
// The default generator of `device` (no index: the current device), made on first use.
Generator& default_generator(c10::Device device);
Generator& default_cpu_generator();
// Seeds the default generator of every device that has generators, like torch.manual_seed.
void manual_seed(uint64_t seed);

}  // namespace ember
