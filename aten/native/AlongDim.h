#pragma once
// Ops that work along one dim and keep it (softmax, cumsum): the input is
// viewed as contiguous rows of that dim, and the result is put back.

#include <aten/Functions.h>
#include <c10/util/SmallVector.h>

#include <algorithm>
#include <vector>

namespace ember::native {

// Moves `dim` last and makes rows contiguous; `restore` puts a result of the
// permuted shape back in the input's dim order, contiguous.
struct AlongDim {
  Tensor rows;  // [outer, n]
  int64_t outer = 1, n = 1;
  c10::DimVector order, permuted_shape;
  bool already_last = false;  // dim was the last one: no permutation either way
  Tensor restore(const Tensor& result_rows) const {
    if (already_last) return result_rows.reshape(permuted_shape);
    c10::DimVector inverse(order.size());
    for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = static_cast<int64_t>(i);
    return result_rows.reshape(permuted_shape).permute(inverse).contiguous();
  }
};

inline AlongDim along_dim(const Tensor& self, int64_t dim, ScalarType dtype) {
  AlongDim a;
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  const Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  dim = c10::maybe_wrap_dim(dim, nd);
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) a.order.push_back(d);
  a.order.push_back(dim);
  for (int64_t d : a.order) a.permuted_shape.push_back(x.size(d));
  a.n = x.size(dim);
  a.outer = a.n == 0 ? 0 : x.numel() / a.n;
  a.already_last = dim == nd - 1;
  const Tensor converted = x.scalar_type() == dtype ? x : x.to(dtype);
  a.rows = (a.already_last ? converted : converted.permute(a.order)).contiguous().reshape({a.outer, a.n});
  return a;
}

}  // namespace ember::native
