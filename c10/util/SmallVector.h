#pragma once

// A vector of trivially copyable values that keeps up to N of them inline
// and goes to the heap only beyond: per-dimension sizes, strides and
// per-operand pointers of one operator call, which would otherwise cost a
// heap allocation each on every call (the tiny-tensor overhead).

#include <c10/util/ArrayRef.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>
#include <vector>

namespace c10 {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable values only");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  explicit SmallVector(size_t n, T value = T()) { assign(n, value); }
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

  void assign(size_t n, T value) {
    resize_uninitialized(n);
    std::fill_n(data_, n, value);
  }
  void assign(const T* first, const T* last) {
    const size_t n = static_cast<size_t>(last - first);
    if (n > capacity_) {  // `first` may point into this vector: copy before freeing
      SmallVector copy;
      copy.reserve(n);
      std::memcpy(static_cast<void*>(copy.data_), first, n * sizeof(T));
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
    std::memcpy(static_cast<void*>(grown), data_, size_ * sizeof(T));
    if (data_ != inline_) std::free(data_);
    data_ = grown;
    capacity_ = n;
  }
  void resize(size_t n, T value = T()) {
    const size_t old = size_;
    resize_uninitialized(n);
    if (n > old) std::fill(data_ + old, data_ + n, value);
  }
  void push_back(T value) {
    if (size_ == capacity_) reserve(std::max<size_t>(2 * capacity_, N));
    data_[size_++] = value;
  }
  void clear() { size_ = 0; }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
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
  void resize_uninitialized(size_t n) {
    reserve(n);
    size_ = n;
  }
  void release() {
    if (data_ != inline_) std::free(data_);
    data_ = inline_;
    capacity_ = N;
    size_ = 0;
  }
  void take(SmallVector& other) {
    if (other.data_ == other.inline_) {
      std::memcpy(static_cast<void*>(inline_), other.inline_, other.size_ * sizeof(T));
      data_ = inline_;
      capacity_ = N;
    } else {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_;
      other.capacity_ = N;
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  T inline_[N];
  T* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = N;
};

// Sizes, strides or a permutation of one tensor's dims; most tensors have
// at most six.
using DimVector = SmallVector<int64_t, 6>;

}  // namespace c10
