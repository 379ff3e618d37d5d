#include <api/nn/init.h>

#include <aten/Functions.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

#include <cmath>

namespace ember::nn::init {

double calculate_gain(const std::string& nonlinearity, double param) {
  for (const char* linear : {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                             "conv_transpose3d", "sigmoid"}) {
    if (nonlinearity == linear) return 1.0;
  }
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1 + param * param));
  if (nonlinearity == "selu") return 3.0 / 4;
  EMBER_CHECK_VALUE(false, "Unsupported nonlinearity {}", nonlinearity);
  return 0;
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK_VALUE(tensor.dim() >= 2,
                    "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor uniform_(Tensor tensor, double low, double high) {
  c10::NoGradGuard no_grad;
  return tensor.uniform_(low, high);
}

Tensor normal_(Tensor tensor, double mean, double std) {
  c10::NoGradGuard no_grad;
  return tensor.normal_(mean, std);
}

Tensor constant_(Tensor tensor, double value) {
  c10::NoGradGuard no_grad;
  return tensor.fill_(value);
}

Tensor ones_(Tensor tensor) { return init::constant_(std::move(tensor), 1.0); }

Tensor zeros_(Tensor tensor) {
  c10::NoGradGuard no_grad;
  return tensor.zero_();
}

Tensor eye_(Tensor tensor) {
  EMBER_CHECK_VALUE(tensor.dim() == 2, "Only tensors with 2 dimensions are supported");
  c10::NoGradGuard no_grad;
  return tensor.copy_(ember::eye(tensor.size(0), tensor.size(1), tensor.scalar_type()));
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double bound = std::sqrt(3.0) * gain * std::sqrt(2.0 / double(fan_in + fan_out));
  return init::uniform_(std::move(tensor), -bound, bound);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return init::normal_(std::move(tensor), 0.0, gain * std::sqrt(2.0 / double(fan_in + fan_out)));
}

namespace {
// The standard deviation Kaiming initialization aims at; 0 for an empty tensor.
double kaiming_std(const Tensor& tensor, double a, FanMode mode, const std::string& nonlinearity) {
  if (tensor.numel() == 0) return 0;
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return calculate_gain(nonlinearity, a) / std::sqrt(double(mode == FanMode::FanIn ? fan_in : fan_out));
}
}  // namespace

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, const std::string& nonlinearity) {
  const double std = kaiming_std(tensor, a, mode, nonlinearity);
  if (tensor.numel() == 0) return tensor;  // a no-op, as in Python
  return init::uniform_(std::move(tensor), -std::sqrt(3.0) * std, std::sqrt(3.0) * std);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, const std::string& nonlinearity) {
  const double std = kaiming_std(tensor, a, mode, nonlinearity);
  if (tensor.numel() == 0) return tensor;
  return init::normal_(std::move(tensor), 0.0, std);
}

void linear_layer_defaults_(const Tensor& weight, const Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  const int64_t fan_in = calculate_fan_in_and_fan_out(weight).first;
  if (fan_in != 0) init::uniform_(bias, -1 / std::sqrt(double(fan_in)), 1 / std::sqrt(double(fan_in)));
}

}  // namespace ember::nn::init
