#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <mutex>

namespace c10 {

namespace {
constexpr std::string_view kDeviceNames[kNumDeviceTypes] = {"cpu", "cuda", "meta", "privateuseone", "lazy"};
constexpr std::string_view kPrivateUse1Default = kDeviceNames[static_cast<int>(DeviceType::PrivateUse1)];

// Written once, before the backend's tensors exist; read by every toString.
std::string& privateuse1_name() {
  static std::string name(kPrivateUse1Default);
  return name;
}
std::mutex privateuse1_mutex;

bool is_identifier(const std::string& name) {
  if (name.empty() || !std::islower(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}
}  // namespace

std::string_view toString(DeviceType t) {
  return t == DeviceType::PrivateUse1 ? std::string_view(privateuse1_name()) : kDeviceNames[static_cast<int>(t)];
}

void rename_privateuse1_backend(const std::string& name) {
  std::lock_guard<std::mutex> lock(privateuse1_mutex);
  std::string& current = privateuse1_name();
  if (current == name) return;
  EMBER_CHECK(current == kPrivateUse1Default,
              "rename_privateuse1_backend: the PrivateUse1 backend is already named '{}'; it can be named once",
              current);
  EMBER_CHECK(is_identifier(name),
              "rename_privateuse1_backend: a backend name is lower-case letters, digits and '_', starting with a "
              "letter; got '{}'", name);
  for (int i = 0; i < kNumDeviceTypes; ++i) {
    EMBER_CHECK(kDeviceNames[i] != name || i == static_cast<int>(DeviceType::PrivateUse1),
                "rename_privateuse1_backend: '{}' is already the name of a device type", name);
  }
  current = name;
}

Device::Device(std::string_view spec) {
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  bool found = name == kPrivateUse1Default;
  if (found) type = DeviceType::PrivateUse1;
  std::string known;
  for (int i = 0; i < kNumDeviceTypes; ++i) {
    const auto t = static_cast<DeviceType>(i);
    if (toString(t) == name) {
      type = t;
      found = true;
    }
    known += fmt::format("{}{}", i ? ", " : "", toString(t));
  }
  EMBER_CHECK(found, "Expected one of {} device type at start of device string: {}", known, spec);
  if (colon == std::string_view::npos) return;
  const std::string_view digits = spec.substr(colon + 1);
  int value = -1;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  EMBER_CHECK(ec == std::errc() && end == digits.data() + digits.size() && !digits.empty() && value >= 0 &&
                  value < 128,
              "Invalid device string: '{}'", spec);
  EMBER_CHECK(type != DeviceType::CPU || value == 0, "CPU device index must be -1 or zero, got {}", value);
  index = static_cast<int8_t>(value);
}

std::string Device::str() const {
  std::string s(toString(type));
  if (has_index()) s += ":" + std::to_string(index);
  return s;
}

}  // namespace c10
