// Matrix products: mm, bmm, addmm, mv, dot, matmul, linear. Float, double
// and complex GEMMs go to OpenBLAS; other dtypes use a plain loop.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/core/ExpandUtils.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/ElementwiseTraits.h>

#include <cblas.h>

namespace ember::native {

namespace {

// A matrix operand in BLAS terms: row-major data with leading dimension ld,
// possibly read transposed. Operands with neither unit stride are copied.
struct BlasOperand {
  Tensor t;
  bool transposed = false;
  int64_t ld = 1;
};

BlasOperand blas_operand(const Tensor& m) {
  const int64_t rows = m.size(0), cols = m.size(1);
  if (!m.is_conj() && (m.stride(1) == 1 || cols == 1) && m.stride(0) >= std::max<int64_t>(cols, 1)) {
    return {m, false, std::max<int64_t>(m.stride(0), std::max<int64_t>(cols, 1))};
  }
  if (!m.is_conj() && (m.stride(0) == 1 || rows == 1) && m.stride(1) >= std::max<int64_t>(rows, 1)) {
    return {m, true, std::max<int64_t>(m.stride(1), std::max<int64_t>(rows, 1))};
  }
  const Tensor c = m.contiguous().resolve_conj();
  return {c, false, std::max<int64_t>(cols, 1)};
}

template <typename T>
void naive_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha_s, const Scalar& beta_s) {
  using M = cpu::opmath_t<T>;
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const T* A = static_cast<const T*>(a.data_ptr());
  const T* B = static_cast<const T*>(b.data_ptr());
  T* C = static_cast<T*>(c.data_ptr());
  const int64_t as0 = a.stride(0), as1 = a.stride(1), bs0 = b.stride(0), bs1 = b.stride(1), cs0 = c.stride(0),
                cs1 = c.stride(1);
  const M alpha = alpha_s.to<M>(), beta = beta_s.to<M>();
  parallel_for(0, m, std::max<int64_t>(1, 4096 / std::max<int64_t>(n * k, 1)), [&](int64_t b0, int64_t e0) {
    for (int64_t i = b0; i < e0; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        M acc = M(0);
        for (int64_t p = 0; p < k; ++p) acc += M(A[i * as0 + p * as1]) * M(B[p * bs0 + j * bs1]);
        T& out = C[i * cs0 + j * cs1];
        out = static_cast<T>(beta == M(0) ? alpha * acc : alpha * acc + beta * M(out));
      }
    }
  });
}

// c = beta * c + alpha * a @ b for 2-D a [m, k], b [k, n], c [m, n] (c contiguous rows).
void gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta.toComplexDouble() == 0.0) {
      c.zero_();
    } else {
      c.mul_(beta);
    }
    return;
  }
  const ScalarType t = c.dtype();
  const bool blas = t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::ComplexFloat ||
                    t == ScalarType::ComplexDouble;
  if (!blas) {
    c10::visit_scalar_type(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        EMBER_CHECK_NOT_IMPLEMENTED(false, "\"addmm\" not implemented for 'Bool'");
      } else {
        naive_gemm<T>(a.resolve_conj(), b.resolve_conj(), c, alpha, beta);
      }
    });
    return;
  }
  const BlasOperand A = blas_operand(a), B = blas_operand(b);
  const auto ta = A.transposed ? CblasTrans : CblasNoTrans, tb = B.transposed ? CblasTrans : CblasNoTrans;
  const int64_t ldc = c.stride(0);
  switch (t) {
    case ScalarType::Float:
      cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha.to<float>(), A.t.data_ptr<float>(), A.ld,
                  B.t.data_ptr<float>(), B.ld, beta.to<float>(), c.data_ptr<float>(), ldc);
      break;
    case ScalarType::Double:
      cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha.to<double>(), A.t.data_ptr<double>(), A.ld,
                  B.t.data_ptr<double>(), B.ld, beta.to<double>(), c.data_ptr<double>(), ldc);
      break;
    case ScalarType::ComplexFloat: {
      const auto al = alpha.to<c10::complex<float>>(), be = beta.to<c10::complex<float>>();
      cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, &al, A.t.data_ptr(), A.ld, B.t.data_ptr(), B.ld, &be, c.data_ptr(),
                  ldc);
      break;
    }
    default: {
      const auto al = alpha.to<c10::complex<double>>(), be = beta.to<c10::complex<double>>();
      cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, &al, A.t.data_ptr(), A.ld, B.t.data_ptr(), B.ld, &be, c.data_ptr(),
                  ldc);
      break;
    }
  }
}

