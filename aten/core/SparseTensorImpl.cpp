#include <aten/core/SparseTensorImpl.h>

#include <aten/Functions.h>

namespace ember {

SparseTensorImpl::SparseTensorImpl(Tensor indices, Tensor values, IntArrayRef sizes, bool coalesced)
    : TensorImpl(c10::sparseBackendKey(values.device().type), values.scalar_type(), values.device(), sizes),
      indices_(std::move(indices)),
      values_(std::move(values)),
      coalesced_(coalesced) {}

void SparseTensorImpl::set_parts(Tensor indices, Tensor values, bool coalesced) {
  EMBER_INTERNAL_ASSERT(values.scalar_type() == dtype() && indices.size(0) == sparse_dim());
  indices_ = std::move(indices);
  values_ = std::move(values);
  coalesced_ = coalesced;
}

SparseTensorImpl& sparse_impl(const Tensor& t, const char* op) {
  EMBER_CHECK(is_sparse(t), "{}: expected a sparse tensor, but got a {} one", op,
              c10::toString(t.unsafeGetTensorImpl()->layout()));
  return static_cast<SparseTensorImpl&>(*t.unsafeGetTensorImpl());
}

std::vector<std::optional<Tensor>> sparse_index_rows(const Tensor& indices) {
  std::vector<std::optional<Tensor>> rows;
  for (int64_t d = 0; d < indices.size(0); ++d) rows.emplace_back(indices.select(0, d));
  return rows;
}

Tensor make_sparse_tensor_unchecked(Tensor indices, Tensor values, IntArrayRef sizes, bool coalesced) {
  return Tensor(c10::make_intrusive<SparseTensorImpl>(std::move(indices), std::move(values), sizes, coalesced));
}

void check_sparse_parts(const char* op, const Tensor& indices, const Tensor& values) {
  EMBER_CHECK(!is_sparse(indices) && !is_sparse(values), "{}: indices and values must be strided tensors", op);
  EMBER_CHECK_TYPE(indices.scalar_type() == ScalarType::Long, "{}: indices must be an int64 tensor, got {}", op,
                   c10::toString(indices.scalar_type()));
  EMBER_CHECK(indices.dim() == 2, "{}: indices must be sparse_dim x nnz, but got: {}", op,
              c10::str_sizes(indices.sizes()));
  EMBER_CHECK(values.dim() >= 1, "{}: values must have at least one dim (nnz), but got a 0-d tensor", op);
  EMBER_CHECK(indices.device() == values.device(),
              "{}: indices and values must be on the same device, but got {} and {}", op, indices.device().str(),
              values.device().str());
}

Tensor make_sparse_tensor(const char* op, const Tensor& indices, const Tensor& values, IntArrayRef sizes,
                          bool coalesced) {
  check_sparse_parts(op, indices, values);
  const int64_t sparse_dim = indices.size(0), nnz = indices.size(1), dense_dim = values.dim() - 1;
  EMBER_CHECK(values.size(0) == nnz,
              "{}: indices and values must have same nnz, but got nnz from indices: {}, nnz from values: {}", op, nnz,
              values.size(0));
  EMBER_CHECK(static_cast<int64_t>(sizes.size()) == sparse_dim + dense_dim,
              "{}: number of dimensions must be sparse_dim ({}) + dense_dim ({}), but got {}", op, sparse_dim,
              dense_dim, sizes.size());
  EMBER_CHECK(sparse_dim >= 1, "{}: indices must have at least one row (sparse_dim >= 1), but got: {}", op,
              c10::str_sizes(indices.sizes()));
  for (int64_t d = 0; d < dense_dim; ++d) {
    EMBER_CHECK(values.size(d + 1) == sizes[sparse_dim + d],
                "{}: values has incorrect size, expected {}, got {}", op,
                c10::str_sizes(IntArrayRef(sizes).slice(sparse_dim)), c10::str_sizes(values.sizes().slice(1)));
  }
  c10::checked_numel(sizes);
  const Tensor idx = indices.contiguous();
  const int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t d = 0; d < sparse_dim; ++d) {
    for (int64_t i = 0; i < nnz; ++i) {
      const int64_t v = p[d * nnz + i];
      EMBER_CHECK_INDEX(v >= 0, "{}: found negative index {} for dim {}", op, v, d);
      EMBER_CHECK_INDEX(v < sizes[d], "{}: size is inconsistent with indices: for dim {}, size is {} but found index {}",
                        op, d, sizes[d], v);
    }
  }
  return make_sparse_tensor_unchecked(indices, values, sizes, coalesced || nnz <= 1);
}

}  // namespace ember
