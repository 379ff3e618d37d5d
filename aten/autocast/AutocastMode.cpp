#include <aten/autocast/AutocastMode.h>
#include <aten/autocast/AutocastPolicies.h>

#include <c10/core/DispatchKey.h>
#include <c10/core/LocalDispatchKeySet.h>
#include <c10/util/Exception.h>

#include <array>
#include <unordered_map>
#include <utility>

namespace ember::autocast {
namespace {

constexpr size_t kNumDeviceTypes = 4;  // CPU, CUDA, Meta, PrivateUse1

size_t index_of(DeviceType t) {
  const auto i = static_cast<size_t>(t);
  EMBER_CHECK(i < kNumDeviceTypes, "autocast: unknown device type {}", i);
  return i;
}

struct ThreadState {
  std::array<ScalarType, kNumDeviceTypes> dtype{ScalarType::BFloat16, ScalarType::Half, ScalarType::BFloat16,
                                                ScalarType::BFloat16};
  bool cache_enabled = true;
  int nesting = 0;
  // Keyed by the source's TensorImpl. The weak reference keeps that address
  // from being reused by another tensor while the entry lives, so a stale
  // entry can never answer for a new tensor.
  std::unordered_map<const c10::TensorImpl*, std::pair<c10::weak_intrusive_ptr<c10::TensorImpl>, Tensor>> cache;
  size_t hits = 0;
};

ThreadState& state() {
  thread_local ThreadState s;
  return s;
}

c10::DispatchKey key_of(DeviceType t) {
  const c10::DispatchKey k = c10::autocastKey(t);
  EMBER_CHECK(k != c10::DispatchKey::Undefined, "User specified an unsupported autocast device_type '{}'",
              c10::toString(t));
  return k;
}

}  // namespace

bool is_autocast_available(DeviceType device_type) {
  return c10::autocastKey(device_type) != c10::DispatchKey::Undefined;
}

bool is_autocast_enabled(DeviceType device_type) {
  if (!is_autocast_available(device_type)) return false;
  // Off below an autocast kernel too, which excludes the key while it runs.
  const c10::DispatchKey key = c10::autocastKey(device_type);
  const c10::LocalDispatchKeySet local = c10::tls_local_dispatch_key_set();
  return local.included.has(key) && !local.excluded.has(key);
}

void set_autocast_enabled(DeviceType device_type, bool enabled) {
  const c10::DispatchKey key = key_of(device_type);
  if (enabled) register_autocast_kernels();
  c10::tls_set_dispatch_key_included(key, enabled);
}

ScalarType get_autocast_dtype(DeviceType device_type) { return state().dtype[index_of(device_type)]; }

void set_autocast_dtype(DeviceType device_type, ScalarType dtype) {
  key_of(device_type);
  EMBER_CHECK_VALUE(c10::isFloatingType(dtype), "autocast: the lower-precision dtype must be floating, got {}",
                    c10::toString(dtype));
  state().dtype[index_of(device_type)] = dtype;
}

bool is_autocast_cache_enabled() { return state().cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { state().cache_enabled = enabled; }

int increment_nesting() { return ++state().nesting; }
int decrement_nesting() {
  ThreadState& s = state();
  EMBER_CHECK(s.nesting > 0, "autocast: more regions exited than entered");
  return --s.nesting;
}

void clear_cache() {
  ThreadState& s = state();
  s.cache.clear();
  s.hits = 0;
}
size_t cache_size() { return state().cache.size(); }
size_t cache_hits() { return state().hits; }

bool is_eligible(const Tensor& t, DeviceType device_type) {
  return t.defined() && t.device().type == device_type && c10::isFloatingType(t.scalar_type()) &&
         t.scalar_type() != ScalarType::Double;
}

Tensor cast(const Tensor& t, ScalarType dtype, DeviceType device_type) {
  if (!is_eligible(t, device_type) || t.scalar_type() == dtype) return t;
  ThreadState& s = state();
  // Weights: float32 leaves that train, cast once per outermost region.
  const bool cacheable = s.cache_enabled && dtype == s.dtype[index_of(device_type)] &&
                         t.scalar_type() == ScalarType::Float && t.requires_grad() && t.is_leaf() && !t.is_view();
  if (!cacheable) return t.to(dtype);
  auto found = s.cache.find(t.unsafeGetTensorImpl());
  if (found != s.cache.end() && found->second.second.scalar_type() == dtype) {
    ++s.hits;
    return found->second.second;
  }
  Tensor casted = t.to(dtype);
  s.cache.insert_or_assign(t.unsafeGetTensorImpl(),
                           std::make_pair(c10::weak_intrusive_ptr<c10::TensorImpl>(t.impl_ptr()), casted));
  return casted;
}

}  // namespace ember::autocast
