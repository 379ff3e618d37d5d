#include <c10/core/LocalDispatchKeySet.h>

namespace c10 {

namespace {
thread_local LocalDispatchKeySet tls;
}

LocalDispatchKeySet tls_local_dispatch_key_set() { return tls; }

void tls_set_dispatch_key_included(DispatchKey key, bool included) {
  tls.included = included ? tls.included.add(key) : tls.included.remove(key);
}
bool tls_is_dispatch_key_included(DispatchKey key) { return tls.included.has(key); }

IncludeDispatchKeyGuard::IncludeDispatchKeyGuard(DispatchKeySet keys) : added_(keys - tls.included) {
  tls.included = tls.included | added_;
}
IncludeDispatchKeyGuard::~IncludeDispatchKeyGuard() { tls.included = tls.included - added_; }

ExcludeDispatchKeyGuard::ExcludeDispatchKeyGuard(DispatchKeySet keys) : added_(keys - tls.excluded) {
  tls.excluded = tls.excluded | added_;
}
ExcludeDispatchKeyGuard::~ExcludeDispatchKeyGuard() { tls.excluded = tls.excluded - added_; }

UnexcludeDispatchKeyGuard::UnexcludeDispatchKeyGuard(DispatchKeySet keys) : removed_(keys & tls.excluded) {
  tls.excluded = tls.excluded - removed_;
}
UnexcludeDispatchKeyGuard::~UnexcludeDispatchKeyGuard() { tls.excluded = tls.excluded | removed_; }

}  // namespace c10
