// embedding: rows of a weight matrix picked by index.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>

namespace ember::native {

// Autograd sees embedding as one op (derivatives.yaml), so the backward can
// honour padding_idx and scale_grad_by_freq.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                 bool /*sparse*/) {
  EMBER_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  EMBER_CHECK(indices.dtype() == ScalarType::Long || indices.dtype() == ScalarType::Int,
              "embedding(): Expected tensor for argument #1 'indices' to have one of the following scalar types: "
              "Long, Int; but got {} instead",
              c10::toString(indices.dtype()));
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(weight.size(1));
  return ember::index_select(weight, 0, indices.reshape({-1})).view(shape);
}

}  // namespace ember::native
