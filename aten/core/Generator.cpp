#include <aten/core/Generator.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <random>

namespace ember {

uint64_t Generator::seed() {
  std::random_device device;
  const uint64_t s = (static_cast<uint64_t>(device()) << 32) ^ device();
  manual_seed(s);
  return s;
}

namespace {

// Byte offsets of torch's CPUGeneratorImplState (x86-64 and aarch64 layout).
// The legacy fields normal_x and normal_rho stay zero, as torch writes them.
constexpr size_t kSeedAt = 0, kLeftAt = 8, kSeededAt = 12, kNextAt = 16, kWordsAt = 24;
constexpr size_t kNormalYAt = kWordsAt + 8 * MT19937::kStateSize + 8, kNormalValidAt = kNormalYAt + 16;
constexpr size_t kFloatNormalAt = kNormalValidAt + 8, kFloatNormalValidAt = kFloatNormalAt + 4;
static_assert(kFloatNormalValidAt + 4 == Generator::kStateBytes);

template <typename T>
void put(std::vector<uint8_t>& bytes, size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

template <typename T>
T get(const std::vector<uint8_t>& bytes, size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

}  // namespace

std::vector<uint8_t> Generator::get_state() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const MT19937::Data& d = impl_->engine.data();
  std::vector<uint8_t> bytes(kStateBytes, 0);
  put<uint64_t>(bytes, kSeedAt, d.seed);
  put<int32_t>(bytes, kLeftAt, d.left);
  put<int32_t>(bytes, kSeededAt, d.seeded ? 1 : 0);
  put<uint64_t>(bytes, kNextAt, d.next);
  for (int i = 0; i < MT19937::kStateSize; ++i) put<uint64_t>(bytes, kWordsAt + 8 * i, d.state[i]);
  if (impl_->next_double_normal_sample) {
    put<double>(bytes, kNormalYAt, *impl_->next_double_normal_sample);
    put<int32_t>(bytes, kNormalValidAt, 1);
  }
  if (impl_->next_float_normal_sample) {
    put<float>(bytes, kFloatNormalAt, *impl_->next_float_normal_sample);
    put<uint8_t>(bytes, kFloatNormalValidAt, 1);
  }
  return bytes;
}

void Generator::set_state(const std::vector<uint8_t>& bytes) {
  EMBER_CHECK(bytes.size() == kStateBytes,
              "Expected a CPUGeneratorImplState of size {} but found the input RNG state size to be {}", kStateBytes,
              bytes.size());
  MT19937::Data d;
  d.seed = get<uint64_t>(bytes, kSeedAt);
  d.left = get<int32_t>(bytes, kLeftAt);
  d.seeded = get<int32_t>(bytes, kSeededAt) != 0;
  const uint64_t next = get<uint64_t>(bytes, kNextAt);
  bool words_fit = true;
  for (int i = 0; i < MT19937::kStateSize; ++i) {
    const uint64_t word = get<uint64_t>(bytes, kWordsAt + 8 * i);
    words_fit = words_fit && word <= 0xffffffffULL;
    d.state[i] = static_cast<uint32_t>(word);
  }
  d.next = static_cast<uint32_t>(next);
  EMBER_CHECK(words_fit && next <= MT19937::kStateSize && MT19937::is_valid(d), "Invalid mt19937 state");
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->engine.set_data(d);
  impl_->next_double_normal_sample.reset();
  impl_->next_float_normal_sample.reset();
  if (get<int32_t>(bytes, kNormalValidAt) != 0) impl_->next_double_normal_sample = get<double>(bytes, kNormalYAt);
  if (get<uint8_t>(bytes, kFloatNormalValidAt) != 0) impl_->next_float_normal_sample = get<float>(bytes, kFloatNormalAt);
}

Generator& default_cpu_generator() {
  static Generator generator;
  return generator;
}

void manual_seed(uint64_t seed) { default_cpu_generator().manual_seed(seed); }

}  // namespace ember
