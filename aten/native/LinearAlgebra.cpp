// Matrix products: mm, bmm, addmm, mv, dot, matmul, linear; trace. Float, double
// and complex GEMMs go to OpenBLAS or oneDNN (cpu/Blas.cpp); other dtypes use a plain loop.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/core/ExpandUtils.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/BlasOperand.h>
#include <aten/native/DeviceKernels.h>
#include <aten/native/Resize.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/Blas.h>
#include <aten/native/cpu/ElementwiseTraits.h>

#include <algorithm>
#include <type_traits>

namespace ember::native {

namespace {

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
        for (int64_t p = 0; p < k; ++p)
          acc = cpu::wrapping_add(acc, cpu::wrapping_mul(M(A[i * as0 + p * as1]), M(B[p * bs0 + j * bs1])));
        T& out = C[i * cs0 + j * cs1];
        out = static_cast<T>(beta == M(0) ? alpha * acc : alpha * acc + beta * M(out));
      }
    }
  });
}

using cpu::blas_gemm;

// Multiply-adds below which a GEMM (or a chunk of one) is not worth a thread.
constexpr int64_t kGemmChunkWork = int64_t{1} << 18;

// blas_gemm split into blocks of C's rows (or columns, when C is wide) across
// the pool. Each block re-packs the shared operand; that costs a few percent
// of a large GEMM and buys one thread pool for the whole library.
template <typename T>
void parallel_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda,
                   const T* B, int64_t ldb, T beta, T* C, int64_t ldc, bool ca = false, bool cb = false) {
  if (m >= n) {
    parallel_for(0, m, std::max<int64_t>(1, kGemmChunkWork / std::max<int64_t>(n * k, 1)), [&](int64_t b, int64_t e) {
      blas_gemm(ta, tb, e - b, n, k, alpha, ta ? A + b : A + b * lda, lda, B, ldb, beta, C + b * ldc, ldc, ca, cb);
    });
  } else {
    parallel_for(0, n, std::max<int64_t>(1, kGemmChunkWork / std::max<int64_t>(m * k, 1)), [&](int64_t b, int64_t e) {
      blas_gemm(ta, tb, m, e - b, k, alpha, A, lda, tb ? B + b * ldb : B + b, ldb, beta, C + b, ldc, ca, cb);
    });
  }
}

template <typename F>
void visit_blas_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: return f(c10::type_tag<float>{});
    case ScalarType::Double: return f(c10::type_tag<double>{});
    case ScalarType::ComplexFloat: return f(c10::type_tag<c10::complex<float>>{});
    default: return f(c10::type_tag<c10::complex<double>>{});
  }
}

bool is_value(const Scalar& s, double v) { return s.toComplexDouble() == c10::complex<double>(v, 0.0); }

bool is_blas_type(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::ComplexFloat ||
         t == ScalarType::ComplexDouble;
}

// A start for C that is one row repeated (a linear layer's bias): a
// contiguous [n] or [1, n] of C's dtype, not in C's memory (oneDNN reads it
// while writing C).
bool is_bias_row(const Tensor& start, const Tensor& c) {
  const int64_t n = c.size(1);
  return start.dtype() == c.dtype() && start.numel() == n &&
         start.dim() >= 1 && start.dim() <= 2 && (start.stride(-1) == 1 || n == 1) && !start.is_alias_of(c);
}

void cpu_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta,
              const Tensor& start);

// bfloat16 and float16: oneDNN's 16-bit kernels (float32 accumulation) where
// the CPU has them, else the float32 GEMM between two conversions, which
// rounds once as they do.
void lowp_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta,
               const Tensor& start) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const bool bias_row = start.defined() && is_value(alpha, 1) && is_value(beta, 1) && is_bias_row(start, c);
  if (start.defined() && !bias_row) c.copy_(ember::expand(start, c.sizes()));
  const BlasOperand A = blas_operand(a), B = blas_operand(b);
  if (cpu::onednn_lowp_gemm(c.dtype(), A.transposed, B.transposed, m, n, k, static_cast<float>(alpha.toDouble()),
                            A.t.data_ptr(), A.ld, B.t.data_ptr(), B.ld,
                            bias_row ? 0.0f : static_cast<float>(beta.toDouble()),
                            bias_row ? start.data_ptr() : nullptr, c.data_ptr(), c.stride(0))) {
    return;
  }
  Tensor c32 = c.to(ScalarType::Float);
  cpu_gemm(a.to(ScalarType::Float), b.to(ScalarType::Float), c32, alpha, beta,
           bias_row ? start.to(ScalarType::Float) : Tensor());
  c.copy_(c32);
}

