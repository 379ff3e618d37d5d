#pragma once
// ember::nn::functional: Python's ember.nn.functional for C++, each a call
// of the dispatcher op Python's calls, with options structs for the keyword
// arguments: cross_entropy(x, y, CrossEntropyFuncOptions().label_smoothing(0.1)).

#include <api/nn/options.h>
#include <aten/core/Tensor.h>

#include <optional>

namespace ember::nn::functional {

enum class Reduction { None = 0, Mean = 1, Sum = 2 };

struct CrossEntropyFuncOptions {
  EMBER_ARG(std::optional<Tensor>, weight) = std::nullopt;
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(Reduction, reduction) = Reduction::Mean;
  EMBER_ARG(double, label_smoothing) = 0.0;
};
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {});

struct NLLLossFuncOptions {
  EMBER_ARG(std::optional<Tensor>, weight) = std::nullopt;
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(Reduction, reduction) = Reduction::Mean;
};
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});

struct MSELossFuncOptions {
  EMBER_ARG(Reduction, reduction) = Reduction::Mean;
};
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt);
Tensor relu(const Tensor& input);
Tensor gelu(const Tensor& input, const std::string& approximate = "none");
Tensor silu(const Tensor& input);
Tensor softmax(const Tensor& input, int64_t dim);
Tensor log_softmax(const Tensor& input, int64_t dim);
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true);

}  // namespace ember::nn::functional
