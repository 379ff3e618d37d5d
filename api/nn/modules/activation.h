#pragma once
// Activations and dropout: modules around one functional op each.

#include <api/nn/ModuleHolder.h>
#include <api/nn/options.h>

namespace ember::nn {

class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(bool inplace = false) : Cloneable("ReLU"), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace;
};
EMBER_MODULE(ReLU);

class GELUImpl : public Cloneable<GELUImpl> {
 public:
  // "none" (the exact form) or "tanh".
  explicit GELUImpl(std::string approximate = "none") : Cloneable("GELU"), approximate(std::move(approximate)) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return "approximate='" + approximate + "'"; }
  std::string approximate;
};
EMBER_MODULE(GELU);

class SiLUImpl : public Cloneable<SiLUImpl> {
 public:
  SiLUImpl() : Cloneable("SiLU") {}
  Tensor forward(const Tensor& input) override;
};
EMBER_MODULE(SiLU);

class TanhImpl : public Cloneable<TanhImpl> {
 public:
  TanhImpl() : Cloneable("Tanh") {}
  Tensor forward(const Tensor& input) override;
};
EMBER_MODULE(Tanh);

class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  explicit SoftmaxImpl(int64_t dim) : Cloneable("Softmax"), dim(dim) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  int64_t dim;
};
EMBER_MODULE(Softmax);

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};

// Zeroes elements with probability p while training and scales the rest by
// 1 / (1 - p); the identity in eval mode.
class DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  DropoutOptions options;
};
EMBER_MODULE(Dropout);

}  // namespace ember::nn
