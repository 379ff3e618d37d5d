#pragma once
// Where a tensor's memory lives: a device type plus an optional index.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace c10 {

// Lazy: tensors recorded into a graph and run later by an executor (lazy/).
enum class DeviceType : int8_t { CPU, CUDA, Meta, PrivateUse1, Lazy };
constexpr int kNumDeviceTypes = 5;

// The device type's name; PrivateUse1's is "privateuseone" until a backend renames it.
std::string_view toString(DeviceType t);

// Names PrivateUse1 for an out-of-tree backend ("npu", "foo"): device
// strings, printing and Python's ember.device use the name from then on
// ("privateuseone" still parses). Once per process; renaming again to the
// same name does nothing, to another name throws.
void rename_privateuse1_backend(const std::string& name);

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: "the current device of this type"

  constexpr Device() = default;
  constexpr Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}
  // Parses "cpu", "cuda", "cuda:1", "meta" (and PrivateUse1's names); throws on anything else.
  explicit Device(std::string_view spec);

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_meta() const { return type == DeviceType::Meta; }
  bool has_index() const { return index >= 0; }
  std::string str() const;

  friend bool operator==(Device a, Device b) { return a.type == b.type && a.index == b.index; }
  friend bool operator!=(Device a, Device b) { return !(a == b); }
};

}  // namespace c10

template <>
struct std::hash<c10::Device> {
  size_t operator()(c10::Device d) const noexcept {
    return std::hash<int>()(static_cast<int>(d.type) * 256 + d.index + 1);
  }
};
