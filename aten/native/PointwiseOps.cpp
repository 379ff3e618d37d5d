// Fused pointwise updates with three operands: addcmul, addcdiv and lerp,
// the inner steps of optimizers. One pass over memory instead of the two
// or three temporaries their compositions would allocate.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/DtypeVisit.h>
#include <aten/native/cpu/Loops.h>

#include <cmath>

namespace ember::native {

namespace {

using cpu::opmath_t;

TensorIterator ternary_op(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, const char* name) {
  return TensorIteratorConfig()
      .name(name)
      .add_output(out)
      .add_input(a)
      .add_input(b)
      .add_input(c)
      .promote_inputs_to_common_dtype()
      .cast_common_dtype_to_outputs()
      .enforce_safe_casting_to_output()
      .build();
}

// torch's lerp: two formulas, each exact at its own end (weight 0 or 1).
template <typename M, typename W>
M lerp_value(M start, M end, W weight) {
  using std::abs;
  return abs(weight) < 0.5 ? start + weight * (end - start) : end - (end - start) * (W(1) - weight);
}

// The C++ element type's name, which is what PyTorch's lerp messages print.
std::string_view element_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Byte: return "unsigned char";
    case ScalarType::Char: return "signed char";
    case ScalarType::Short: return "short int";
    case ScalarType::Int: return "int";
    case ScalarType::Long: return "long int";
    case ScalarType::Half: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float: return "float";
    case ScalarType::Double: return "double";
    case ScalarType::ComplexFloat: return "c10::complex<float>";
    case ScalarType::ComplexDouble: return "c10::complex<double>";
    default: return c10::toString(t);
  }
}

void check_lerp_dtype(const Tensor& self, const Tensor& other, const char* role) {
  EMBER_CHECK(self.dtype() == other.dtype(), "expected dtype {} for `{}` but got dtype {}",
              element_type_name(self.dtype()), role, element_type_name(other.dtype()));
}

}  // namespace

Tensor addcmul_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                   const Tensor& out) {
  auto iter = ternary_op(out, self, tensor1, tensor2, "addcmul");
  cpu::visit_supported<cpu::NotBool>(iter, "addcmul_cpu_out", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const M v = value.to<M>();
    cpu::cpu_kernel(iter, [v](T s, T a, T b) -> T {
      return static_cast<T>(cpu::wrapping_add(M(s), cpu::wrapping_mul(cpu::wrapping_mul(v, M(a)), M(b))));
    });
  });
  return iter.output();
}

Tensor addcdiv_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                   const Tensor& out) {
  EMBER_CHECK(!c10::isIntegralType(tensor1.dtype(), true) || !c10::isIntegralType(tensor2.dtype(), true),
              "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
              "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
              "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + "
              "value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
              "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  auto iter = ternary_op(out, self, tensor1, tensor2, "addcdiv");
  cpu::visit_supported<cpu::NotBool>(iter, "addcdiv_cpu_out", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const M v = value.to<M>();
    cpu::cpu_kernel(iter, [v](T s, T a, T b) -> T { return static_cast<T>(M(s) + v * (M(a) / M(b))); });
  });
  return iter.output();
}

Tensor lerp_out(const Tensor& self, const Tensor& end, const Scalar& weight, const Tensor& out) {
  check_lerp_dtype(self, end, "end");
  auto iter = TensorIteratorConfig().name("lerp").add_output(out).add_input(self).add_input(end).build();
  cpu::visit_supported<cpu::FloatingOrComplex>(iter, "lerp_kernel_scalar", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const M w = weight.to<M>();
    // lerp_value's branch on the weight, taken once: a branch in the loop
    // keeps it from vectorizing.
    using std::abs;
    if (abs(w) < 0.5) {
      cpu::cpu_kernel(iter, [w](T s, T e) -> T { return static_cast<T>(M(s) + w * (M(e) - M(s))); });
    } else {
      cpu::cpu_kernel(iter, [w](T s, T e) -> T { return static_cast<T>(M(e) - (M(e) - M(s)) * (M(1) - w)); });
    }
  });
  return iter.output();
}

Tensor lerp_out(const Tensor& self, const Tensor& end, const Tensor& weight, const Tensor& out) {
  check_lerp_dtype(self, end, "end");
  check_lerp_dtype(self, weight, "weight");
  auto iter = TensorIteratorConfig().name("lerp").add_output(out).add_input(self).add_input(end).add_input(weight).build();
  cpu::visit_supported<cpu::FloatingOrComplex>(iter, "lerp_kernel_tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    cpu::cpu_kernel(iter, [](T s, T e, T w) -> T { return static_cast<T>(lerp_value(M(s), M(e), M(w))); });
  });
  return iter.output();
}

}  // namespace ember::native
