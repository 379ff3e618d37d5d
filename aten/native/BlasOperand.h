#pragma once
// How a 2-D operand is handed to a BLAS (OpenBLAS on the CPU, cuBLAS on the
// GPU) without a copy when its strides allow.

#include <aten/core/Tensor.h>

#include <algorithm>

namespace ember::native {

// A matrix operand in BLAS terms: row-major data with leading dimension ld,
// possibly read transposed and (for a BLAS that can, allow_conj) conjugated.
// Operands with neither unit stride, or a bit the BLAS cannot apply, are copied.
struct BlasOperand {
  Tensor t;
  bool transposed = false;
  int64_t ld = 1;
  bool conj = false;
};

inline bool bits_readable(const Tensor& m, bool allow_conj) { return !m.is_neg() && (allow_conj || !m.is_conj()); }
inline bool rows_readable(const Tensor& m, bool allow_conj = false) {
  return bits_readable(m, allow_conj) && (m.stride(1) == 1 || m.size(1) == 1) &&
         m.stride(0) >= std::max<int64_t>(m.size(1), 1);
}
inline bool columns_readable(const Tensor& m, bool allow_conj = false) {
  return bits_readable(m, allow_conj) && (m.stride(0) == 1 || m.size(0) == 1) &&
         m.stride(1) >= std::max<int64_t>(m.size(0), 1);
}

inline BlasOperand blas_operand(const Tensor& m, bool allow_conj = false) {
  const int64_t rows = m.size(0), cols = m.size(1);
  if (rows_readable(m, allow_conj)) return {m, false, std::max<int64_t>(m.stride(0), std::max<int64_t>(cols, 1)), m.is_conj()};
  if (columns_readable(m, allow_conj)) return {m, true, std::max<int64_t>(m.stride(1), std::max<int64_t>(rows, 1)), m.is_conj()};
  const Tensor c = m.contiguous().resolve_conj().resolve_neg();
  return {c, false, std::max<int64_t>(cols, 1)};
}

}  // namespace ember::native
