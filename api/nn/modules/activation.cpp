#include <api/nn/modules/activation.h>

#include <aten/Functions.h>
#include <c10/util/Exception.h>

namespace ember::nn {

Tensor ReLUImpl::forward(const Tensor& input) { return inplace ? ember::relu_(input) : ember::relu(input); }
Tensor GELUImpl::forward(const Tensor& input) { return ember::gelu(input, approximate); }
Tensor SiLUImpl::forward(const Tensor& input) { return ember::silu(input); }
Tensor TanhImpl::forward(const Tensor& input) { return ember::tanh(input); }
Tensor SoftmaxImpl::forward(const Tensor& input) { return ember::softmax(input, dim); }

DropoutImpl::DropoutImpl(const DropoutOptions& options) : Cloneable("Dropout"), options(options) {
  EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                    "dropout probability has to be between 0 and 1, but got {}", options.p());
}

Tensor DropoutImpl::forward(const Tensor& input) {
  Tensor result = ember::dropout(input, options.p(), is_training());
  return options.inplace() ? input.copy_(result) : result;
}

std::string DropoutImpl::extra_repr() const {
  return "p=" + py_repr(options.p()) + ", inplace=" + py_repr(options.inplace());
}

}  // namespace ember::nn
