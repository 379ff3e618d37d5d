#pragma once
// Per-thread adjustments to dispatch: keys to add to every call (e.g. a mode
// that wants to see all operations) and keys to skip (e.g. Autograd while
// the autograd kernel itself redispatches). Changed only through guards.

#include <c10/core/DispatchKey.h>

namespace c10 {

struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};

LocalDispatchKeySet tls_local_dispatch_key_set();
// Turns a mode key on or off for this thread until told otherwise, for state
// that outlives a C++ scope (an autocast region opened from Python).
void tls_set_dispatch_key_included(DispatchKey key, bool included);
bool tls_is_dispatch_key_included(DispatchKey key);

class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet keys);
  explicit IncludeDispatchKeyGuard(DispatchKey key) : IncludeDispatchKeyGuard(DispatchKeySet(key)) {}
  ~IncludeDispatchKeyGuard();
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet added_;  // only the keys this guard turned on
};

class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet keys);
  explicit ExcludeDispatchKeyGuard(DispatchKey key) : ExcludeDispatchKeyGuard(DispatchKeySet(key)) {}
  ~ExcludeDispatchKeyGuard();
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet added_;
};

// Takes keys out of the excluded set for a scope (InferenceMode(false)
// inside an inference-mode region).
class UnexcludeDispatchKeyGuard {
 public:
  explicit UnexcludeDispatchKeyGuard(DispatchKeySet keys);
  ~UnexcludeDispatchKeyGuard();
  UnexcludeDispatchKeyGuard(const UnexcludeDispatchKeyGuard&) = delete;
  UnexcludeDispatchKeyGuard& operator=(const UnexcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet removed_;  // only the keys this guard took out
};

}  // namespace c10
