#include <aten/core/Generator.h>
#include <c10/core/DeviceHooks.h>
#include <c10/util/Exception.h>

#include <array>
#include <cstring>
#include <map>
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
static_assert(kFloatNormalValidAt + 4 == CPUGeneratorImpl::kStateBytes);

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

std::vector<uint8_t> CPUGeneratorImpl::get_state() const {
  const MT19937::Data& d = engine.data();
  std::vector<uint8_t> bytes(kStateBytes, 0);
  put<uint64_t>(bytes, kSeedAt, d.seed);
  put<int32_t>(bytes, kLeftAt, d.left);
  put<int32_t>(bytes, kSeededAt, d.seeded ? 1 : 0);
  put<uint64_t>(bytes, kNextAt, d.next);
  for (int i = 0; i < MT19937::kStateSize; ++i) put<uint64_t>(bytes, kWordsAt + 8 * i, d.state[i]);
  if (next_double_normal_sample) {
    put<double>(bytes, kNormalYAt, *next_double_normal_sample);
    put<int32_t>(bytes, kNormalValidAt, 1);
  }
  if (next_float_normal_sample) {
    put<float>(bytes, kFloatNormalAt, *next_float_normal_sample);
    put<uint8_t>(bytes, kFloatNormalValidAt, 1);
  }
  return bytes;
}

void CPUGeneratorImpl::set_state(const std::vector<uint8_t>& bytes) {
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
  engine.set_data(d);
  next_double_normal_sample.reset();
  next_float_normal_sample.reset();
  if (get<int32_t>(bytes, kNormalValidAt) != 0) next_double_normal_sample = get<double>(bytes, kNormalYAt);
  if (get<uint8_t>(bytes, kFloatNormalValidAt) != 0) next_float_normal_sample = get<float>(bytes, kFloatNormalAt);
}

std::vector<uint8_t> Generator::get_state() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->get_state();
}

void Generator::set_state(const std::vector<uint8_t>& state) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->set_state(state);
}

CPUGeneratorImpl& Generator::host_engine() const {
  auto* engine = dynamic_cast<CPUGeneratorImpl*>(impl_.get());
  EMBER_CHECK(engine != nullptr, "Expected a 'cpu' device type for generator but found '{}'",
              c10::toString(impl_->device().type));
  return *engine;
}

namespace {

Generator make_cpu_generator(c10::Device) { return Generator(); }

// Made on first use, so that a generator asked for during another library's
// static initialization finds the registry ready.
struct Registry {
  Registry() { factories[static_cast<int>(c10::DeviceType::CPU)] = &make_cpu_generator; }
  std::mutex mutex;
  std::array<GeneratorFactory, c10::kNumDeviceTypes> factories{};
  // Default generators by (device type, index); map nodes never move, so
  // references handed out stay valid.
  std::map<std::pair<int, int>, Generator> defaults;
};

Registry& registry() {
  static Registry r;
  return r;
}

GeneratorFactory factory_of(c10::DeviceType type) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  return registry().factories[static_cast<int>(type)];
}

// Devices with hooks have a current device, which an index left out names;
// the CPU has no index.
c10::Device with_index(c10::Device device) {
  if (device.has_index()) return device;
  const c10::DeviceHooks* hooks = c10::GetDeviceHooks(device.type);
  return hooks ? c10::Device(device.type, static_cast<int8_t>(hooks->current_device())) : device;
}

}  // namespace

void RegisterGeneratorFactory(c10::DeviceType type, GeneratorFactory factory) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().factories[static_cast<int>(type)] = factory;
}

Generator make_generator(c10::Device device) {
  const GeneratorFactory factory = factory_of(device.type);
  EMBER_CHECK(factory != nullptr, "Generator: the {} backend does not provide random number generators",
              c10::toString(device.type));
  return factory(with_index(device));
}

Generator& default_generator(c10::Device requested) {
  const c10::Device device = with_index(requested);
  const std::pair<int, int> key(static_cast<int>(device.type), device.index);
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto found = r.defaults.find(key);
    if (found != r.defaults.end()) return found->second;
  }
  Generator made = make_generator(device);
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.defaults.emplace(key, std::move(made)).first->second;  // the first of racing makers wins
}

Generator& default_cpu_generator() {
  static Generator& generator = default_generator(c10::Device(c10::DeviceType::CPU));
  return generator;
}

void manual_seed(uint64_t seed) {
  default_cpu_generator().manual_seed(seed);
  for (int t = 0; t < c10::kNumDeviceTypes; ++t) {
    const auto type = static_cast<c10::DeviceType>(t);
    const c10::DeviceHooks* hooks = c10::GetDeviceHooks(type);
    if (hooks == nullptr || factory_of(type) == nullptr) continue;
    for (int i = 0; i < hooks->device_count(); ++i) {
      default_generator(c10::Device(type, static_cast<int8_t>(i))).manual_seed(seed);
    }
  }
}

}  // namespace ember
