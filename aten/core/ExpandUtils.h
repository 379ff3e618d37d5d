#pragma once
// Broadcasting rules shared by copy_, TensorIterator and shape inference.

#include <c10/util/ArrayRef.h>
#include <c10/util/SmallVector.h>

#include <string_view>
#include <vector>

namespace ember {

// The broadcast shape of a and b, or a RuntimeError naming the first
// mismatching dimension in PyTorch's words, after "op: " when op is given.
std::vector<int64_t> infer_size(c10::IntArrayRef a, c10::IntArrayRef b, std::string_view op = {});
// The same without a heap allocation up to six dims (TensorIterator's per-call path).
c10::DimVector infer_size_dimvector(c10::IntArrayRef a, c10::IntArrayRef b, std::string_view op = {});

// True when no two elements share memory and they fill a contiguous block in
// some dim order: such a layout can be preserved by empty_like/clone.
bool is_non_overlapping_and_dense(c10::IntArrayRef sizes, c10::IntArrayRef strides);

// Dense strides that order the dims as `strides` does (torch's
// infer_dense_strides), so that empty_like/clone of e.g. a sliced transposed
// matrix stays column-major.
std::vector<int64_t> infer_dense_strides(c10::IntArrayRef sizes, c10::IntArrayRef strides);

}  // namespace ember
