// The hand-written parts of Tensor (the operator methods are generated).

#include <aten/core/Tensor.h>

namespace ember {

Tensor& Tensor::set_requires_grad(bool requires_grad) {
  impl_->set_requires_grad(requires_grad);
  return *this;
}

}  // namespace ember
