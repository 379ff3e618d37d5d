#pragma once
// SGD with momentum, dampening, weight decay and Nesterov, as Python's.

#include <api/nn/options.h>
#include <api/optim/optimizer.h>

namespace ember::optim {

struct SGDOptions : OptimizerOptions {
  SGDOptions(double lr = 1e-3) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(double, dampening) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, nesterov) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<SGDOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, serialize::Value>> to_dict() const override;
  void from_dict(const serialize::Value& group) override;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<ParamGroup> groups, const SGDOptions& defaults);
  SGD(std::vector<Tensor> params, const SGDOptions& defaults)
      : SGD(std::vector<ParamGroup>{ParamGroup(std::move(params))}, defaults) {}
  void step() override;
};

}  // namespace ember::optim
