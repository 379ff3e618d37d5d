#pragma once
// ember::nn::init: the initializers of Python's ember.nn.init, with the same
// formulas and the same draws (uniform_/normal_ on the default generator),
// so a module made in C++ after manual_seed(s) holds the weights Python's
// gets after the same seed.

#include <aten/core/Tensor.h>

#include <string>
#include <utility>

namespace ember::nn::init {

enum class FanMode { FanIn, FanOut };

// torch's gains: linear/conv/sigmoid 1, tanh 5/3, relu sqrt(2),
// leaky_relu sqrt(2 / (1 + slope^2)) (slope default 0.01), selu 3/4.
double calculate_gain(const std::string& nonlinearity, double param = 0.01);
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double low = 0.0, double high = 1.0);
Tensor normal_(Tensor tensor, double mean = 0.0, double std = 1.0);
Tensor constant_(Tensor tensor, double value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
Tensor eye_(Tensor tensor);
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                        const std::string& nonlinearity = "leaky_relu");
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                       const std::string& nonlinearity = "leaky_relu");

// The default of Python's Linear and convolution layers: kaiming_uniform_(a
// = sqrt 5) on the weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) on the bias
// (when defined, and fan_in is not 0), drawn in that order.
void linear_layer_defaults_(const Tensor& weight, const Tensor& bias);

}  // namespace ember::nn::init
