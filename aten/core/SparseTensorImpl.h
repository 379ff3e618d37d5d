#pragma once
// A sparse COO tensor: `indices` (int64, [sparse_dim, nnz]) say where its
// specified entries are and `values` ([nnz, dense sizes...]) what they are.
// An index may appear more than once (its entries add up) until coalesce()
// sorts the indices and merges the repeats. dtype and device are values'.

#include <aten/core/Tensor.h>

#include <optional>
#include <vector>

namespace ember {

class SparseTensorImpl final : public c10::TensorImpl {
 public:
  // Takes its parts as they are: make_sparse_tensor checks them.
  SparseTensorImpl(Tensor indices, Tensor values, IntArrayRef sizes, bool coalesced);

  const Tensor& indices() const { return indices_; }
  const Tensor& values() const { return values_; }
  int64_t sparse_dim() const { return indices_.size(0); }
  int64_t dense_dim() const { return values_.dim() - 1; }
  int64_t nnz() const { return values_.size(0); }
  bool coalesced() const { return coalesced_; }
  // For in-place ops (add_, mul_): new parts, the same sizes.
  void set_parts(Tensor indices, Tensor values, bool coalesced);

  void release_resources() override {
    indices_ = Tensor();
    values_ = Tensor();
    TensorImpl::release_resources();
  }

 private:
  Tensor indices_;
  Tensor values_;
  bool coalesced_;
};

inline bool is_sparse(const Tensor& t) { return t.defined() && t.unsafeGetTensorImpl()->is_sparse(); }
// The sparse parts of `t`; an error naming `op` when t is not sparse.
SparseTensorImpl& sparse_impl(const Tensor& t, const char* op);

// The rows of indices ([sparse_dim, nnz]) as the index list of x[i0, i1, ...],
// which addresses a strided tensor's entries at those positions.
std::vector<std::optional<Tensor>> sparse_index_rows(const Tensor& indices);

// That indices is an int64 [sparse_dim, nnz] and values an [nnz, ...] strided
// tensor on one device; errors name `op`.
void check_sparse_parts(const char* op, const Tensor& indices, const Tensor& values);
// A sparse tensor of `sizes` from its parts, after checking that they fit
// together (dtype and shape of indices, nnz, dense sizes, every index in
// range); errors name `op`.
Tensor make_sparse_tensor(const char* op, const Tensor& indices, const Tensor& values, IntArrayRef sizes,
                          bool coalesced);
// The same without the O(nnz) checks, for kernels whose parts fit by construction.
Tensor make_sparse_tensor_unchecked(Tensor indices, Tensor values, IntArrayRef sizes, bool coalesced);

}  // namespace ember