void check_matrix(const Tensor& t, const char* name, const char* what) {
  EMBER_CHECK(t.dim() == 2, "{}: {} must be a matrix, got {}-D tensor", name, what, t.dim());
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* name) {
  EMBER_CHECK(a.dtype() == b.dtype(), "{}: expected m1 and m2 to have the same dtype, but got: {} != {}", name,
              c10::toString(a.dtype()), c10::toString(b.dtype()));
}

Tensor fresh_or(const Tensor& out, IntArrayRef shape, ScalarType dtype, Device device) {
  if (!out.defined()) return ember::empty(shape, dtype, device);
  EMBER_CHECK(out.dtype() == dtype, "Expected out tensor to have dtype {}, but got {} instead", c10::toString(dtype),
              c10::toString(out.dtype()));
  if (out.sizes() != shape) out.resize_(shape);
  return out;
}

}  // namespace

Tensor addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha,
                 const Tensor& out) {
  check_matrix(mat1, "addmm", "mat1");
  check_matrix(mat2, "addmm", "mat2");
  check_same_dtype(mat1, mat2, "addmm");
  EMBER_CHECK(mat1.size(1) == mat2.size(0),
              "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", mat1.size(0), mat1.size(1),
              mat2.size(0), mat2.size(1));
  const std::vector<int64_t> shape{mat1.size(0), mat2.size(1)};
  Tensor result = fresh_or(out, shape, mat1.dtype(), mat1.device());
  if (result.is_meta()) return result;
  // BLAS writes a row-major matrix: compute into a contiguous buffer when needed.
  const bool direct = result.stride(1) == 1 && result.stride(0) >= std::max<int64_t>(shape[1], 1) &&
                      !result.is_conj() && !result.is_alias_of(mat1) && !result.is_alias_of(mat2);
  Tensor c = direct ? result : ember::empty(shape, result.dtype(), result.device());
  const bool uses_self = self.defined() && beta.toComplexDouble() != 0.0;
  if (uses_self) {
    if (!(self.is_same(result) && direct)) c.copy_(ember::expand(self, shape));
  }
  gemm(mat1, mat2, c, alpha, uses_self ? beta : Scalar(0.0));
  if (!c.is_same(result)) result.copy_(c);
  return result;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return ember::addmm_outf(self, mat1, mat2, beta, alpha, Tensor());
}

Tensor addmm_(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return ember::addmm_outf(self, mat1, mat2, beta, alpha, self);
}

Tensor mm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  check_matrix(self, "mm", "self");
  check_matrix(mat2, "mm", "mat2");
  return ember::addmm_outf(Tensor(), self, mat2, 0, 1, out);
}

Tensor mm(const Tensor& self, const Tensor& mat2) { return ember::mm_outf(self, mat2, Tensor()); }

Tensor bmm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  EMBER_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(self.size(0) == mat2.size(0), "batch1 and batch2 must have same number of batches, got {} and {}",
              self.size(0), mat2.size(0));
  EMBER_CHECK(self.size(2) == mat2.size(1), "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
              self.size(0), self.size(2), mat2.size(0), mat2.size(1));
  check_same_dtype(self, mat2, "bmm");
  const std::vector<int64_t> shape{self.size(0), self.size(1), mat2.size(2)};
  Tensor result = fresh_or(out, shape, self.dtype(), self.device());
  if (result.is_meta()) return result;
  for (int64_t i = 0; i < shape[0]; ++i) {
    ember::mm_outf(self.select(0, i), mat2.select(0, i), result.select(0, i));
  }
  return result;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) { return ember::bmm_outf(self, mat2, Tensor()); }

