#pragma once
// ember::optim: optimizers over groups of parameters, each group with its
// own options (lr, ...), as Python's ember.optim. The updates are Python's
// (the same dispatcher ops; Adam through the fused _adam_step_ kernel both
// frontends call), so the two frontends train to the same parameters.

#include <aten/core/Tensor.h>
#include <aten/serialize/Serialization.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ember::optim {

// The options every group carries: what schedulers change.
struct OptimizerOptions {
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // The keys and values of Python's param_group dicts (state_dict), and
  // back from such a dict (load_state_dict).
  virtual std::vector<std::pair<std::string, serialize::Value>> to_dict() const = 0;
  virtual void from_dict(const serialize::Value& group) = 0;
};

// A number or bool entry of a param_group dict, as a double ("lr" may have
// been written as 1 or 0.1); an error naming the key where it is missing.
double group_number(const serialize::Value& group, const std::string& key);

struct ParamGroup {
  ParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options = nullptr)
      : params(std::move(params)), options(std::move(options)) {}
  ParamGroup(const ParamGroup& other);
  ParamGroup& operator=(const ParamGroup& other);
  ParamGroup(ParamGroup&&) = default;
  ParamGroup& operator=(ParamGroup&&) = default;

  std::vector<Tensor> params;
  std::unique_ptr<OptimizerOptions> options;  // the optimizer's defaults if null
};

class Optimizer {
 public:
  Optimizer(std::vector<ParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  virtual void step() = 0;
  // Gradients set to undefined (set_to_none, Python's default) or zeroed.
  void zero_grad(bool set_to_none = true);
  void add_param_group(ParamGroup group);

  std::vector<ParamGroup>& param_groups() { return groups_; }
  const OptimizerOptions& defaults() const { return *defaults_; }

  // Per-parameter state (keyed by the tensor's identity): named tensors
  // such as "momentum_buffer", "exp_avg", "step".
  std::map<std::string, Tensor>& state(const Tensor& param);
  bool has_state(const Tensor& param) const;

  // Python's optimizer state_dict: {"state": {index: {name: tensor}},
  // "param_groups": [{options..., "params": [index, ...]}]}, parameters
  // numbered in group order; either frontend loads the other's.
  serialize::Value state_dict() const;
  void load_state_dict(const serialize::Value& state_dict);

 protected:
  std::vector<ParamGroup> groups_;
  std::unique_ptr<OptimizerOptions> defaults_;

 private:
  std::map<const void*, std::map<std::string, Tensor>> state_;
};

}  // namespace ember::optim
