// Sparse COO tensors: construction from parts, conversion to and from the
// strided layout, coalescing, and masking a strided tensor by a sparse one.

#include <aten/Functions.h>
#include <aten/core/SparseTensorImpl.h>
#include <aten/generated/NativeFunctions.h>

namespace ember::native {

Tensor sparse_coo_tensor_from_parts(const Tensor& indices, const Tensor& values, std::optional<IntArrayRef> size,
                                    std::optional<bool> is_coalesced) {
  const char* op = "sparse_coo_tensor";
  std::vector<int64_t> sizes;
  if (size) {
    sizes = size->vec();
  } else {
    // The smallest size that holds every index, as torch infers it.
    check_sparse_parts(op, indices, values);
    if (indices.size(1) == 0) {
      sizes.assign(indices.size(0), 0);
    } else {
      const Tensor top = ember::amax(indices, IntArrayRef({1})).contiguous();
      // A negative top index leaves size 0: make_sparse_tensor then names it.
      for (int64_t d = 0; d < top.numel(); ++d) sizes.push_back(std::max<int64_t>(top.data_ptr<int64_t>()[d] + 1, 0));
    }
    for (int64_t d = 1; d < values.dim(); ++d) sizes.push_back(values.size(d));
  }
  // The values are shared, not copied (as torch does); without their history:
  // gradients reach them through this op's own backward.
  return make_sparse_tensor(op, indices, values.detach(), sizes, is_coalesced.value_or(false));
}

Tensor to_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  if (is_sparse(self)) return ember::_to_dense(self, dtype);
  return dtype && *dtype != self.scalar_type() ? self.to(*dtype) : self;
}

Tensor sparse_to_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  const SparseTensorImpl& s = sparse_impl(self, "to_dense");
  const ScalarType t = dtype.value_or(self.scalar_type());
  Tensor result = ember::zeros(self.sizes(), self.options().dtype(t));
  if (s.nnz() > 0) result.index_put_(sparse_index_rows(s.indices()), s.values().to(t), /*accumulate=*/true);
  return result;
}

Tensor dense_to_sparse(const Tensor& self, std::optional<int64_t> sparse_dim) {
  const int64_t sd = sparse_dim.value_or(self.dim());
  EMBER_CHECK(self.dim() >= 1, "to_sparse: a 0-d tensor cannot be made sparse");
  EMBER_CHECK(sd >= 1 && sd <= self.dim(), "to_sparse: sparse_dim must be in [1, {}] for a {}-d tensor, but got {}",
              self.dim(), self.dim(), sd);
  // An entry is kept when any of its dense values is non-zero.
  Tensor nonzero_mask = self.ne(0);
  while (nonzero_mask.dim() > sd) nonzero_mask = nonzero_mask.any(-1);
  const Tensor indices = nonzero_mask.nonzero().t().contiguous();
  const Tensor values = self.index(sparse_index_rows(indices));
  // nonzero lists positions in row-major order: sorted and unique.
  return make_sparse_tensor_unchecked(indices, values, self.sizes(), /*coalesced=*/true);
}

Tensor sparse_to_sparse(const Tensor& self, std::optional<int64_t> sparse_dim) {
  const SparseTensorImpl& s = sparse_impl(self, "to_sparse");
  EMBER_CHECK(!sparse_dim || *sparse_dim == s.sparse_dim(),
              "to_sparse: conversion from sparse_dim {} to sparse_dim {} is not supported; call to_dense() first",
              s.sparse_dim(), *sparse_dim);
  return self;
}

Tensor coalesce(const Tensor& self) {
  const SparseTensorImpl& s = sparse_impl(self, "coalesce");
  return s.coalesced() ? self : ember::_coalesce(self);
}

Tensor sparse_coalesce(const Tensor& self) {
  const SparseTensorImpl& s = sparse_impl(self, "coalesce");
  const int64_t sparse_dim = s.sparse_dim();
  // Each index as one number (row-major over the sparse dims), then sorted
  // unique numbers and, for every entry, the one it merges into.
  std::vector<int64_t> place(sparse_dim);
  int64_t running = 1;
  for (int64_t d = sparse_dim; d-- > 0;) {
    place[d] = running;
    EMBER_CHECK(!__builtin_mul_overflow(running, std::max<int64_t>(self.size(d), 1), &running),
                "coalesce: the sparse dims {} hold more than 2^63 positions",
                c10::str_sizes(self.sizes().slice(0, sparse_dim)));
  }
  Tensor linear = ember::zeros({s.nnz()}, s.indices().options());
  for (int64_t d = 0; d < sparse_dim; ++d) linear.add_(s.indices().select(0, d), place[d]);
  auto [unique, inverse, counts] = ember::_unique2(linear, /*sorted=*/true, /*return_inverse=*/true, false);
  std::vector<int64_t> value_sizes = s.values().sizes().vec();
  value_sizes[0] = unique.size(0);
  const Tensor values = ember::zeros(value_sizes, s.values().options()).index_add_(0, inverse, s.values());
  std::vector<Tensor> rows;
  for (int64_t d = 0; d < sparse_dim; ++d) rows.push_back(ember::div(unique, place[d], "floor").remainder(self.size(d)));
  return make_sparse_tensor_unchecked(ember::stack(rows), values, self.sizes(), /*coalesced=*/true);
}

Tensor sparse_mask(const Tensor& self, const Tensor& mask) {
  const SparseTensorImpl& m = sparse_impl(mask, "sparse_mask");
  EMBER_CHECK(!is_sparse(self), "sparse_mask: expected a strided self, but got a sparse one");
  EMBER_CHECK(self.sizes() == mask.sizes(), "sparse_mask: operands have incompatible sizes; self has size {} but "
              "mask has size {}", c10::str_sizes(self.sizes()), c10::str_sizes(mask.sizes()));
  const Tensor values = self.index(sparse_index_rows(m.indices()));
  return make_sparse_tensor_unchecked(m.indices(), values, self.sizes(), m.coalesced());
}

}  // namespace ember::native
