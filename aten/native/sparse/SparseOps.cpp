// Arithmetic on sparse COO tensors: the kernels that sparse gradients and
// graph layers need (add, scale, sum, matrix product, transpose, copies).

#include <aten/Functions.h>
#include <aten/native/TensorIterator.h>
#include <aten/core/SparseTensorImpl.h>
#include <aten/generated/NativeFunctions.h>

#include <algorithm>

namespace ember::native {

namespace {

// Writes `result` into `out` where the op was given one: a sparse out takes
// a sparse result's parts (in place when out is self).
Tensor store_sparse(const char* op, const Tensor& result, const Tensor& out) {
  if (!out.defined()) return result;
  EMBER_CHECK(is_sparse(out), "{}: a sparse result cannot be written into a strided out tensor", op);
  EMBER_CHECK(can_cast(result.scalar_type(), out.scalar_type()),
              "{}: result type {} can't be cast to the desired output type {}", op,
              c10::toString(result.scalar_type()), c10::toString(out.scalar_type()));
  EMBER_CHECK(out.sizes() == result.sizes(), "{}: out has size {} but the result has size {}", op,
              c10::str_sizes(out.sizes()), c10::str_sizes(result.sizes()));
  const SparseTensorImpl& r = sparse_impl(result, op);
  sparse_impl(out, op).set_parts(r.indices(), r.values().to(out.scalar_type()), r.coalesced());
  return out;
}

}  // namespace

Tensor add_out_sparse(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  const char* op = "add";
  EMBER_CHECK(self.sizes() == other.sizes(),
              "{}: sparse tensors add only to tensors of the same size, but got {} and {}", op,
              c10::str_sizes(self.sizes()), c10::str_sizes(other.sizes()));
  const ScalarType dtype = result_type({self, other});
  if (is_sparse(self) && is_sparse(other)) {
    const SparseTensorImpl& a = sparse_impl(self, op);
    const SparseTensorImpl& b = sparse_impl(other, op);
    EMBER_CHECK(a.sparse_dim() == b.sparse_dim(), "{}: sparse tensors with sparse_dim {} and {} cannot be added", op,
                a.sparse_dim(), b.sparse_dim());
    // Entries side by side; repeated indices add up when read or coalesced.
    const Tensor indices = ember::cat({a.indices(), b.indices()}, 1);
    const Tensor values = ember::cat({a.values().to(dtype), ember::mul(b.values(), alpha).to(dtype)}, 0);
    return store_sparse(op, make_sparse_tensor_unchecked(indices, values, self.sizes(), false), out);
  }
  // Strided and sparse: the strided one, with the sparse entries added in.
  EMBER_CHECK(!out.defined() || !is_sparse(out),
              "{}: adding a strided tensor into a sparse one in place is not supported; use a strided result", op);
  const bool self_sparse = is_sparse(self);
  const SparseTensorImpl& s = sparse_impl(self_sparse ? self : other, op);
  const Tensor& dense = self_sparse ? other : self;
  Tensor result;
  if (out.defined()) {
    EMBER_CHECK(can_cast(dtype, out.scalar_type()), "{}: result type {} can't be cast to the desired output type {}",
                op, c10::toString(dtype), c10::toString(out.scalar_type()));
    EMBER_CHECK(out.sizes() == self.sizes(), "{}: out has size {} but the result has size {}", op,
                c10::str_sizes(out.sizes()), c10::str_sizes(self.sizes()));
    result = out;
    if (!out.is_same(self)) result.copy_(self_sparse ? ember::mul(dense, alpha) : dense);
  } else {
    result = self_sparse ? ember::mul(dense, alpha).to(dtype) : dense.to(dtype, /*non_blocking=*/false, /*copy=*/true);
  }
  const Tensor values = self_sparse ? s.values() : ember::mul(s.values(), alpha);
  if (s.nnz() > 0) result.index_put_(sparse_index_rows(s.indices()), values.to(result.scalar_type()), /*accumulate=*/true);
  return result;
}

Tensor mul_out_sparse(const Tensor& self, const Tensor& other, const Tensor& out) {
  const char* op = "mul";
  const bool self_sparse = is_sparse(self);
  const Tensor& sp = self_sparse ? self : other;
  const Tensor& factor = self_sparse ? other : self;
  EMBER_CHECK(!is_sparse(factor), "{}: multiplying two sparse tensors is not supported", op);
  EMBER_CHECK(factor.dim() == 0,
              "{}: a sparse tensor can be multiplied only by a number or a 0-d tensor, but got a tensor of size {}",
              op, c10::str_sizes(factor.sizes()));
  const SparseTensorImpl& s = sparse_impl(sp, op);
  const Tensor values = ember::mul(s.values(), factor);
  return store_sparse(op, make_sparse_tensor_unchecked(s.indices(), values, sp.sizes(), s.coalesced()), out);
}

Tensor sum_sparse(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "sum";
  const SparseTensorImpl& s = sparse_impl(self, op);
  const ScalarType result_dtype = dtype ? *dtype
                                        : c10::isIntegralType(self.scalar_type(), true) ? ScalarType::Long
                                                                                        : self.scalar_type();
  std::vector<bool> reduced(self.dim(), !dim || dim->empty());
  for (int64_t d : dim ? *dim : IntArrayRef()) {
    const int64_t w = c10::maybe_wrap_dim(d, self.dim());
    EMBER_CHECK(!reduced[w], "{}: dim {} appears multiple times in the list of dims", op, w);
    reduced[w] = true;
  }
  if (std::all_of(reduced.begin(), reduced.end(), [](bool r) { return r; })) {
    Tensor total = ember::sum(s.values(), dtype);
    if (keepdim) total = total.reshape(std::vector<int64_t>(self.dim(), 1));
    return total;
  }
  EMBER_CHECK(!keepdim, "{}: keepdim=True is not supported for a sparse tensor summed over some of its dims", op);
  // Dense dims sum inside the values; sparse dims drop out of the indices.
  std::vector<int64_t> dense_dims, kept_sparse, sizes;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d >= s.sparse_dim() && reduced[d]) dense_dims.push_back(d - s.sparse_dim() + 1);
    if (!reduced[d]) sizes.push_back(self.size(d));
    if (d < s.sparse_dim() && !reduced[d]) kept_sparse.push_back(d);
  }
  Tensor values = dense_dims.empty() ? s.values().to(result_dtype)
                                     : ember::sum(s.values(), IntArrayRef(dense_dims), false, result_dtype);
  if (kept_sparse.empty()) return ember::sum(values, IntArrayRef(std::vector<int64_t>{0}), false, std::nullopt);
  std::vector<Tensor> rows;
  for (int64_t d : kept_sparse) rows.push_back(s.indices().select(0, d));
  const Tensor indices = ember::stack(rows);
  return ember::_coalesce(make_sparse_tensor_unchecked(indices, values, sizes, false));
}

