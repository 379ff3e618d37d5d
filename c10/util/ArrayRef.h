#pragma once
// A non-owning view of a contiguous array, like c10::ArrayRef. Sizes and
// strides are passed around as IntArrayRef so callers can hand in a vector,
// an initializer list or a small inline buffer without copying.

#include <c10/util/Exception.h>

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <vector>

namespace c10 {

template <typename T>
class ArrayRef {
 public:
  using value_type = T;
  using const_iterator = const T*;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T* data, size_t length) : data_(data), length_(length) {}
  constexpr ArrayRef(const T& one) : data_(&one), length_(1) {}
  template <typename A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), length_(v.size()) {}
  // Only valid for the duration of the full-expression, as in c10.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr ArrayRef(const std::initializer_list<T>& il)
      : data_(il.begin() == il.end() ? nullptr : il.begin()), length_(il.size()) {}
#pragma GCC diagnostic pop

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return length_; }
  constexpr bool empty() const { return length_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + length_; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[length_ - 1]; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& at(size_t i) const {
    EMBER_CHECK_INDEX(i < length_, "ArrayRef index {} out of range for length {}", i, length_);
    return data_[i];
  }
  ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }
  ArrayRef slice(size_t start) const { return slice(start, length_ - start); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(ArrayRef a, ArrayRef b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }
  friend bool operator!=(ArrayRef a, ArrayRef b) { return !(a == b); }

 private:
  const T* data_ = nullptr;
  size_t length_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;

// "[2, 3]": the way PyTorch prints sizes inside error messages.
inline std::string str_sizes(IntArrayRef sizes) { return fmt::format("[{}]", fmt::join(sizes, ", ")); }

}  // namespace c10
