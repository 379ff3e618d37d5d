#pragma once
// Optional dtype/device/requires_grad for factory functions, set fluently:
//   ember::zeros({2, 3}, ember::TensorOptions().dtype(c10::ScalarType::Double))

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <optional>

namespace ember {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(c10::ScalarType t) : dtype_(t) {}
  TensorOptions(c10::Device d) : device_(d) {}

  TensorOptions dtype(std::optional<c10::ScalarType> t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions device(std::optional<c10::Device> d) const {
    TensorOptions o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions requires_grad(bool r) const {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    return o;
  }

  std::optional<c10::ScalarType> dtype_opt() const { return dtype_; }
  std::optional<c10::Device> device_opt() const { return device_; }
  c10::ScalarType dtype_or(c10::ScalarType fallback) const { return dtype_.value_or(fallback); }
  // Floating factories (zeros, rand, ...) default to the global default dtype.
  c10::ScalarType dtype_or_default() const { return dtype_.value_or(c10::get_default_dtype()); }
  c10::Device device_or_cpu() const { return device_.value_or(c10::Device(c10::DeviceType::CPU)); }
  bool requires_grad() const { return requires_grad_; }

 private:
  std::optional<c10::ScalarType> dtype_;
  std::optional<c10::Device> device_;
  bool requires_grad_ = false;
};

}  // namespace ember
