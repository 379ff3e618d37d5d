#pragma once
// Conversions between C++ argument/return types and IValues, used to call an
// unboxed kernel from a Stack and to call a boxed kernel with C++ arguments.

#include <aten/core/dispatch/FunctionSchema.h>
#include <aten/core/dispatch/IValue.h>

#include <tuple>
#include <type_traits>

namespace ember::boxing {

template <typename T>
using plain_t = std::remove_cv_t<std::remove_reference_t<T>>;

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

template <typename T>
struct is_bool_array : std::false_type {};
template <size_t N>
struct is_bool_array<std::array<bool, N>> : std::true_type {};

template <typename T>
struct is_tuple : std::false_type {};
template <typename... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};

// The schema type (kind, list or not) a kernel's C++ argument type stands
// for, optional or not; nullopt for a type the check does not know.
struct ArgKind {
  SchemaType::Kind kind;
  bool is_list;
};

template <typename T>
constexpr std::optional<ArgKind> arg_kind() {
  using P = plain_t<T>;
  using K = SchemaType::Kind;
  if constexpr (is_optional<P>::value) {
    return arg_kind<typename P::value_type>();
  } else if constexpr (std::is_same_v<P, Tensor>) {
    return ArgKind{K::Tensor, false};
  } else if constexpr (std::is_same_v<P, std::vector<Tensor>> || std::is_same_v<P, c10::ArrayRef<Tensor>> ||
                       std::is_same_v<P, std::vector<std::optional<Tensor>>>) {
    return ArgKind{K::Tensor, true};
  } else if constexpr (std::is_same_v<P, int64_t>) {
    return ArgKind{K::Int, false};
  } else if constexpr (std::is_same_v<P, IntArrayRef> || std::is_same_v<P, std::vector<int64_t>>) {
    return ArgKind{K::Int, true};
  } else if constexpr (std::is_same_v<P, double>) {
    return ArgKind{K::Float, false};
  } else if constexpr (std::is_same_v<P, c10::ArrayRef<double>> || std::is_same_v<P, std::vector<double>>) {
    return ArgKind{K::Float, true};
  } else if constexpr (std::is_same_v<P, bool>) {
    return ArgKind{K::Bool, false};
  } else if constexpr (is_bool_array<P>::value || std::is_same_v<P, std::vector<bool>>) {
    return ArgKind{K::Bool, true};
  } else if constexpr (std::is_same_v<P, std::string_view> || std::is_same_v<P, std::string>) {
    return ArgKind{K::Str, false};
  } else if constexpr (std::is_same_v<P, Scalar>) {
    return ArgKind{K::Scalar, false};
  } else if constexpr (std::is_same_v<P, ScalarType>) {
    return ArgKind{K::ScalarType, false};
  } else if constexpr (std::is_same_v<P, Device>) {
    return ArgKind{K::Device, false};
  } else if constexpr (std::is_same_v<P, Generator>) {
    return ArgKind{K::Generator, false};
  } else if constexpr (std::is_same_v<P, c10::MemoryFormat>) {
    return ArgKind{K::MemoryFormat, false};
  } else {
    return std::nullopt;
  }
}

// Reads argument type T (as a kernel declares it) out of an IValue. The
// IValue outlives the call, so views like IntArrayRef into it stay valid.
template <typename T>
decltype(auto) unbox(const IValue& v) {
  using P = plain_t<T>;
  if constexpr (std::is_same_v<P, Tensor>) {
    if (v.isNone()) {
      static const Tensor undefined;
      return (undefined);
    }
    return v.toTensor();
  } else if constexpr (is_optional<P>::value) {
    using E = typename P::value_type;
    if (v.isNone()) return P();
    if constexpr (std::is_same_v<E, IntArrayRef>) {
      return P(IntArrayRef(v.toIntList()));
    } else if constexpr (std::is_same_v<E, c10::ArrayRef<double>>) {
      return P(c10::ArrayRef<double>(v.toDoubleList()));
    } else {
      return P(unbox<E>(v));
    }
  } else if constexpr (std::is_same_v<P, int64_t>) {
    return v.toInt();
  } else if constexpr (std::is_same_v<P, double>) {
    return v.toDouble();
  } else if constexpr (std::is_same_v<P, bool>) {
    return v.toBool();
  } else if constexpr (std::is_same_v<P, Scalar>) {
    return v.toScalar();
  } else if constexpr (std::is_same_v<P, IntArrayRef>) {
    return IntArrayRef(v.toIntList());
  } else if constexpr (std::is_same_v<P, c10::ArrayRef<double>>) {
    return c10::ArrayRef<double>(v.toDoubleList());
  } else if constexpr (is_bool_array<P>::value) {
    const std::vector<bool>& list = v.toBoolList();
    EMBER_CHECK(list.size() == std::tuple_size_v<P>, "expected a list of {} bools but got {}", std::tuple_size_v<P>,
                list.size());
    P out{};
    for (size_t i = 0; i < out.size(); ++i) out[i] = list[i];
    return out;
  } else if constexpr (std::is_same_v<P, c10::ArrayRef<Tensor>>) {
    return c10::ArrayRef<Tensor>(v.toTensorList());
  } else if constexpr (std::is_same_v<P, std::vector<Tensor>>) {
    return v.toTensorList();
  } else if constexpr (std::is_same_v<P, std::vector<std::optional<Tensor>>>) {
    return v.toOptionalTensorList();
  } else if constexpr (std::is_same_v<P, std::string_view> || std::is_same_v<P, std::string>) {
    return P(v.toStringRef());
  } else if constexpr (std::is_same_v<P, ScalarType>) {
    return v.toScalarType();
  } else if constexpr (std::is_same_v<P, Device>) {
    return v.toDevice();
  } else if constexpr (std::is_same_v<P, Generator>) {
    return v.toGenerator();
  } else if constexpr (std::is_same_v<P, c10::MemoryFormat>) {
    return v.toMemoryFormat();
  } else {
    static_assert(sizeof(P) == 0, "this C++ type cannot appear in an operator signature");
  }
}