// The CPU gemm_stub: cpu/Blas.cpp for float and complex types, a plain loop otherwise.
void cpu_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta,
              const Tensor& start) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const ScalarType t = c.dtype();
  if (cpu::is_reduced_float(t)) return lowp_gemm(a, b, c, alpha, beta, start);
  if (start.defined()) {
    if (t == ScalarType::Float && is_value(alpha, 1) && is_value(beta, 1) && is_bias_row(start, c) &&
        cpu::sgemm_uses_onednn(m, n, k)) {
      const BlasOperand A = blas_operand(a), B = blas_operand(b);
      cpu::onednn_gemm_bias(A.transposed, B.transposed, m, n, k, static_cast<const float*>(A.t.data_ptr()), A.ld,
                            static_cast<const float*>(B.t.data_ptr()), B.ld, static_cast<const float*>(start.data_ptr()),
                            static_cast<float*>(c.data_ptr()), c.stride(0));
      return;
    }
    c.copy_(ember::expand(start, c.sizes()));
  }
  if (!is_blas_type(t)) {
    c10::visit_scalar_type(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) {  // gemm() refused Bool
        naive_gemm<T>(a.resolve_conj(), b.resolve_conj(), c, alpha, beta);
      }
    });
    return;
  }
  // BLAS reads a lazily conjugated complex operand as it is (conj-transposed).
  const bool complex = c10::isComplexType(t);
  const BlasOperand A = blas_operand(a, complex), B = blas_operand(b, complex);
  visit_blas_type(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_gemm<T>(A.transposed, B.transposed, m, n, k, alpha.to<T>(), static_cast<const T*>(A.t.data_ptr()), A.ld,
                     static_cast<const T*>(B.t.data_ptr()), B.ld, beta.to<T>(), static_cast<T*>(c.data_ptr()),
                     c.stride(0), A.conj, B.conj);
  });
}

// c = beta * s + alpha * a @ b for 2-D a [m, k], b [k, n], c [m, n] (c contiguous rows), s being `start`
// broadcast to [m, n] when defined, else c's own values. `op` names the caller in errors. As in torch, an
// empty product of bools is fine.
void gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta,
          const char* op, const Tensor& start = Tensor()) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  if (m == 0 || n == 0) return;
  EMBER_CHECK_NOT_IMPLEMENTED(c.dtype() != ScalarType::Bool, "\"{}\" not implemented for 'Bool'", op);
  if (k == 0) {
    if (start.defined()) c.copy_(ember::expand(start, c.sizes()));
    if (beta.toComplexDouble() == 0.0) {
      c.zero_();
    } else {
      c.mul_(beta);
    }
    return;
  }
  gemm_stub(c.device().type, a, b, c, alpha, beta, start);
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

DispatchStub<GemmFn> gemm_stub("addmm");
EMBER_REGISTER_STUB(gemm_stub, CPU, &cpu_gemm);

namespace {

// out = beta * self + alpha * mat1 @ mat2, for addmm, mm and bmm's matrices;
// `op` names the caller in errors.
Tensor gemm_out(const char* op, const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                const Scalar& alpha, const Tensor& out) {
  check_matrix(mat1, op, "mat1");
  check_matrix(mat2, op, "mat2");
  check_same_dtype(mat1, mat2, op);
  EMBER_CHECK(mat1.size(1) == mat2.size(0), "{}: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", op,
              mat1.size(0), mat1.size(1), mat2.size(0), mat2.size(1));
  const std::vector<int64_t> shape{mat1.size(0), mat2.size(1)};
  Tensor result = fresh_or(out, shape, mat1.dtype(), mat1.device());
  if (result.is_meta()) return result;
  // BLAS writes a row-major matrix: compute into a contiguous buffer when needed.
  const bool direct = result.stride(1) == 1 && result.stride(0) >= std::max<int64_t>(shape[1], 1) &&
                      !result.is_conj() && !result.is_alias_of(mat1) && !result.is_alias_of(mat2);
  Tensor c = direct ? result : ember::empty(shape, result.dtype(), result.device());
  const bool uses_self = self.defined() && beta.toComplexDouble() != 0.0;
  const bool starts_as_self = uses_self && !(self.is_same(result) && direct);
  gemm(mat1, mat2, c, alpha, uses_self ? beta : Scalar(0.0), op, starts_as_self ? self : Tensor());
  if (!c.is_same(result)) result.copy_(c);
  return result;
}

}  // namespace

