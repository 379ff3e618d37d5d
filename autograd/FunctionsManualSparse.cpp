// Backward formulas that depend on layout: a sparse input receives a sparse
// gradient with its own pattern, a strided one a strided gradient.

#include <autograd/FunctionsManual.h>

#include <aten/Functions.h>
#include <aten/core/SparseTensorImpl.h>

namespace ember::autograd::manual {

namespace {
Tensor strided(const Tensor& t) { return is_sparse(t) ? t.to_dense() : t; }
// conj has no sparse kernel; real tensors need none.
Tensor conj_if_complex(const Tensor& t) { return t.is_complex() ? t.conj() : t; }
// A dense matrix stored column by column: the transpose of a contiguous one,
// as linear's weight.t() is.
bool is_column_major(const Tensor& t) {
  return !is_sparse(t) && t.dim() == 2 && t.size(0) > 1 && t.size(1) > 1 && t.stride(0) == 1 &&
         t.stride(1) == t.size(0);
}
}  // namespace

// The gradient of a column-major operand is computed transposed, so that it
// has the operand's layout, as torch does: linear's weight.t() then gives
// the weight a contiguous gradient instead of a transposed one that
// AccumulateGrad copies (a 4 MiB transposing copy per layer and step: MLP
// 512-1024-1024-10's backward 6.4 -> 3.x ms).
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, const Tensor& self) {
  if (is_column_major(self) && !is_sparse(grad) && !is_sparse(mat2)) return conj_if_complex(mat2).mm(grad.t()).t();
  const Tensor g = grad.mm(conj_if_complex(mat2.t()));
  return is_sparse(self) ? strided(g).sparse_mask(self) : strided(g);
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& self, const Tensor& mat2) {
  if (is_column_major(mat2) && !is_sparse(grad) && !is_sparse(self)) return grad.t().mm(conj_if_complex(self)).t();
  const Tensor g = conj_if_complex(self.t()).mm(grad);
  return is_sparse(mat2) ? strided(g).sparse_mask(mat2) : strided(g);
}

Tensor sparse_values_backward(const Tensor& grad, const Tensor& indices) {
  // A gradient with the tensor's own pattern (from to_dense's backward) has
  // one value per entry, repeated indices included; summing it into strided
  // form first would count a repeated index once per repeat.
  if (is_sparse(grad)) {
    const SparseTensorImpl& g = sparse_impl(grad, "sparse_coo_tensor");
    if (g.indices().is_same(indices)) return g.values();
  }
  return strided(grad).index(sparse_index_rows(indices));
}

Tensor sparse_mask_backward(const Tensor& grad, const Tensor& mask) {
  return is_sparse(grad) ? grad.to_dense() : grad.sparse_mask(mask).to_dense();
}

Tensor embedding_sparse_backward(Tensor rows, Tensor flat_indices, IntArrayRef weight_sizes, int64_t padding_idx) {
  if (padding_idx >= 0) {
    // The padding row gets no entry at all, so optimizers leave it alone.
    const Tensor keep = flat_indices.ne(padding_idx).nonzero().reshape({-1});
    flat_indices = flat_indices.index_select(0, keep);
    rows = rows.index_select(0, keep);
  }
  return make_sparse_tensor_unchecked(flat_indices.unsqueeze(0).contiguous(), rows.contiguous(), weight_sizes, false);
}

}  // namespace ember::autograd::manual
