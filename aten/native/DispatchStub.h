#pragma once
// A kernel's inner loop per device type. An op whose checks and shape logic
// are the same on every device keeps them in one kernel, registered for
// each backend key, and calls stub(device_type, args...) for the part that
// touches memory; each backend fills its slot when it loads.

#include <aten/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include <array>
#include <type_traits>
#include <utility>

namespace ember::native {

template <typename Fn>
class DispatchStub {
 public:
  explicit constexpr DispatchStub(const char* op_name) : op_name_(op_name) {}

  void set(c10::DeviceType t, Fn* fn) { table_[static_cast<int>(t)] = fn; }

  // Runs the kernel of device type `t`. Every defined tensor argument must
  // live there: a kernel handed memory of another device would read it as
  // its own (a crash or garbage), so the mismatch is an error here, once for
  // every op that goes through a stub.
  template <typename... Args>
  decltype(auto) operator()(c10::DeviceType t, Args&&... args) const {
    Fn* fn = table_[static_cast<int>(t)];
    EMBER_CHECK_NOT_IMPLEMENTED(fn != nullptr, "\"{}\" is not implemented for {}", op_name_, c10::toString(t));
    (check_device(t, args), ...);
    return fn(std::forward<Args>(args)...);
  }

 private:
  template <typename A>
  void check_device(c10::DeviceType t, const A& arg) const {
    if constexpr (std::is_same_v<A, Tensor>) {
      EMBER_CHECK(!arg.defined() || arg.device().type == t,
                  "Expected all tensors to be on the same device, but found at least two devices, {} and {}! ({})",
                  c10::toString(t), arg.device().str(), op_name_);
    }
  }

  const char* op_name_;
  std::array<Fn*, c10::kNumDeviceTypes> table_{};
};

// Fills a stub's slot at load time: EMBER_REGISTER_STUB(fill_stub, CUDA, &fill_cuda);
#define EMBER_REGISTER_STUB(stub, device_type, fn)                          \
  static const bool ember_stub_registered_##stub##_##device_type = [] {    \
    stub.set(::c10::DeviceType::device_type, fn);                           \
    return true;                                                            \
  }()

}  // namespace ember::native
