#pragma once
// The checks that every copy_ kernel (CPU, CUDA) makes before moving data.

#include <aten/core/Tensor.h>

namespace ember::native {

// Both tensors defined, and `src` broadcastable to `self`'s shape.
void check_copy_shapes(const Tensor& self, const Tensor& src);
// A written-to tensor may not have several elements at one address (an
// expanded view): the result would depend on the order of the writes.
void check_no_internal_overlap(const Tensor& self);

}  // namespace ember::native
