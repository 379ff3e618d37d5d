#pragma once
// Which ops autocast changes, and how: one table (AutocastPolicies.cpp),
// read by the dispatcher registration here and by the Python functions that
// are not dispatcher ops (ember.amp wraps them by the same names).

#include <c10/core/Device.h>

#include <string_view>
#include <vector>

namespace ember::autocast {

using c10::DeviceType;

enum class CastPolicy {
  None,            // autocast leaves the op alone (its key falls through)
  LowerPrecision,  // floating inputs cast to the region's dtype (matmul, conv...)
  Float32,         // floating inputs cast to float32 (reductions, losses, exp...)
  Promote,         // floating inputs cast to the widest of them (cat, stack...)
  Banned,          // refused: unsafe in float16 (binary_cross_entropy on CUDA)
};

std::string_view toString(CastPolicy p);

// The policy for an op ("mm", "pow.Tensor_Scalar") on a device type.
CastPolicy policy_for(std::string_view op, DeviceType device_type);

struct PolicyRow {
  std::string_view op;  // name, or name.overload as in native_functions.yaml
  CastPolicy cpu;
  CastPolicy cuda;
};
// Throws torch's error where `op`'s policy on `device_type` is Banned.
void check_not_banned(std::string_view op, DeviceType device_type);

// Every row, for registration and tests.
const std::vector<PolicyRow>& policy_table();

// Registers the autocast kernel of every row whose op the dispatcher knows,
// and the fallthrough for the rest (idempotent; runs at library load).
void register_autocast_kernels();

}  // namespace ember::autocast
