#pragma once
// Adam and AdamW, as Python's: the same fused _adam_step_ kernel, the same
// per-parameter state ("step", "exp_avg", "exp_avg_sq").

#include <api/nn/options.h>
#include <api/optim/optimizer.h>

namespace ember::optim {

struct AdamOptions : OptimizerOptions {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, beta1) = 0.9;
  EMBER_ARG(double, beta2) = 0.999;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;
  // AdamW's weight decay: p *= 1 - lr * weight_decay, apart from the moments.
  EMBER_ARG(bool, decoupled_weight_decay) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, serialize::Value>> to_dict() const override;
  void from_dict(const serialize::Value& group) override;
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<ParamGroup> groups, const AdamOptions& defaults);
  Adam(std::vector<Tensor> params, const AdamOptions& defaults)
      : Adam(std::vector<ParamGroup>{ParamGroup(std::move(params))}, defaults) {}
  void step() override;
};

// Adam with decoupled weight decay, 0.01 unless given (Python's AdamW).
class AdamW : public Adam {
 public:
  AdamW(std::vector<Tensor> params, AdamOptions defaults = AdamOptions().weight_decay(1e-2))
      : Adam(std::move(params), defaults.decoupled_weight_decay(true)) {}
};

}  // namespace ember::optim
