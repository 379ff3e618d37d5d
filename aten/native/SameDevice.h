#pragma once
// The device check of compositions: the dispatcher checks the devices of ops
// that run a kernel, and a composition whose first inner op would report the
// mismatch under its own name checks first, so that the error names it.

#include <aten/core/Tensor.h>

namespace ember::native {

inline void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.device() == b.device(),
              "{}: expected all tensors to be on the same device, but found at least two devices, {} and {}", op,
              a.device().str(), b.device().str());
}

}  // namespace ember::native
