#pragma once
// Small pieces the sparse COO kernels share.

#include <aten/core/SparseTensorImpl.h>

#include <optional>
#include <vector>

namespace ember::native::sparse {

// The rows of indices ([sparse_dim, nnz]) as the index list of x[i0, i1, ...],
// which addresses a strided tensor's entries at those positions.
inline std::vector<std::optional<Tensor>> index_rows(const Tensor& indices) {
  std::vector<std::optional<Tensor>> rows;
  for (int64_t d = 0; d < indices.size(0); ++d) rows.emplace_back(indices.select(0, d));
  return rows;
}

}  // namespace ember::native::sparse
