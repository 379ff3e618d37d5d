#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include <charconv>

namespace c10 {

namespace {
constexpr std::string_view kDeviceNames[kNumDeviceTypes] = {"cpu", "cuda", "meta", "privateuseone"};
}

std::string_view toString(DeviceType t) { return kDeviceNames[static_cast<int>(t)]; }

Device::Device(std::string_view spec) {
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  bool found = false;
  for (int i = 0; i < kNumDeviceTypes; ++i) {
    if (kDeviceNames[i] == name) {
      type = static_cast<DeviceType>(i);
      found = true;
    }
  }
  EMBER_CHECK(found,
              "Expected one of cpu, cuda, meta, privateuseone device type at start of device string: {}", spec);
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
