#include <api/nn/modules/conv.h>

#include <api/nn/init.h>
#include <aten/Functions.h>
#include <c10/util/Exception.h>

#include <cmath>

namespace ember::nn {

namespace {
void check_groups(int64_t in_channels, int64_t out_channels, int64_t groups) {
  EMBER_CHECK_VALUE(groups > 0, "groups must be a positive integer");
  EMBER_CHECK_VALUE(in_channels % groups == 0, "in_channels must be divisible by groups");
  EMBER_CHECK_VALUE(out_channels % groups == 0, "out_channels must be divisible by groups");
}
}  // namespace

Conv2dImpl::Conv2dImpl(const Conv2dOptions& options) : Cloneable("Conv2d"), options(options) {
  check_groups(options.in_channels(), options.out_channels(), options.groups());
  reset();
}

void Conv2dImpl::reset() {
  const IntPair& k = options.kernel_size();
  weight = register_parameter(
      "weight", ember::empty({options.out_channels(), options.in_channels() / options.groups(), k[0], k[1]}));
  bias = register_parameter("bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor());
  reset_parameters();
}

void Conv2dImpl::reset_parameters() { init::linear_layer_defaults_(weight, bias); }

Tensor Conv2dImpl::forward(const Tensor& input) {
  return ember::conv2d(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt,
                       options.stride().ref(), options.padding().ref(), options.dilation().ref(), options.groups());
}

std::string Conv2dImpl::extra_repr() const {
  std::string s = std::to_string(options.in_channels()) + ", " + std::to_string(options.out_channels()) +
                  ", kernel_size=" + py_tuple(options.kernel_size()) + ", stride=" + py_tuple(options.stride());
  if (!options.padding().all(0)) s += ", padding=" + py_tuple(options.padding());
  if (!options.dilation().all(1)) s += ", dilation=" + py_tuple(options.dilation());
  if (options.groups() != 1) s += ", groups=" + std::to_string(options.groups());
  if (!options.bias()) s += ", bias=False";
  return s;
}

ConvTranspose2dImpl::ConvTranspose2dImpl(const ConvTranspose2dOptions& options)
    : Cloneable("ConvTranspose2d"), options(options) {
  check_groups(options.in_channels(), options.out_channels(), options.groups());
  reset();
}

void ConvTranspose2dImpl::reset() {
  const IntPair& k = options.kernel_size();
  weight = register_parameter(
      "weight", ember::empty({options.in_channels(), options.out_channels() / options.groups(), k[0], k[1]}));
  bias = register_parameter("bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor());
  init::linear_layer_defaults_(weight, bias);
}

Tensor ConvTranspose2dImpl::forward(const Tensor& input) {
  return ember::conv_transpose2d(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt,
                                 options.stride().ref(), options.padding().ref(), options.output_padding().ref(),
                                 options.groups(), options.dilation().ref());
}

std::string ConvTranspose2dImpl::extra_repr() const {
  std::string s = std::to_string(options.in_channels()) + ", " + std::to_string(options.out_channels()) +
                  ", kernel_size=" + py_tuple(options.kernel_size()) + ", stride=" + py_tuple(options.stride());
  if (!options.padding().all(0)) s += ", padding=" + py_tuple(options.padding());
  if (!options.dilation().all(1)) s += ", dilation=" + py_tuple(options.dilation());
  if (!options.output_padding().all(0)) s += ", output_padding=" + py_tuple(options.output_padding());
  if (options.groups() != 1) s += ", groups=" + std::to_string(options.groups());
  if (!options.bias()) s += ", bias=False";
  return s;
}

Conv1dImpl::Conv1dImpl(const Conv1dOptions& options) : Cloneable("Conv1d"), options(options) {
  check_groups(options.in_channels(), options.out_channels(), options.groups());
  reset();
}

void Conv1dImpl::reset() {
  weight = register_parameter(
      "weight", ember::empty({options.out_channels(), options.in_channels() / options.groups(), options.kernel_size()}));
  bias = register_parameter("bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor());
  init::linear_layer_defaults_(weight, bias);
}

Tensor Conv1dImpl::forward(const Tensor& input) {
  return ember::conv1d(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt, {options.stride()},
                       {options.padding()}, {options.dilation()}, options.groups());
}

std::string Conv1dImpl::extra_repr() const {
  const auto one = [](int64_t v) { return "(" + std::to_string(v) + ",)"; };
  std::string s = std::to_string(options.in_channels()) + ", " + std::to_string(options.out_channels()) +
                  ", kernel_size=" + one(options.kernel_size()) + ", stride=" + one(options.stride());
  if (options.padding() != 0) s += ", padding=" + one(options.padding());
  if (options.dilation() != 1) s += ", dilation=" + one(options.dilation());
  if (options.groups() != 1) s += ", groups=" + std::to_string(options.groups());
  if (!options.bias()) s += ", bias=False";
  return s;
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return ember::adaptive_avg_pool2d(input, output_size.ref());
}

Tensor MaxPool2dImpl::forward(const Tensor& input) {
  return ember::max_pool2d(input, options.kernel_size().ref(), options.stride().ref(), options.padding().ref(),
                           options.dilation().ref(), options.ceil_mode());
}

std::string MaxPool2dImpl::extra_repr() const {
  return "kernel_size=" + py_repr(options.kernel_size()) + ", stride=" + py_repr(options.stride()) +
         ", padding=" + py_repr(options.padding()) + ", dilation=" + py_repr(options.dilation()) +
         ", ceil_mode=" + py_repr(options.ceil_mode());
}

}  // namespace ember::nn
