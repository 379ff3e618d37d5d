#pragma once
// Dispatch keys, lowest priority first: the dispatcher runs the kernel of the
// highest key present, so functionality keys (Autograd, Autocast*, Python) sit
// above the backend keys they eventually redispatch to.

#include <c10/core/Device.h>

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace c10 {

enum class DispatchKey : uint8_t {
  Undefined,
  // Backends.
  CPU,
  CUDA,
  Meta,
  PrivateUse1,
  // Backends of a non-strided layout: their tensors hold other tensors
  // (sparse COO: indices and values), so dense kernels never serve them.
  SparseCPU,
  // Lazy tensors (lazy/): no memory of their own; every op on them is
  // recorded into a pending graph that an executor runs when a value is needed.
  Lazy,
  // Functionality.
  BackendSelect,
  // Lazy negation and conjugation (TensorImpl's neg/conj bits): a tensor
  // carrying a bit has its key, and kernels that cannot read through the bit
  // get materialized inputs from one boxed fallback (MathBitsFallback.cpp).
  Negative,
  Conjugate,
  ADInplaceOrView,
  Autograd,
  // Program tracing (ember.jit.trace): on while a tracer is open on the
  // thread (the thread-local included set). Above Autograd, as in PyTorch, so
  // a program records the ops it called (aten::linear), not what autograd's
  // composite kernels decompose them into.
  Tracer,
  // Mixed precision, one key per device type that has a policy: on while an
  // autocast region for that device is open (the thread-local included set).
  AutocastCPU,
  AutocastCUDA,
  Python,
  NumKeys,
  // Alias keys: used only when registering a kernel, never present in a
  // tensor's key set. The dispatcher fills the runtime keys they stand for.
  CompositeExplicitAutograd,  // one kernel for every backend
  CompositeImplicitAutograd,  // decomposes into other ops; also serves Autograd
};

constexpr int kNumDispatchKeys = static_cast<int>(DispatchKey::NumKeys);

constexpr bool isAliasKey(DispatchKey k) { return k > DispatchKey::NumKeys; }
constexpr bool isBackendKey(DispatchKey k) { return k >= DispatchKey::CPU && k <= DispatchKey::Lazy; }
// Backends whose tensors are strided memory: the ones CompositeExplicitAutograd
// kernels (written against strides and storage) may serve.
constexpr bool isDenseBackendKey(DispatchKey k) { return k >= DispatchKey::CPU && k <= DispatchKey::PrivateUse1; }
// Parses a key name ("CPU", "CompositeImplicitAutograd", ...).
DispatchKey parseDispatchKey(std::string_view name);

std::string_view toString(DispatchKey k);
DispatchKey backendKey(DeviceType t);
// The sparse COO backend of a device type; Undefined where there is none.
DispatchKey sparseBackendKey(DeviceType t);
// The autocast key of a device type; Undefined where autocast has no policy.
DispatchKey autocastKey(DeviceType t);

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k) : bits_(bit(k)) {}
  constexpr DispatchKeySet(std::initializer_list<DispatchKey> keys) {
    for (DispatchKey k : keys) bits_ |= bit(k);
  }

  constexpr bool has(DispatchKey k) const { return (bits_ & bit(k)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint64_t raw() const { return bits_; }

  constexpr DispatchKeySet add(DispatchKey k) const { return from_raw(bits_ | bit(k)); }
  constexpr DispatchKeySet remove(DispatchKey k) const { return from_raw(bits_ & ~bit(k)); }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_raw(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_raw(bits_ & o.bits_); }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return from_raw(bits_ & ~o.bits_); }
  constexpr bool operator==(DispatchKeySet o) const { return bits_ == o.bits_; }
  constexpr bool operator!=(DispatchKeySet o) const { return bits_ != o.bits_; }

  // The keys of this set of lower priority than k.
  constexpr DispatchKeySet below(DispatchKey k) const { return from_raw(bits_ & (bit(k) - 1)); }

  DispatchKey highestPriorityKey() const {
    return bits_ == 0 ? DispatchKey::Undefined : static_cast<DispatchKey>(63 - __builtin_clzll(bits_));
  }

 private:
  static constexpr uint64_t bit(DispatchKey k) {
    return k == DispatchKey::Undefined || k >= DispatchKey::NumKeys ? 0 : uint64_t{1} << static_cast<uint8_t>(k);
  }
  static constexpr DispatchKeySet from_raw(uint64_t bits) {
    DispatchKeySet s;
    s.bits_ = bits;
    return s;
  }
  uint64_t bits_ = 0;
};

}  // namespace c10
