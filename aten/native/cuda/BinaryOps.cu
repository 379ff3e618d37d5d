// Binary elementwise CUDA kernels: arithmetic, comparisons, maximum and
// minimum, where. The TensorIterator builders are the CPU kernels' own, so
// shapes, promotion and out= rules are the same on both devices.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/cuda/DtypeVisit.cuh>
#include <aten/native/cuda/Loops.cuh>

#include <type_traits>

namespace ember::native {

namespace {

using cuda::gpu_kernel;

// F{}(a, b) over the iterator's common dtype, bool excluded.
template <typename F>
Tensor arithmetic(TensorIterator iter, const char* name) {
  EMBER_CUDA_DISPATCH_NUMBERS(iter.common_dtype(), name, [&] {
    gpu_kernel(iter, [] EMBER_GPU_LAMBDA(scalar_t a, scalar_t b) -> scalar_t { return F{}(a, b); });
  });
  return iter.output();
}

struct Mul {
  template <typename T>
  __host__ __device__ T operator()(T a, T b) const { return a * b; }
};
struct Div {
  template <typename T>
  __host__ __device__ T operator()(T a, T b) const { return a / b; }
};
// NaN wins, as in torch.maximum / torch.minimum.
template <bool kMax>
struct Extreme {
  template <typename T>
  __host__ __device__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a || b != b) return a + b;
    }
    return kMax ? (a > b ? a : b) : (a < b ? a : b);
  }
};

enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };

Tensor comparison(const Tensor& self, const Tensor& other, const Tensor& out, const char* name, Compare kind) {
  auto iter = TensorIterator::comparison_op(out, self, other, name);
  EMBER_CUDA_DISPATCH_ALL(iter.common_dtype(), name, [&] {
    using T = scalar_t;
    switch (kind) {
      case Compare::Eq: gpu_kernel(iter, [] EMBER_GPU_LAMBDA(T a, T b) -> bool { return a == b; }); break;
      case Compare::Ne: gpu_kernel(iter, [] EMBER_GPU_LAMBDA(T a, T b) -> bool { return a != b; }); break;
      case Compare::Lt: gpu_kernel(iter, [] EMBER_GPU_LAMBDA(T a, T b) -> bool { return a < b; }); break;
      case Compare::Le: gpu_kernel(iter, [] EMBER_GPU_LAMBDA(T a, T b) -> bool { return a <= b; }); break;
      case Compare::Gt: gpu_kernel(iter, [] EMBER_GPU_LAMBDA(T a, T b) -> bool { return a > b; }); break;
      case Compare::Ge: gpu_kernel(iter, [] EMBER_GPU_LAMBDA(T a, T b) -> bool { return a >= b; }); break;
    }
  });
  return iter.output();
}

}  // namespace

Tensor add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "add");
  if (iter.common_dtype() == ScalarType::Bool) {
    gpu_kernel(iter, [] EMBER_GPU_LAMBDA(bool a, bool b) -> bool { return a || b; });
    return iter.output();
  }
  EMBER_CHECK(!alpha.isFloatingPoint() || !c10::isIntegralType(iter.common_dtype(), true),
              "For integral input tensors, argument alpha must not be a floating point number.");
  EMBER_CUDA_DISPATCH_NUMBERS(iter.common_dtype(), "add", [&] {
    using T = scalar_t;
    const T a = alpha.to<T>();
    if (a == T(1)) {
      gpu_kernel(iter, [] EMBER_GPU_LAMBDA(T x, T y) -> T { return x + y; });
    } else {
      gpu_kernel(iter, [a] EMBER_GPU_LAMBDA(T x, T y) -> T { return x + a * y; });
    }
  });
  return iter.output();
}

Tensor mul_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, other, "mul");
  if (iter.common_dtype() == ScalarType::Bool) {
    gpu_kernel(iter, [] EMBER_GPU_LAMBDA(bool a, bool b) -> bool { return a && b; });
    return iter.output();
  }
  return arithmetic<Mul>(std::move(iter), "mul");
}

// relu's gradient: grad where self > threshold, else 0 (NaN lets it through).
Tensor threshold_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& threshold,
                                   const Tensor& grad_input) {
  auto iter = TensorIterator::binary_op(grad_input, grad_output, self, "threshold_backward");
  EMBER_CUDA_DISPATCH_NUMBERS(iter.common_dtype(), "threshold_backward", [&] {
    using T = scalar_t;
    const T limit = threshold.to<T>();
    gpu_kernel(iter, [limit] EMBER_GPU_LAMBDA(T grad, T x) -> T { return x <= limit ? T(0) : grad; });
  });
  return iter.output();
}

Tensor div_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return arithmetic<Div>(TensorIterator::binary_float_op(out, self, other, "div"), "div");
}

Tensor maximum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  EMBER_CHECK(!self.is_complex() && !other.is_complex(), "maximum not implemented for complex tensors.");
  return arithmetic<Extreme<true>>(TensorIterator::binary_op(out, self, other, "maximum"), "maximum");
}

Tensor minimum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  EMBER_CHECK(!self.is_complex() && !other.is_complex(), "minimum not implemented for complex tensors.");
  return arithmetic<Extreme<false>>(TensorIterator::binary_op(out, self, other, "minimum"), "minimum");
}

Tensor pow_out_cuda(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  auto iter = TensorIterator::binary_op(out, self, exponent, "pow");
  EMBER_CUDA_DISPATCH_FLOATING(iter.common_dtype(), "pow", [&] {
    using T = scalar_t;
    gpu_kernel(iter, [] EMBER_GPU_LAMBDA(T a, T b) -> T {
      if (b == T(2)) return a * a;  // the common square: exact, as torch's
      return ::pow(a, b);
    });
  });
  return iter.output();
}

Tensor eq_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return comparison(self, other, out, "eq", Compare::Eq);
}
Tensor ne_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return comparison(self, other, out, "ne", Compare::Ne);
}
Tensor lt_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return comparison(self, other, out, "lt", Compare::Lt);
}
Tensor le_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return comparison(self, other, out, "le", Compare::Le);
}
Tensor gt_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return comparison(self, other, out, "gt", Compare::Gt);
}
Tensor ge_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return comparison(self, other, out, "ge", Compare::Ge);
}

Tensor where_out_cuda(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  auto iter = TensorIterator::where_op(out, condition, self, other);
  EMBER_CUDA_DISPATCH_ALL(iter.dtype(0), "where", [&] {
    using T = scalar_t;
    gpu_kernel(iter, [] EMBER_GPU_LAMBDA(bool c, T a, T b) -> T { return c ? a : b; });
  });
  return iter.output();
}

}  // namespace ember::native
