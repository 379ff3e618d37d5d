#pragma once
// Intrusive reference counting with strong and weak counts, as in c10.
//
// The counts live in the object (intrusive_ptr_target), so a raw pointer can
// always be turned back into an owning pointer; this is what lets the Python
// binding hand the same C++ object back and forth without a side table.
//
// Invariant: weakcount == (number of weak_intrusive_ptr) + (strong > 0 ? 1 : 0).
// When the last strong reference goes, release_resources() frees heavy
// payload (e.g. a storage's memory); the object itself is deleted only when
// the weak count also reaches zero.

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace c10 {

class intrusive_ptr_target {
 public:
  intrusive_ptr_target() noexcept = default;
  // Copying an object must not copy its reference counts.
  intrusive_ptr_target(const intrusive_ptr_target&) noexcept {}
  intrusive_ptr_target& operator=(const intrusive_ptr_target&) noexcept { return *this; }

  uint32_t use_count() const noexcept { return refcount_.load(std::memory_order_acquire); }
  uint32_t weak_use_count() const noexcept { return weakcount_.load(std::memory_order_acquire); }

 protected:
  virtual ~intrusive_ptr_target() = default;
  // Called when the strong count reaches zero, before any weak owner lets go.
  virtual void release_resources() {}

 private:
  template <typename T>
  friend class intrusive_ptr;
  template <typename T>
  friend class weak_intrusive_ptr;

  mutable std::atomic<uint32_t> refcount_{0};
  mutable std::atomic<uint32_t> weakcount_{0};
};

template <typename T>
class intrusive_ptr {
  static_assert(std::is_base_of_v<intrusive_ptr_target, T>, "T must derive from intrusive_ptr_target");

 public:
  using element_type = T;

  constexpr intrusive_ptr() noexcept = default;
  constexpr intrusive_ptr(std::nullptr_t) noexcept {}

  // Takes a new strong reference to `ptr`. Valid both for a freshly
  // allocated object (counts at zero) and for one already owned elsewhere.
  explicit intrusive_ptr(T* ptr) noexcept : target_(ptr) { retain_(); }

  intrusive_ptr(const intrusive_ptr& other) noexcept : target_(other.target_) { retain_(); }
  intrusive_ptr(intrusive_ptr&& other) noexcept : target_(std::exchange(other.target_, nullptr)) {}
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  intrusive_ptr(const intrusive_ptr<U>& other) noexcept : target_(other.get()) { retain_(); }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  intrusive_ptr(intrusive_ptr<U>&& other) noexcept : target_(other.release()) {}

  ~intrusive_ptr() { reset_(); }

  intrusive_ptr& operator=(intrusive_ptr other) noexcept {
    std::swap(target_, other.target_);
    return *this;
  }

  T* get() const noexcept { return target_; }
  T& operator*() const noexcept { return *target_; }
  T* operator->() const noexcept { return target_; }
  explicit operator bool() const noexcept { return target_ != nullptr; }
  bool defined() const noexcept { return target_ != nullptr; }

  void reset() noexcept { reset_(); }
  uint32_t use_count() const noexcept { return target_ ? target_->use_count() : 0; }
  uint32_t weak_use_count() const noexcept { return target_ ? target_->weak_use_count() : 0; }
  bool unique() const noexcept { return use_count() == 1; }

  // Gives up ownership without decrementing; pair with reclaim().
  T* release() noexcept { return std::exchange(target_, nullptr); }
  // Adopts a strong reference previously given up by release().
  static intrusive_ptr reclaim(T* owning) noexcept {
    intrusive_ptr p;
    p.target_ = owning;
    return p;
  }
  // The first owner of an object just constructed, which no other thread
  // can see yet: its counts are set, not atomically incremented
  // (make_intrusive; four read-modify-writes fewer per tensor's three objects).
  static intrusive_ptr adopt_new(T* fresh) noexcept {
    const intrusive_ptr_target* base = fresh;
    base->refcount_.store(1, std::memory_order_relaxed);
    base->weakcount_.store(1, std::memory_order_relaxed);
    return reclaim(fresh);
  }

  friend bool operator==(const intrusive_ptr& a, const intrusive_ptr& b) { return a.target_ == b.target_; }
  friend bool operator!=(const intrusive_ptr& a, const intrusive_ptr& b) { return a.target_ != b.target_; }

 private:
  template <typename U>
  friend class weak_intrusive_ptr;

  void retain_() noexcept {
    if (!target_) return;
    if (target_->refcount_.fetch_add(1, std::memory_order_acq_rel) == 0) {
      // First strong owner: the strong side as a whole holds one weak count.
      target_->weakcount_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  void reset_() noexcept {
    T* t = std::exchange(target_, nullptr);
    if (!t) return;
    if (t->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // Through the base, whose protected members this friend may use.
      intrusive_ptr_target* base = t;
      base->release_resources();
      // A weak count of 1 is the strong side's own: no weak owner exists, and
      // none can appear without a strong one, so no atomic decrement is needed.
      if (base->weakcount_.load(std::memory_order_acquire) == 1 ||
          base->weakcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        delete base;
      }
    }
  }

  T* target_ = nullptr;
};

template <typename T, typename... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>::adopt_new(new T(std::forward<Args>(args)...));
}

template <typename T>
class weak_intrusive_ptr {
 public:
  weak_intrusive_ptr() noexcept = default;
  explicit weak_intrusive_ptr(const intrusive_ptr<T>& strong) noexcept : target_(strong.get()) {
    if (target_) target_->weakcount_.fetch_add(1, std::memory_order_relaxed);
  }
  weak_intrusive_ptr(const weak_intrusive_ptr& other) noexcept : target_(other.target_) {
    if (target_) target_->weakcount_.fetch_add(1, std::memory_order_relaxed);
  }
  weak_intrusive_ptr(weak_intrusive_ptr&& other) noexcept : target_(std::exchange(other.target_, nullptr)) {}
  weak_intrusive_ptr& operator=(weak_intrusive_ptr other) noexcept {
    std::swap(target_, other.target_);
    return *this;
  }
  ~weak_intrusive_ptr() { reset(); }

  void reset() noexcept {
    intrusive_ptr_target* t = std::exchange(target_, nullptr);
    if (t && t->weakcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete t;
  }

  bool expired() const noexcept { return !target_ || target_->use_count() == 0; }
  uint32_t use_count() const noexcept { return target_ ? target_->use_count() : 0; }

  // A strong pointer if the object is still alive, else null.
  intrusive_ptr<T> lock() const noexcept {
    if (!target_) return {};
    uint32_t count = target_->refcount_.load(std::memory_order_acquire);
    while (count != 0) {
      if (target_->refcount_.compare_exchange_weak(count, count + 1, std::memory_order_acq_rel)) {
        return intrusive_ptr<T>::reclaim(target_);
      }
    }
    return {};
  }

 private:
  T* target_ = nullptr;
};

}  // namespace c10
