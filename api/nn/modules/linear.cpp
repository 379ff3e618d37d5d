#include <api/nn/modules/linear.h>

#include <api/nn/init.h>
#include <aten/Functions.h>

#include <cmath>

namespace ember::nn {

LinearImpl::LinearImpl(const LinearOptions& options) : LinearImpl(options, "Linear") {}

LinearImpl::LinearImpl(const LinearOptions& options, std::string type_name)
    : Cloneable(std::move(type_name)), options(options) {
  reset();
}

void LinearImpl::reset() {
  weight = register_parameter("weight", ember::empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? ember::empty({options.out_features()}) : Tensor());
  reset_parameters();
}

void LinearImpl::reset_parameters() { init::linear_layer_defaults_(weight, bias); }

Tensor LinearImpl::forward(const Tensor& input) {
  return ember::linear(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt);
}

std::string LinearImpl::extra_repr() const {
  return "in_features=" + std::to_string(options.in_features()) +
         ", out_features=" + std::to_string(options.out_features()) + ", bias=" + py_repr(options.bias());
}

BilinearImpl::BilinearImpl(const BilinearOptions& options) : Cloneable("Bilinear"), options(options) { reset(); }

void BilinearImpl::reset() {
  weight = register_parameter(
      "weight", ember::empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? ember::empty({options.out_features()}) : Tensor());
  const double bound = 1 / std::sqrt(double(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return ember::bilinear(input1, input2, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt);
}

std::string BilinearImpl::extra_repr() const {
  return "in1_features=" + std::to_string(options.in1_features()) +
         ", in2_features=" + std::to_string(options.in2_features()) +
         ", out_features=" + std::to_string(options.out_features()) + ", bias=" + py_repr(options.bias());
}

Tensor FlattenImpl::forward(const Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }

std::string FlattenImpl::extra_repr() const {
  return "start_dim=" + std::to_string(options.start_dim()) + ", end_dim=" + std::to_string(options.end_dim());
}

}  // namespace ember::nn