Tensor addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha,
                 const Tensor& out) {
  return gemm_out("addmm", self, mat1, mat2, beta, alpha, out);
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return ember::addmm_outf(self, mat1, mat2, beta, alpha, Tensor());
}

Tensor addmm_(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return ember::addmm_outf(self, mat1, mat2, beta, alpha, self);
}

Tensor mm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  check_matrix(self, "mm", "self");  // torch calls mm's first operand self, addmm's mat1
  return gemm_out("mm", Tensor(), self, mat2, 0, 1, out);
}

Tensor mm(const Tensor& self, const Tensor& mat2) { return ember::mm_outf(self, mat2, Tensor()); }

namespace {
// The common bmm: BLAS dtypes, a dense result. Small products (attention's
// per-head matrices) are spread over the pool a batch at a time; large ones
// split inside each GEMM. False when the general path must run.
bool bmm_batched(const Tensor& self, const Tensor& mat2, const Tensor& result) {
  const int64_t batch = self.size(0), m = self.size(1), k = self.size(2), n = mat2.size(2);
  const bool lowp = cpu::is_reduced_float(result.dtype());
  if (!(is_blas_type(result.dtype()) || lowp) || result.dtype() != self.dtype() || batch == 0 || m == 0 || n == 0 ||
      k == 0)
    return false;
  if (result.is_conj() || result.stride(2) != 1 || result.stride(1) < std::max<int64_t>(n, 1) ||
      result.is_alias_of(self) || result.is_alias_of(mat2))
    return false;
  if (self.is_conj() || mat2.is_conj()) return false;
  // Every batch has the first one's layout: decide once, copying if BLAS can't read it.
  auto readable = [](const Tensor& t) {
    const Tensor first = t.select(0, 0);
    return rows_readable(first) || columns_readable(first) ? t : t.contiguous();
  };
  const Tensor a = readable(self), b = readable(mat2);
  const BlasOperand A = blas_operand(a.select(0, 0)), B = blas_operand(b.select(0, 0));
  if (lowp) {  // one oneDNN matmul over the batch
    return cpu::onednn_lowp_gemm(result.dtype(), A.transposed, B.transposed, m, n, k, 1.0f, a.data_ptr(), A.ld,
                                 b.data_ptr(), B.ld, 0.0f, nullptr, result.data_ptr(), result.stride(1), batch,
                                 a.stride(0), b.stride(0), result.stride(0));
  }
  visit_blas_type(result.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = static_cast<const T*>(a.data_ptr());
    const T* pb = static_cast<const T*>(b.data_ptr());
    T* pc = static_cast<T*>(result.data_ptr());
    const int64_t sa = a.stride(0), sb = b.stride(0), sc = result.stride(0);
    auto one = [&](int64_t i) {
      parallel_gemm<T>(A.transposed, B.transposed, m, n, k, T(1), pa + i * sa, A.ld, pb + i * sb, B.ld, T(0),
                       pc + i * sc, result.stride(1));
    };
    if (m * n * k >= kGemmChunkWork * get_num_threads()) {
      for (int64_t i = 0; i < batch; ++i) one(i);
    } else {
      parallel_for(0, batch, std::max<int64_t>(1, kGemmChunkWork / (m * n * k)), [&](int64_t b0, int64_t e0) {
        for (int64_t i = b0; i < e0; ++i) one(i);
      });
    }
  });
  return true;
}
}  // namespace

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
  if (!bmm_batched(self, mat2, result)) {
    for (int64_t i = 0; i < shape[0]; ++i) {
      gemm_out("bmm", Tensor(), self.select(0, i), mat2.select(0, i), 0, 1, result.select(0, i));
    }
  }
  return result;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) { return ember::bmm_outf(self, mat2, Tensor()); }

Tensor mv(const Tensor& self, const Tensor& vec) {
  EMBER_CHECK(self.dim() == 2 && vec.dim() == 1, "mv: vector + matrix @ vector expected, got {}, {}, {}", 1,
              self.dim(), vec.dim());
  EMBER_CHECK(self.size(1) == vec.size(0), "mv: size mismatch, got input ({}), mat ({}x{}), vec ({})", self.size(0),
              self.size(0), self.size(1), vec.size(0));
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Bool, "\"mv\" not implemented for 'Bool'");
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
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() != ScalarType::Bool, "\"dot\" not implemented for 'Bool'");
  return ember::mm(self.unsqueeze(0), tensor.unsqueeze(1)).reshape({});
}

