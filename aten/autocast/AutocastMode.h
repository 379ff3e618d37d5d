#pragma once
// Automatic mixed precision: the per-thread state of autocast regions and the
// cast that autocast kernels apply to their arguments.
//
// A region for a device type turns that type's autocast key on in the
// thread-local included set, so every op call passes the autocast layer; ops
// without a policy fall through it (AutocastPolicies.h says which have one).

#include <aten/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

namespace ember::autocast {

// Whether autocast has a policy for ops on `device_type` (CPU and CUDA).
bool is_autocast_available(DeviceType device_type);

bool is_autocast_enabled(DeviceType device_type);
void set_autocast_enabled(DeviceType device_type, bool enabled);

// The lower-precision dtype of a region: bfloat16 on CPU, float16 on CUDA
// unless a region asked for another.
ScalarType get_autocast_dtype(DeviceType device_type);
void set_autocast_dtype(DeviceType device_type, ScalarType dtype);

// Whether casts of leaf weights are cached for the outermost region.
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);

// Regions count their nesting so the outermost one clears the cache on exit.
int increment_nesting();
int decrement_nesting();
void clear_cache();
// How many casts the cache holds, and how many calls it answered, on this
// thread (for tests).
size_t cache_size();
size_t cache_hits();

// `t` in `dtype` where autocast may cast it: a floating tensor (not float64)
// on `device_type`; anything else unchanged. Casts of float32 leaves that
// require grad to the region's lower-precision dtype come from the cache.
Tensor cast(const Tensor& t, ScalarType dtype, DeviceType device_type);
// Whether autocast casts `t` at all on `device_type`.
bool is_eligible(const Tensor& t, DeviceType device_type);

}  // namespace ember::autocast