Tensor mv(const Tensor& self, const Tensor& vec) {
  EMBER_CHECK(self.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got {}, {}, {}", 1, self.dim(),
              vec.dim());
  EMBER_CHECK(self.size(1) == vec.size(0), "size mismatch, got input ({}), mat ({}x{}), vec ({})", self.size(0),
              self.size(0), self.size(1), vec.size(0));
  return ember::mm(self, vec.unsqueeze(1)).squeeze(1);
}

Tensor dot(const Tensor& self, const Tensor& tensor) {
  EMBER_CHECK(self.dim() == 1 && tensor.dim() == 1,
              "1D tensors expected, but got {}D and {}D tensors", self.dim(), tensor.dim());
  EMBER_CHECK(self.size(0) == tensor.size(0),
              "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but "
              "got {} and {} elements respectively",
              self.size(0), tensor.size(0), self.size(0), tensor.size(0));
  check_same_dtype(self, tensor, "dot");
  return ember::mm(self.unsqueeze(0), tensor.unsqueeze(1)).reshape({});
}

// torch.matmul: 1-D operands are promoted to matrices and the added dim
// removed afterwards; batch dims broadcast.
Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t da = self.dim(), db = other.dim();
  EMBER_CHECK(da > 0 && db > 0, "both arguments to matmul need to be at least 1D, but they are {}D and {}D", da, db);
  if (da == 1 && db == 1) return ember::dot(self, other);
  if (da == 2 && db == 1) return ember::mv(self, other);
  if (da == 1 && db == 2) return ember::mm(self.unsqueeze(0), other).squeeze(0);
  if (da == 2 && db == 2) return ember::mm(self, other);
  // Batched: fold a 2-D right operand into one GEMM when possible.
  if (da >= 3 && db <= 2) {
    const Tensor b = db == 1 ? other.unsqueeze(1) : other;
    std::vector<int64_t> out_shape(self.sizes().begin(), self.sizes().end() - 1);
    out_shape.push_back(b.size(1));
    const int64_t rows = c10::checked_numel(self.sizes().slice(0, self.dim() - 1));
    Tensor folded = ember::mm(self.reshape({rows, self.size(-1)}), b).view(out_shape);
    return db == 1 ? folded.squeeze(-1) : folded;
  }
  const Tensor a = da == 1 ? self.unsqueeze(0) : self;
  const Tensor b = db == 1 ? other.unsqueeze(1) : other;
  const std::vector<int64_t> batch_a(a.sizes().begin(), a.sizes().end() - 2);
  const std::vector<int64_t> batch_b(b.sizes().begin(), b.sizes().end() - 2);
  std::vector<int64_t> batch = infer_size(batch_a, batch_b);
  const int64_t n = a.size(-2), k = a.size(-1), k2 = b.size(-2), p = b.size(-1);
  EMBER_CHECK(k == k2, "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
              c10::checked_numel(batch), k, c10::checked_numel(batch), k2);
  std::vector<int64_t> ea = batch, eb = batch;
  ea.insert(ea.end(), {n, k});
  eb.insert(eb.end(), {k2, p});
  const int64_t nbatch = c10::checked_numel(batch);
  Tensor out = ember::bmm(a.expand(ea).reshape({nbatch, n, k}), b.expand(eb).reshape({nbatch, k2, p}));
  std::vector<int64_t> out_shape = batch;
  if (da > 1) out_shape.push_back(n);
  if (db > 1) out_shape.push_back(p);
  return out.view(out_shape);
}

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  if (input.dim() == 2 && bias && bias->defined()) return ember::addmm(*bias, input, weight.t());
  Tensor out = ember::matmul(input, weight.t());
  return bias && bias->defined() ? ember::add(out, *bias) : out;
}

}  // namespace ember::native
