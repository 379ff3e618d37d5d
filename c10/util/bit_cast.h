#pragma once
#include <cstring>
#include <type_traits>

namespace c10 {
// std::bit_cast arrives in C++20; this is the memcpy form compilers fold away.
template <typename To, typename From>
To bit_cast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<From> && std::is_trivially_copyable_v<To>);
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}
}  // namespace c10
