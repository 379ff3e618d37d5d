#pragma once
// What options structs are made of: EMBER_ARG(T, name) declares a field
// with a chained setter and a getter, so that keyword arguments read as
// `Conv2dOptions(3, 16, 3).stride(2).padding(1).bias(false)`; IntPair is
// an int or a pair of ints (Python's kernel_size=3 or (3, 5)).

#include <c10/util/ArrayRef.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

#define EMBER_ARG(T, name)                                   \
 public:                                                     \
  auto& name(const T& new_##name) {                          \
    this->name##_ = new_##name;                              \
    return *this;                                            \
  }                                                          \
  const T& name() const noexcept { return this->name##_; }   \
                                                             \
 private:                                                    \
  T name##_

namespace ember::nn {

struct IntPair {
  IntPair(int64_t v) : values{v, v}, single(true) {}
  IntPair(std::initializer_list<int64_t> list);
  int64_t operator[](size_t i) const { return values[i]; }
  c10::IntArrayRef ref() const { return c10::IntArrayRef(values.data(), 2); }
  bool all(int64_t v) const { return values[0] == v && values[1] == v; }
  std::array<int64_t, 2> values;
  bool single = false;  // given as one int (pooling prints it so)
};

// Python's printed forms, for extra_repr: 0.5, 1e-05, 1.0; True; 3 or
// (3, 5) as given; py_tuple always (3, 3), as Python's conv layers store it.
std::string py_repr(double v);
std::string py_repr(bool v);
std::string py_repr(const IntPair& v);
std::string py_tuple(const IntPair& v);

}  // namespace ember::nn
