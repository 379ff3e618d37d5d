#pragma once
// Element types. One table (kScalarTypeInfo) holds every per-type fact, and
// one type list (ScalarTypeList) maps each enumerator to its C++ type, so
// adding a dtype means adding one row and one type.

#include <c10/util/BFloat16.h>
#include <c10/util/Exception.h>
#include <c10/util/Half.h>

#include <complex>
#include <cstdint>
#include <string_view>
#include <tuple>

namespace c10 {

template <typename T>
using complex = std::complex<T>;

enum class ScalarType : int8_t {
  Bool,
  Byte,
  Char,
  Short,
  Int,
  Long,
  Half,
  BFloat16,
  Float,
  Double,
  ComplexFloat,
  ComplexDouble,
  Undefined,
};

constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

using ScalarTypeList = std::tuple<bool, uint8_t, int8_t, int16_t, int32_t, int64_t, c10::Half, c10::BFloat16, float,
                                  double, complex<float>, complex<double>>;
static_assert(std::tuple_size_v<ScalarTypeList> == kNumScalarTypes);

enum class TypeKind : int8_t { Bool, Integral, Floating, Complex };

struct ScalarTypeInfo {
  std::string_view name;      // Python name: "float32"
  std::string_view cpp_name;  // C++ enumerator: "Float"
  int8_t itemsize;
  TypeKind kind;
  bool is_signed;
};

inline constexpr ScalarTypeInfo kScalarTypeInfo[kNumScalarTypes] = {
    {"bool", "Bool", 1, TypeKind::Bool, false},
    {"uint8", "Byte", 1, TypeKind::Integral, false},
    {"int8", "Char", 1, TypeKind::Integral, true},
    {"int16", "Short", 2, TypeKind::Integral, true},
    {"int32", "Int", 4, TypeKind::Integral, true},
    {"int64", "Long", 8, TypeKind::Integral, true},
    {"float16", "Half", 2, TypeKind::Floating, true},
    {"bfloat16", "BFloat16", 2, TypeKind::Floating, true},
    {"float32", "Float", 4, TypeKind::Floating, true},
    {"float64", "Double", 8, TypeKind::Floating, true},
    {"complex64", "ComplexFloat", 8, TypeKind::Complex, true},
    {"complex128", "ComplexDouble", 16, TypeKind::Complex, true},
};

inline const ScalarTypeInfo& info(ScalarType t) {
  EMBER_CHECK(t != ScalarType::Undefined, "undefined dtype has no properties");
  return kScalarTypeInfo[static_cast<int>(t)];
}

inline std::string_view toString(ScalarType t) { return t == ScalarType::Undefined ? "Undefined" : info(t).cpp_name; }
inline std::string_view python_name(ScalarType t) { return info(t).name; }
inline size_t elementSize(ScalarType t) { return static_cast<size_t>(info(t).itemsize); }
inline bool isFloatingType(ScalarType t) { return info(t).kind == TypeKind::Floating; }
inline bool isComplexType(ScalarType t) { return info(t).kind == TypeKind::Complex; }
inline bool isIntegralType(ScalarType t, bool include_bool) {
  const TypeKind k = info(t).kind;
  return k == TypeKind::Integral || (include_bool && k == TypeKind::Bool);
}
inline bool isSignedType(ScalarType t) { return info(t).is_signed; }

// The C++ type of each ScalarType and back.
template <ScalarType S>
using scalar_type_t = std::tuple_element_t<static_cast<size_t>(S), ScalarTypeList>;

namespace detail {
template <typename T, size_t I = 0>
constexpr ScalarType scalar_type_of() {
  if constexpr (I == kNumScalarTypes) {
    return ScalarType::Undefined;
  } else if constexpr (std::is_same_v<T, std::tuple_element_t<I, ScalarTypeList>>) {
    return static_cast<ScalarType>(I);
  } else {
    return scalar_type_of<T, I + 1>();
  }
}
}  // namespace detail

template <typename T>
inline constexpr ScalarType cpp_to_scalar_type = detail::scalar_type_of<T>();

template <typename T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) with the C++ type of `t`: the template-based
// replacement for ATen's AT_DISPATCH macros.
template <typename F>
decltype(auto) visit_scalar_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Bool: return f(type_tag<bool>{});
    case ScalarType::Byte: return f(type_tag<uint8_t>{});
    case ScalarType::Char: return f(type_tag<int8_t>{});
    case ScalarType::Short: return f(type_tag<int16_t>{});
    case ScalarType::Int: return f(type_tag<int32_t>{});
    case ScalarType::Long: return f(type_tag<int64_t>{});
    case ScalarType::Half: return f(type_tag<c10::Half>{});
    case ScalarType::BFloat16: return f(type_tag<c10::BFloat16>{});
    case ScalarType::Float: return f(type_tag<float>{});
    case ScalarType::Double: return f(type_tag<double>{});
    case ScalarType::ComplexFloat: return f(type_tag<complex<float>>{});
    case ScalarType::ComplexDouble: return f(type_tag<complex<double>>{});
    case ScalarType::Undefined: break;
  }
  EMBER_CHECK(false, "visit_scalar_type: undefined dtype");
}

// Type promotion as in torch.promote_types.
ScalarType promoteTypes(ScalarType a, ScalarType b);
ScalarType toComplexType(ScalarType real);
ScalarType toRealValueType(ScalarType t);

// The dtype of floating point tensors created without an explicit dtype.
ScalarType get_default_dtype();
void set_default_dtype(ScalarType t);
ScalarType get_default_complex_dtype();

}  // namespace c10
