// Unary elementwise CUDA kernels. The float functions use CUDA's own math
// library (expf, tanhf, ...), computed in the input's precision as torch does.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/cuda/DtypeVisit.cuh>
#include <aten/native/cuda/Loops.cuh>

#include <type_traits>

namespace ember::native {

namespace {

using cuda::gpu_kernel;

// F{}(x) on floating dtypes; integer inputs promote to the default float.
template <typename F>
Tensor float_unary(const Tensor& self, const Tensor& out, const char* name) {
  auto iter = TensorIterator::unary_float_op(out, self, name);
  EMBER_CUDA_DISPATCH_FLOATING(iter.common_dtype(), name, [&] {
    gpu_kernel(iter, [] EMBER_GPU_LAMBDA(scalar_t x) -> scalar_t { return F{}(x); });
  });
  return iter.output();
}

// F{}(x) in the input's own dtype, bool excluded.
template <typename F>
Tensor same_type_unary(const Tensor& self, const Tensor& out, const char* name) {
  auto iter = TensorIterator::unary_op(out, self, name);
  EMBER_CUDA_DISPATCH_NUMBERS(iter.common_dtype(), name, [&] {
    gpu_kernel(iter, [] EMBER_GPU_LAMBDA(scalar_t x) -> scalar_t { return F{}(x); });
  });
  return iter.output();
}

struct Neg {
  template <typename T>
  __host__ __device__ T operator()(T x) const { return static_cast<T>(-x); }
};
struct Abs {
  template <typename T>
  __host__ __device__ T operator()(T x) const { return x < T(0) ? static_cast<T>(-x) : x; }
};
// NaN stays NaN (x < 0 is false for it).
struct Relu {
  template <typename T>
  __host__ __device__ T operator()(T x) const { return x < T(0) ? T(0) : x; }
};

// Each math function in its float and double form.
#define EMBER_CUDA_MATH_FUNCTOR(Name, expr_f, expr_d)           \
  struct Name {                                                 \
    __host__ __device__ float operator()(float x) const {       \
      return expr_f;                                            \
    }                                                           \
    __host__ __device__ double operator()(double x) const {     \
      return expr_d;                                            \
    }                                                           \
  }

EMBER_CUDA_MATH_FUNCTOR(Exp, ::expf(x), ::exp(x));
EMBER_CUDA_MATH_FUNCTOR(Log, ::logf(x), ::log(x));
EMBER_CUDA_MATH_FUNCTOR(Sqrt, ::sqrtf(x), ::sqrt(x));
EMBER_CUDA_MATH_FUNCTOR(Tanh, ::tanhf(x), ::tanh(x));
EMBER_CUDA_MATH_FUNCTOR(Sigmoid, 1.0f / (1.0f + ::expf(-x)), 1.0 / (1.0 + ::exp(-x)));

}  // namespace

Tensor exp_out_cuda(const Tensor& self, const Tensor& out) { return float_unary<Exp>(self, out, "exp"); }
Tensor log_out_cuda(const Tensor& self, const Tensor& out) { return float_unary<Log>(self, out, "log"); }
Tensor sqrt_out_cuda(const Tensor& self, const Tensor& out) { return float_unary<Sqrt>(self, out, "sqrt"); }
Tensor tanh_out_cuda(const Tensor& self, const Tensor& out) { return float_unary<Tanh>(self, out, "tanh"); }
Tensor sigmoid_out_cuda(const Tensor& self, const Tensor& out) { return float_unary<Sigmoid>(self, out, "sigmoid"); }

Tensor neg_out_cuda(const Tensor& self, const Tensor& out) {
  EMBER_CHECK(self.dtype() != ScalarType::Bool,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
              "use the `~` or `logical_not()` operator instead.");
  return same_type_unary<Neg>(self, out, "neg");
}

Tensor abs_out_cuda(const Tensor& self, const Tensor& out) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Bool, "\"abs_cuda\" not implemented for 'Bool'");
  return same_type_unary<Abs>(self, out, "abs");
}

Tensor relu_out_cuda(const Tensor& self, const Tensor& out) {
  EMBER_CHECK(self.dtype() != ScalarType::Bool, "Boolean inputs not supported for relu");
  return same_type_unary<Relu>(self, out, "relu");
}

}  // namespace ember::native