// The diagonal is a strided view, so one kernel serves every device.
Tensor trace(const Tensor& self) {
  EMBER_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim {}", self.dim());
  EMBER_CHECK_NOT_IMPLEMENTED(self.scalar_type() != ScalarType::Bool, "\"trace\" not implemented for '{}'",
                              c10::toString(self.scalar_type()));
  const Tensor diagonal = self.as_strided({std::min(self.size(0), self.size(1))}, {self.stride(0) + self.stride(1)},
                                          self.storage_offset());
  return diagonal.sum();
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
  std::vector<int64_t> batch = infer_size(batch_a, batch_b, "matmul");
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

Tensor outer(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got {}-D", self.dim());
  EMBER_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got {}-D", vec2.dim());
  EMBER_CHECK(self.device() == vec2.device(), "outer: expected both vectors on the same device, got {} and {}",
              self.device().str(), vec2.device().str());
  return ember::mul(self.reshape({-1, 1}), vec2);
}

// 2-D: the diagonal (a copy); 1-D: a square matrix with self on that diagonal.
Tensor diag(const Tensor& self, int64_t diagonal) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "diag(): Supports 1D or 2D tensors. Got {}D", self.dim());
  const int64_t below = diagonal < 0 ? -diagonal : 0, right = diagonal > 0 ? diagonal : 0;
  if (self.dim() == 2) {
    const int64_t length = std::max<int64_t>(0, std::min(self.size(0) - below, self.size(1) - right));
    const int64_t offset = self.storage_offset() + below * self.stride(0) + right * self.stride(1);
    return ember::as_strided(self, {length}, {self.stride(0) + self.stride(1)}, offset).clone();
  }
  const int64_t n = self.size(0), side = n + below + right;
  Tensor out = ember::zeros({side, side}, self.dtype(), self.device());
  ember::as_strided(out, {n}, {side + 1}, below * side + right).copy_(self);
  return out;
}

// ---- addmv / baddbmm / addbmm: beta * self + alpha * product -------------------------
// beta = 0 ignores self's values (NaN and inf included), as BLAS and torch do.

namespace {

// In-place forms write the result into self, which must already have its shape.
Tensor write_into_self(const char* op, const Tensor& self, const Tensor& result) {
  EMBER_CHECK(self.sizes() == result.sizes(), "{}: the result of size {} does not fit self of size {} in place", op,
              c10::str_sizes(result.sizes()), c10::str_sizes(self.sizes()));
  return self.copy_(result);
}

}  // namespace

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, "addmv: vector + matrix @ vector expected, got {}, {}, {}",
              self.dim(), mat.dim(), vec.dim());
  EMBER_CHECK(self.dim() <= 1, "addmv: vector + matrix @ vector expected, got {}, {}, {}", self.dim(), mat.dim(),
              vec.dim());
  EMBER_CHECK(mat.size(1) == vec.size(0), "addmv: size mismatch, got input ({}), mat ({}x{}), vec ({})",
              self.dim() == 0 ? 1 : self.size(0), mat.size(0), mat.size(1), vec.size(0));
  const Tensor column = self.reshape({-1, 1});
  return ember::addmm(column, mat, vec.unsqueeze(1), beta, alpha).squeeze(1);
}

Tensor addmv_(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  return write_into_self("addmv_", self, ember::addmv(self, mat, vec, beta, alpha));
}

Tensor addmv_out(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha,
                 const Tensor& out) {
  return resize_out(out, ember::addmv(self, mat, vec, beta, alpha));
}

// beta * self + alpha * outer(vec1, vec2): addmm of a column and a row.
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(vec1.dim() == 1 && vec2.dim() == 1, "addr: Expected 1-D arguments vec1 and vec2, but got {}-D and {}-D",
              vec1.dim(), vec2.dim());
  const int64_t rows = vec1.size(0), cols = vec2.size(0);
  const bool fits = self.dim() <= 2 && (self.dim() < 1 || self.size(-1) == 1 || self.size(-1) == cols) &&
                    (self.dim() < 2 || self.size(0) == 1 || self.size(0) == rows);
  EMBER_CHECK(fits, "addr: self of size {} does not broadcast to the product's size [{}, {}]",
              c10::str_sizes(self.sizes()), rows, cols);
  return ember::addmm(self, vec1.unsqueeze(1), vec2.unsqueeze(0), beta, alpha);
}

Tensor addr_(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  return write_into_self("addr_", self, ember::addr(self, vec1, vec2, beta, alpha));
}

