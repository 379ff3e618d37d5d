#include <api/nn/functional.h>

#include <aten/Functions.h>

namespace ember::nn::functional {

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  return ember::cross_entropy_loss(input, target, options.weight(), static_cast<int64_t>(options.reduction()),
                                   options.ignore_index(), options.label_smoothing());
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  return ember::nll_loss(input, target, options.weight(), static_cast<int64_t>(options.reduction()),
                         options.ignore_index());
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  return ember::mse_loss(input, target, static_cast<int64_t>(options.reduction()));
}

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  return ember::linear(input, weight, bias);
}
Tensor relu(const Tensor& input) { return ember::relu(input); }
Tensor gelu(const Tensor& input, const std::string& approximate) { return ember::gelu(input, approximate); }
Tensor silu(const Tensor& input) { return ember::silu(input); }
Tensor softmax(const Tensor& input, int64_t dim) { return ember::softmax(input, dim); }
Tensor log_softmax(const Tensor& input, int64_t dim) { return ember::log_softmax(input, dim); }
Tensor dropout(const Tensor& input, double p, bool training) { return ember::dropout(input, p, training); }

}  // namespace ember::nn::functional