namespace {

void check_mm_operands(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 2 && b.dim() == 2, "mm: expected 2-d tensors, but got {}-d and {}-d", a.dim(), b.dim());
  EMBER_CHECK(a.size(1) == b.size(0), "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", a.size(0),
              a.size(1), b.size(0), b.size(1));
  EMBER_CHECK(a.scalar_type() == b.scalar_type(), "mm: expected mat1 and mat2 to have the same dtype, but got: {} != {}",
              c10::toString(a.scalar_type()), c10::toString(b.scalar_type()));
}

// sparse [n, k] @ strided [k, m]: every entry (i, j, v) adds v * dense[j] to row i.
Tensor sparse_times_dense(const SparseTensorImpl& s, IntArrayRef sizes, const Tensor& dense) {
  Tensor result = ember::zeros({sizes[0], dense.size(1)}, dense.options());
  if (s.nnz() == 0) return result;
  const Tensor rows = s.indices().select(0, 0);
  if (s.sparse_dim() == 1) {
    // Whole rows are stored: values [nnz, k].
    return result.index_add_(0, rows, s.values().mm(dense));
  }
  const Tensor contributions = dense.index_select(0, s.indices().select(0, 1)).mul(s.values().unsqueeze(1));
  return result.index_add_(0, rows, contributions);
}

}  // namespace

Tensor mm_sparse(const Tensor& self, const Tensor& mat2) {
  check_mm_operands(self, mat2);
  if (is_sparse(self) && is_sparse(mat2)) return mm_sparse(self, ember::_to_dense(mat2, std::nullopt)).to_sparse();
  if (is_sparse(self)) return sparse_times_dense(sparse_impl(self, "mm"), self.sizes(), mat2);
  // dense @ sparse = (sparse^T @ dense^T)^T
  const Tensor st = transpose_sparse(mat2, 0, 1);
  return sparse_times_dense(sparse_impl(st, "mm"), st.sizes(), self.t()).t().contiguous();
}

Tensor transpose_sparse(const Tensor& self, int64_t dim0, int64_t dim1) {
  const SparseTensorImpl& s = sparse_impl(self, "transpose");
  const int64_t d0 = c10::maybe_wrap_dim(dim0, self.dim()), d1 = c10::maybe_wrap_dim(dim1, self.dim());
  if (d0 == d1) return self;
  EMBER_CHECK(d0 < s.sparse_dim() && d1 < s.sparse_dim(),
              "transpose: a sparse tensor swaps only sparse dims (it has {}), but got dims {} and {}", s.sparse_dim(),
              dim0, dim1);
  std::vector<Tensor> rows;
  for (int64_t d = 0; d < s.sparse_dim(); ++d) rows.push_back(s.indices().select(0, d == d0 ? d1 : d == d1 ? d0 : d));
  std::vector<int64_t> sizes = self.sizes().vec();
  std::swap(sizes[d0], sizes[d1]);
  const Tensor indices = ember::stack(rows);
  return make_sparse_tensor_unchecked(indices, s.values(), sizes, s.nnz() <= 1);
}

Tensor clone_sparse(const Tensor& self, std::optional<MemoryFormat> /*memory_format: sparse has no strides*/) {
  const SparseTensorImpl& s = sparse_impl(self, "clone");
  return make_sparse_tensor_unchecked(s.indices().clone(), s.values().clone(), self.sizes(), s.coalesced());
}

Tensor detach_sparse(const Tensor& self) {
  const SparseTensorImpl& s = sparse_impl(self, "detach");
  return make_sparse_tensor_unchecked(s.indices(), s.values(), self.sizes(), s.coalesced());
}

}  // namespace ember::native
