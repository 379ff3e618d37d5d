#pragma once
// The argument and result types of a kernel's scalar function (a lambda or
// a function pointer), shared by the CPU and CUDA loops.

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace ember::native {

template <typename F>
struct function_traits : function_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... Args>
struct function_traits<R (C::*)(Args...) const> {
  using result = R;
  using args = std::tuple<std::decay_t<Args>...>;
  static constexpr size_t arity = sizeof...(Args);
};
template <typename R, typename... Args>
struct function_traits<R (*)(Args...)> {
  using result = R;
  using args = std::tuple<std::decay_t<Args>...>;
  static constexpr size_t arity = sizeof...(Args);
};

}  // namespace ember::native
