#include <c10/core/ScalarType.h>

#include <atomic>

namespace c10 {

namespace {

int float_rank(ScalarType t) {
  switch (t) {
    case ScalarType::Half:
    case ScalarType::BFloat16: return 0;
    case ScalarType::Float:
    case ScalarType::ComplexFloat: return 1;
    default: return 2;  // Double, ComplexDouble
  }
}

ScalarType promote_integral(ScalarType a, ScalarType b) {
  const auto& ia = info(a);
  const auto& ib = info(b);
  if (ia.is_signed == ib.is_signed) return ia.itemsize >= ib.itemsize ? a : b;
  // Mixed signedness: uint8 is the only unsigned type; it fits in any wider
  // signed type, and with int8 both fit in int16.
  const ScalarType signed_type = ia.is_signed ? a : b;
  return signed_type == ScalarType::Char ? ScalarType::Short : signed_type;
}

ScalarType promote_floating(ScalarType a, ScalarType b) {
  if (a == b) return a;
  const int ra = float_rank(a), rb = float_rank(b);
  if (ra == 0 && rb == 0) return ScalarType::Float;  // half + bfloat16: neither holds the other
  return ra >= rb ? a : b;
}

std::atomic<ScalarType> default_dtype{ScalarType::Float};

}  // namespace

ScalarType promoteTypes(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined || b == ScalarType::Undefined) return ScalarType::Undefined;
  const TypeKind ka = info(a).kind, kb = info(b).kind;
  if (ka == TypeKind::Complex || kb == TypeKind::Complex) {
    const int rank = std::max(ka == TypeKind::Bool || ka == TypeKind::Integral ? 0 : float_rank(a),
                              kb == TypeKind::Bool || kb == TypeKind::Integral ? 0 : float_rank(b));
    return rank == 2 ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
  }
  if (ka == TypeKind::Floating || kb == TypeKind::Floating) {
    if (ka != TypeKind::Floating) return b;
    if (kb != TypeKind::Floating) return a;
    return promote_floating(a, b);
  }
  if (ka == TypeKind::Bool) return b;
  if (kb == TypeKind::Bool) return a;
  return promote_integral(a, b);
}

ScalarType toComplexType(ScalarType real) {
  switch (real) {
    case ScalarType::Double:
    case ScalarType::ComplexDouble: return ScalarType::ComplexDouble;
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::Float:
    case ScalarType::ComplexFloat: return ScalarType::ComplexFloat;
    default: break;
  }
  EMBER_CHECK_TYPE(false, "no complex type corresponds to {}", toString(real));
}

ScalarType toRealValueType(ScalarType t) {
  switch (t) {
    case ScalarType::ComplexFloat: return ScalarType::Float;
    case ScalarType::ComplexDouble: return ScalarType::Double;
    default: return t;
  }
}

ScalarType get_default_dtype() { return default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
                       t == ScalarType::BFloat16,
                   "only floating-point types are supported as the default type");
  default_dtype.store(t, std::memory_order_relaxed);
}

ScalarType get_default_complex_dtype() {
  return get_default_dtype() == ScalarType::Double ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
}

std::optional<ScalarType> scalar_type_named(std::string_view name) {
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const auto t = static_cast<ScalarType>(i);
    if (python_name(t) == name) return t;
  }
  return std::nullopt;
}

}  // namespace c10
