#pragma once
// Shared by the factories (TensorFactories.cpp, Random.cpp).

#include <aten/core/Tensor.h>

namespace ember::native {

// A factory fills its result with in-place ops, which bump the version; a
// result only the factory has touched starts at version 0, as in torch.
inline Tensor fresh(Tensor t) {
  t.unsafeGetTensorImpl()->reset_version();
  return t;
}

}  // namespace ember::native
