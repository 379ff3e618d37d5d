#pragma once

// A vector that keeps up to N values inline and goes to the heap only
// beyond: per-dimension sizes and strides, and the operands of one operator
// call, which would otherwise cost a heap allocation each on every call (the
// tiny-tensor overhead). Trivially copyable values move with memcpy; others
// (tensors) are constructed, moved and destroyed one by one.

#include <c10/util/ArrayRef.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace c10 {

template <typename T, size_t N>
class SmallVector {
  static constexpr bool kTrivial = std::is_trivially_copyable_v<T>;

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  explicit SmallVector(size_t n, const T& value = T()) { assign(n, value); }
  SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  SmallVector(ArrayRef<T> values) { assign(values.begin(), values.end()); }  // NOLINT: implicit, as vector's
  SmallVector(const std::vector<T>& values) { assign(values.data(), values.data() + values.size()); }  // NOLINT
  SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }
  SmallVector(SmallVector&& other) noexcept { take(other); }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  void assign(size_t n, const T& value) {
    if (n > capacity_ || !kTrivial) {  // `value` may live in this vector: fill a new one
      SmallVector filled;
      filled.reserve(n);
      std::uninitialized_fill_n(filled.data_, n, value);
      filled.size_ = n;
      *this = std::move(filled);
      return;
    }
    const T copy = value;
    std::fill_n(data_, n, copy);
    size_ = n;
  }
  void assign(const T* first, const T* last) {
    const size_t n = static_cast<size_t>(last - first);
    if (n > capacity_ || !kTrivial) {  // `first` may point into this vector: copy before letting go
      SmallVector copy;
      copy.reserve(n);
      std::uninitialized_copy(first, last, copy.data_);
      copy.size_ = n;
      *this = std::move(copy);
      return;
    }
    if (n > 0) std::memmove(static_cast<void*>(data_), first, n * sizeof(T));  // an empty range may be null
    size_ = n;
  }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    T* grown = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (grown == nullptr) throw std::bad_alloc();
    if constexpr (kTrivial) {
      if (size_ > 0) std::memcpy(static_cast<void*>(grown), data_, size_ * sizeof(T));
    } else {
      std::uninitialized_move(data_, data_ + size_, grown);
      std::destroy(data_, data_ + size_);
    }
    if (data_ != inline_data()) std::free(data_);
    data_ = grown;
    capacity_ = n;
  }
  void resize(size_t n, const T& value = T()) {
    if (n <= size_) {
      std::destroy(data_ + n, data_ + size_);
      size_ = n;
      return;
    }
    if (n > capacity_) {
      const T keep = value;  // `value` may live in the storage that reserve() lets go
      reserve(n);
      std::uninitialized_fill(data_ + size_, data_ + n, keep);
    } else {
      std::uninitialized_fill(data_ + size_, data_ + n, value);
    }
    size_ = n;
  }
  void push_back(const T& value) { emplace_back(value); }
  void push_back(T&& value) { emplace_back(std::move(value)); }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) {
      T made(std::forward<Args>(args)...);  // the arguments may refer into this vector
      reserve(std::max<size_t>(2 * capacity_, N));
      return *::new (static_cast<void*>(data_ + size_++)) T(std::move(made));
    }
    return *::new (static_cast<void*>(data_ + size_++)) T(std::forward<Args>(args)...);
  }
  void clear() {
    std::destroy(data_, data_ + size_);
    size_ = 0;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  std::reverse_iterator<iterator> rbegin() { return std::reverse_iterator<iterator>(end()); }
  std::reverse_iterator<iterator> rend() { return std::reverse_iterator<iterator>(begin()); }

  operator ArrayRef<T>() const { return ArrayRef<T>(data_, size_); }  // NOLINT: views convert implicitly
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool operator==(ArrayRef<T> other) const { return ArrayRef<T>(*this) == other; }

 private:
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  void release() {
    clear();
    if (data_ != inline_data()) std::free(data_);
    data_ = inline_data();
    capacity_ = N;
  }
  void take(SmallVector& other) {
    if (other.data_ == other.inline_data()) {
      if constexpr (kTrivial) {
        if (other.size_ > 0) std::memcpy(static_cast<void*>(inline_), other.inline_, other.size_ * sizeof(T));
      } else {
        std::uninitialized_move(other.data_, other.data_ + other.size_, inline_data());
        std::destroy(other.data_, other.data_ + other.size_);
      }
      data_ = inline_data();
      capacity_ = N;
    } else {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_data();
      other.capacity_ = N;
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = inline_data();
  size_t size_ = 0;
  size_t capacity_ = N;
};

// Sizes, strides or a permutation of one tensor's dims; most tensors have
// at most six.
using DimVector = SmallVector<int64_t, 6>;

}  // namespace c10
