#pragma once
// Element types. One table (kScalarTypeInfo) holds every per-type fact, and
// one type list (ScalarTypeList) maps each enumerator to its C++ type, so
// adding a dtype means adding one row and one type.

#include <c10/util/BFloat16.h>
#include <c10/util/Exception.h>
#include <c10/util/Half.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <optional>
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
  std::string_view name;         // Python name: "float32"
  std::string_view cpp_name;     // C++ enumerator: "Float"
  std::string_view legacy_name;  // Tensor.type()'s class: "FloatTensor"
  int8_t itemsize;
  TypeKind kind;
  bool is_signed;
  // ember.finfo, for floating types (zero elsewhere; a complex type's are its
  // real type's): machine epsilon, largest finite value, smallest normal
  // value, and the decimal digits it resolves.
  double eps, max, tiny;
  int8_t digits;
  // ember.iinfo, for integral types (and bool): the range.
  int64_t int_min, int_max;
};

namespace detail {
template <typename T>
constexpr int64_t lowest() {
  return static_cast<int64_t>(std::numeric_limits<T>::lowest());
}
template <typename T>
constexpr int64_t highest() {
  return static_cast<int64_t>(std::numeric_limits<T>::max());
}
inline constexpr double kFloatEps = std::numeric_limits<float>::epsilon();
inline constexpr double kFloatMax = std::numeric_limits<float>::max();
inline constexpr double kFloatTiny = std::numeric_limits<float>::min();
inline constexpr double kDoubleEps = std::numeric_limits<double>::epsilon();
inline constexpr double kDoubleMax = std::numeric_limits<double>::max();
inline constexpr double kDoubleTiny = std::numeric_limits<double>::min();
}  // namespace detail

// Half's and BFloat16's rows spell their facts out (IEEE binary16; float32's
// exponent with 8 significand bits): they have no std::numeric_limits.
inline constexpr ScalarTypeInfo kScalarTypeInfo[kNumScalarTypes] = {
    {"bool", "Bool", "BoolTensor", 1, TypeKind::Bool, false, 0, 0, 0, 0, 0, 1},
    {"uint8", "Byte", "ByteTensor", 1, TypeKind::Integral, false, 0, 0, 0, 0, detail::lowest<uint8_t>(),
     detail::highest<uint8_t>()},
    {"int8", "Char", "CharTensor", 1, TypeKind::Integral, true, 0, 0, 0, 0, detail::lowest<int8_t>(),
     detail::highest<int8_t>()},
    {"int16", "Short", "ShortTensor", 2, TypeKind::Integral, true, 0, 0, 0, 0, detail::lowest<int16_t>(),
     detail::highest<int16_t>()},
    {"int32", "Int", "IntTensor", 4, TypeKind::Integral, true, 0, 0, 0, 0, detail::lowest<int32_t>(),
     detail::highest<int32_t>()},
    {"int64", "Long", "LongTensor", 8, TypeKind::Integral, true, 0, 0, 0, 0, detail::lowest<int64_t>(),
     detail::highest<int64_t>()},
    {"float16", "Half", "HalfTensor", 2, TypeKind::Floating, true, 0x1p-10, 65504.0, 0x1p-14, 3, 0, 0},
    {"bfloat16", "BFloat16", "BFloat16Tensor", 2, TypeKind::Floating, true, 0x1p-7, 0x1.fep127, 0x1p-126, 2, 0, 0},
    {"float32", "Float", "FloatTensor", 4, TypeKind::Floating, true, detail::kFloatEps, detail::kFloatMax,
     detail::kFloatTiny, 6, 0, 0},
    {"float64", "Double", "DoubleTensor", 8, TypeKind::Floating, true, detail::kDoubleEps, detail::kDoubleMax,
     detail::kDoubleTiny, 15, 0, 0},
    {"complex64", "ComplexFloat", "ComplexFloatTensor", 8, TypeKind::Complex, true, 0, 0, 0, 0, 0, 0},
    {"complex128", "ComplexDouble", "ComplexDoubleTensor", 16, TypeKind::Complex, true, 0, 0, 0, 0, 0, 0},
};

inline const ScalarTypeInfo& info(ScalarType t) {
  EMBER_CHECK(t != ScalarType::Undefined, "undefined dtype has no properties");
  return kScalarTypeInfo[static_cast<int>(t)];
}

inline std::string_view toString(ScalarType t) { return t == ScalarType::Undefined ? "Undefined" : info(t).cpp_name; }
inline std::string_view python_name(ScalarType t) { return info(t).name; }
// The dtype of a Python name ("float32"); nullopt for none.
std::optional<ScalarType> scalar_type_named(std::string_view python_name);
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