// Pushes a kernel's result onto the stack: tuples as several values.
template <typename R>
void push_result(Stack& stack, R&& result) {
  using P = plain_t<R>;
  if constexpr (is_tuple<P>::value) {
    std::apply([&](auto&&... elems) { (stack.emplace_back(elems), ...); }, result);
  } else {
    stack.emplace_back(std::forward<R>(result));
  }
}

template <typename R, size_t... I>
R pop_tuple(Stack& stack, size_t first, std::index_sequence<I...>) {
  return R(unbox<std::tuple_element_t<I, R>>(stack[first + I])...);
}

// Takes a result of type R off the stack after a boxed call.
template <typename R>
R pop_result(Stack& stack, size_t first) {
  if constexpr (std::is_void_v<R>) {
    return;
  } else if constexpr (is_tuple<R>::value) {
    return pop_tuple<R>(stack, first, std::make_index_sequence<std::tuple_size_v<R>>());
  } else {
    return unbox<R>(stack[first]);
  }
}

// The key set a call's tensors carry; without tensors, the backend of a
// Device argument (BackendSelect's job in PyTorch), else none. Fed one
// argument at a time, in schema order, through arg().
struct KeySetCollector {
  c10::DispatchKeySet keys;
  std::optional<Device> device;
  // The first tensor argument that is not a CPU scalar, and one on another
  // device than it (if any): kernels assume their tensors share a device,
  // which the dispatcher checks for them (OperatorEntry::check_arguments).
  // 0-dim CPU tensors go with any device, as TensorIterator allows.
  const c10::TensorImpl* first = nullptr;
  const c10::TensorImpl* elsewhere = nullptr;
  // Bit i: argument i is an undefined Tensor (or None), which the op's
  // schema may or may not allow (OperatorEntry::check_arguments decides).
  uint64_t undefined = 0;
  int position = 0;

  template <typename T>
  void arg(const T& a) {
    add(a);
    ++position;
  }

  c10::DispatchKeySet result() const {
    if (!keys.empty()) return keys;
    return c10::DispatchKeySet(c10::backendKey(device.value_or(Device(DeviceType::CPU)).type));
  }

 private:
  void note_undefined() {
    if (position < 64) undefined |= uint64_t{1} << position;
  }
  void add(const Tensor& t) {
    if (!t.defined()) return note_undefined();
    add_defined(t);
  }
  void add(const std::optional<Tensor>& t) {
    if (t && t->defined()) add_defined(*t);
  }
  void add_defined(const Tensor& t) {
    const c10::TensorImpl* impl = t.unsafeGetTensorImpl();
    keys = keys | impl->key_set();
    if (impl->dim() == 0 && impl->device().is_cpu()) return;
    if (first == nullptr) {
      first = impl;
    } else if (elsewhere == nullptr && impl->device() != first->device()) {
      elsewhere = impl;
    }
  }
  void add(c10::ArrayRef<Tensor> ts) {
    for (const Tensor& t : ts) add(t);
  }
  void add(const std::vector<Tensor>& ts) { add(c10::ArrayRef<Tensor>(ts)); }
  void add(const std::vector<std::optional<Tensor>>& ts) {
    for (const auto& t : ts) add(t);
  }
  void add(const std::optional<Device>& d) {
    if (d && !device) device = d;
  }
  void add(const IValue& v) {
    if (v.isNone()) {
      note_undefined();
    } else if (v.isTensor()) {
      add(v.toTensor());
    } else if (v.isTensorList()) {
      add(v.toTensorList());
    } else if (std::holds_alternative<std::vector<std::optional<Tensor>>>(v.payload())) {
      add(v.toOptionalTensorList());
    } else if (std::holds_alternative<Device>(v.payload())) {
      add(std::optional<Device>(v.toDevice()));
    }
  }
  template <typename T>
  void add(const T&) {}
};

}  // namespace ember::boxing