namespace {

void check_batches(const char* op, const Tensor& batch1, const Tensor& batch2) {
  EMBER_CHECK_INDEX(batch1.dim() == 3, "{}: batch1 must be a 3D tensor, got {}D", op, batch1.dim());
  EMBER_CHECK_INDEX(batch2.dim() == 3, "{}: batch2 must be a 3D tensor, got {}D", op, batch2.dim());
  EMBER_CHECK(batch1.size(0) == batch2.size(0), "{}: batch1 and batch2 must have same number of batches, got {} "
              "and {}", op, batch1.size(0), batch2.size(0));
  EMBER_CHECK(batch1.size(2) == batch2.size(1), "{}: Incompatible matrix sizes for bmm ({}x{} and {}x{})", op,
              batch1.size(1), batch1.size(2), batch2.size(1), batch2.size(2));
}

}  // namespace

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  check_batches("baddbmm", batch1, batch2);
  Tensor product = ember::bmm(batch1, batch2);
  if (!is_value(alpha, 1.0)) product = ember::mul(product, alpha);
  infer_size(self.sizes(), product.sizes(), "baddbmm");
  if (is_value(beta, 0.0)) return product;
  return ember::add(is_value(beta, 1.0) ? self : ember::mul(self, beta), product);
}

Tensor baddbmm_(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                const Scalar& alpha) {
  return write_into_self("baddbmm_", self, ember::baddbmm(self, batch1, batch2, beta, alpha));
}

Tensor baddbmm_out(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                   const Scalar& alpha, const Tensor& out) {
  return resize_out(out, ember::baddbmm(self, batch1, batch2, beta, alpha));
}

// The sum over the batch of batch1[i] @ batch2[i] is one matrix product:
// [n, b*m] @ [b*m, p], with the batch laid side by side.
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  check_batches("addbmm", batch1, batch2);
  const int64_t b = batch1.size(0), n = batch1.size(1), m = batch1.size(2), p = batch2.size(2);
  infer_size(self.sizes(), {n, p}, "addbmm");
  const Tensor side_by_side = batch1.transpose(0, 1).reshape({n, b * m});
  return ember::addmm(self, side_by_side, batch2.reshape({b * m, p}), beta, alpha);
}

Tensor addbmm_(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return write_into_self("addbmm_", self, ember::addbmm(self, batch1, batch2, beta, alpha));
}

Tensor addbmm_out(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                  const Scalar& alpha, const Tensor& out) {
  return resize_out(out, ember::addbmm(self, batch1, batch2, beta, alpha));
}

// ---- cdist ---------------------------------------------------------------------------
// Every pair's difference, then its p-norm: exact where torch's matrix-product
// shortcut for p = 2 (compute_mode) rounds, so compute_mode is accepted and
// the exact form always used.

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  EMBER_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: {}D", x1.dim());
  EMBER_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: {}D", x2.dim());
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: {} X2: {}",
              x1.size(-1), x2.size(-1));
  EMBER_CHECK(x1.is_floating_point() && x2.is_floating_point(),
              "cdist only supports floating-point dtypes, X1 got: {}, X2 got: {}", c10::toString(x1.scalar_type()),
              c10::toString(x2.scalar_type()));
  EMBER_CHECK(p >= 0, "cdist only supports non-negative p values");
  EMBER_CHECK(x1.device() == x2.device(), "cdist: expected X1 and X2 on the same device, got {} and {}",
              x1.device().str(), x2.device().str());
  EMBER_CHECK(!compute_mode || (*compute_mode >= 0 && *compute_mode <= 2),
              "cdist: {} is not a valid value for compute_mode", *compute_mode);
  const Tensor difference = ember::sub(x1.unsqueeze(-2), x2.unsqueeze(-3));  // [..., P, R, M]
  return ember::norm(difference, Scalar(p), IntArrayRef({-1}), false);
}

// Columns are powers of x (highest first unless increasing), as running products
// so that integer inputs stay exact; integers widen to int64, as in torch.
Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  EMBER_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.");
  const int64_t n = N.value_or(x.size(0));
  EMBER_CHECK(n >= 0, "N must be non-negative.");
  const Tensor values = x.to(c10::promoteTypes(x.scalar_type(), ScalarType::Long));
  if (n == 0) return ember::empty({x.size(0), 0}, values.options());
  Tensor result = ember::ones({x.size(0), 1}, values.options());
  if (n > 1) result = ember::cat({result, values.unsqueeze(1).expand({x.size(0), n - 1}).cumprod(1)}, 1);
  return increasing ? result : result.flip({1});
}

}  // namespace ember::native
