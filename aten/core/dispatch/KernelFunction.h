#pragma once
// A kernel as the dispatcher stores it: an unboxed C++ function pointer (the
// fast path), a boxed function over a Stack (for generic callers and
// fallbacks), or the fallthrough marker meaning "skip this key".

#include <aten/core/dispatch/Boxing.h>

#include <functional>
#include <memory>
#include <typeindex>

namespace ember {

class OperatorHandle;

class KernelFunction {
 public:
  using BoxedFn = std::function<void(const OperatorHandle&, c10::DispatchKeySet, Stack&)>;

  KernelFunction() = default;

  static KernelFunction makeFallthrough() {
    KernelFunction k;
    k.fallthrough_ = true;
    return k;
  }

  static KernelFunction makeFromBoxed(BoxedFn fn) {
    KernelFunction k;
    k.boxed_ = std::make_shared<BoxedFn>(std::move(fn));
    return k;
  }

  // From a plain function pointer. A first parameter of type DispatchKeySet
  // receives the keys of the call (for kernels that redispatch).
  template <typename Return, typename... Args>
  static KernelFunction makeFromUnboxedFunction(Return (*fn)(Args...)) {
    KernelFunction k;
    k.unboxed_ = reinterpret_cast<void (*)()>(fn);
    k.typed_ = true;
    k.arg_kinds_ = {boxing::arg_kind<Args>()...};
    if constexpr (sizeof...(Args) > 0 && first_is_keyset<Args...>()) {
      k.signature_ = std::type_index(typeid(typename drop_first<Return, Args...>::type));
      k.takes_keyset_ = true;
      k.arg_kinds_.erase(k.arg_kinds_.begin());
    } else {
      k.signature_ = std::type_index(typeid(Return(Args...)));
    }
    k.boxed_ = std::make_shared<BoxedFn>(
        [fn](const OperatorHandle&, c10::DispatchKeySet ks, Stack& stack) { call_unboxed_from_stack(fn, ks, stack); });
    return k;
  }

  // From a lambda or other function object. A captureless one is the
  // function it converts to; one with state (captures) runs boxed: typed
  // calls box their arguments for it.
  template <typename F>
  static KernelFunction makeFromUnboxedLambda(F f) {
    return from_functor(std::move(f), &F::operator());
  }

  bool isValid() const { return fallthrough_ || boxed_ != nullptr; }
  bool isFallthrough() const { return fallthrough_; }
  bool hasUnboxed() const { return unboxed_ != nullptr; }
  // Made from a C++ function or lambda, so its parameters are known:
  // argKinds() gives them as schema types (a DispatchKeySet left out).
  bool isTyped() const { return typed_; }
  const std::vector<std::optional<boxing::ArgKind>>& argKinds() const { return arg_kinds_; }

  void callBoxed(const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack) const { (*boxed_)(op, ks, stack); }

  template <typename Return, typename... Args>
  Return call(const OperatorHandle& op, c10::DispatchKeySet ks, Args... args) const {
    if (unboxed_ && signature_ == std::type_index(typeid(Return(Args...)))) {
      if (takes_keyset_) {
        return reinterpret_cast<Return (*)(c10::DispatchKeySet, Args...)>(unboxed_)(ks, std::forward<Args>(args)...);
      }
      return reinterpret_cast<Return (*)(Args...)>(unboxed_)(std::forward<Args>(args)...);
    }
    EMBER_CHECK(!unboxed_,
                "kernel signature mismatch: the registered kernel's C++ signature does not match the call's ({})",
                typeid(Return(Args...)).name());
    // Boxed-only kernel: box the arguments, run it, unbox the result.
    Stack stack;
    stack.reserve(sizeof...(Args));
    (stack.emplace_back(args), ...);
    callBoxed(op, ks, stack);
    return boxing::pop_result<Return>(stack, 0);
  }

 private:
  template <typename First, typename... Rest>
  static constexpr bool first_is_keyset() {
    return std::is_same_v<boxing::plain_t<First>, c10::DispatchKeySet>;
  }
  template <typename Return, typename First, typename... Rest>
  struct drop_first {
    using type = Return(Rest...);
  };

  template <typename Return, typename... Args, typename F, size_t... I>
  static void run_from_stack(const F& f, Stack& stack, std::index_sequence<I...>) {
    constexpr size_t n = sizeof...(Args);
    EMBER_CHECK(stack.size() >= n, "boxed call: expected {} arguments on the stack, got {}", n, stack.size());
    const size_t first = stack.size() - n;
    if constexpr (std::is_void_v<Return>) {
      f(boxing::unbox<Args>(stack[first + I])...);
      stack.resize(first);
    } else {
      Return r = f(boxing::unbox<Args>(stack[first + I])...);
      stack.resize(first);
      boxing::push_result(stack, std::move(r));
    }
  }

  // Pops a kernel's arguments off the end of the stack, pushes its results.
  template <typename Return, typename... Args>
  static void call_unboxed_from_stack(Return (*fn)(Args...), c10::DispatchKeySet, Stack& stack) {
    run_from_stack<Return, Args...>(fn, stack, std::index_sequence_for<Args...>());
  }
  template <typename Return, typename... Args>
  static void call_unboxed_from_stack(Return (*fn)(c10::DispatchKeySet, Args...), c10::DispatchKeySet ks,
                                      Stack& stack) {
    auto bound = [fn, ks](Args... args) -> Return { return fn(ks, std::forward<Args>(args)...); };
    run_from_stack<Return, Args...>(bound, stack, std::index_sequence_for<Args...>());
  }

  template <typename F, typename C, typename Return, typename... Args>
  static KernelFunction from_functor(F f, Return (C::*)(Args...) const) {
    if constexpr (std::is_convertible_v<F, Return (*)(Args...)>) {
      return makeFromUnboxedFunction(static_cast<Return (*)(Args...)>(f));
    } else {
      static_assert(!(sizeof...(Args) > 0 && first_is_keyset<Args...>()),
                    "a kernel taking the DispatchKeySet must be a plain function or a captureless lambda");
      KernelFunction k = makeFromBoxed([f = std::move(f)](const OperatorHandle&, c10::DispatchKeySet, Stack& stack) {
        run_from_stack<Return, Args...>(f, stack, std::index_sequence_for<Args...>());
      });
      k.typed_ = true;
      k.arg_kinds_ = {boxing::arg_kind<Args>()...};
      return k;
    }
  }

  void (*unboxed_)() = nullptr;
  std::type_index signature_ = std::type_index(typeid(void));
  bool takes_keyset_ = false;
  bool typed_ = false;
  std::vector<std::optional<boxing::ArgKind>> arg_kinds_;
  bool fallthrough_ = false;
  std::shared_ptr<BoxedFn> boxed_;
};

}  // namespace ember
