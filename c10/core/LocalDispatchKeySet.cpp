#include <c10/core/LocalDispatchKeySet.h>

namespace c10 {

namespace {
thread_local LocalDispatchKeySet tls;
}

LocalDispatchKeySet tls_local_dispatch_key_set() { return tls; }

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
