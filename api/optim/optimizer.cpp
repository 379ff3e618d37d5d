#include <api/optim/optimizer.h>

#include <c10/util/Exception.h>

#include <set>

namespace ember::optim {

ParamGroup::ParamGroup(const ParamGroup& other)
    : params(other.params), options(other.options ? other.options->clone() : nullptr) {}

ParamGroup& ParamGroup::operator=(const ParamGroup& other) {
  params = other.params;
  options = other.options ? other.options->clone() : nullptr;
  return *this;
}

Optimizer::Optimizer(std::vector<ParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  EMBER_CHECK_VALUE(!groups.empty(), "optimizer got an empty parameter list");
  for (auto& group : groups) add_param_group(std::move(group));
}

void Optimizer::add_param_group(ParamGroup group) {
  std::set<const void*> seen;
  for (const auto& g : groups_) {
    for (const auto& p : g.params) seen.insert(p.unsafeGetTensorImpl());
  }
  for (const auto& p : group.params) {
    EMBER_CHECK_VALUE(p.defined(), "optimizer got an undefined parameter");
    EMBER_CHECK_VALUE(p.is_leaf(), "can't optimize a non-leaf Tensor");
    EMBER_CHECK_VALUE(seen.insert(p.unsafeGetTensorImpl()).second,
                      "some parameters appear in more than one parameter group");
  }
  if (!group.options) group.options = defaults_->clone();
  groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (auto& group : groups_) {
    for (auto& p : group.params) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.mutable_grad() = Tensor();
      } else {
        p.mutable_grad() = p.grad().detach();
        p.mutable_grad().zero_();
      }
    }
  }
}

std::map<std::string, Tensor>& Optimizer::state(const Tensor& param) { return state_[param.unsafeGetTensorImpl()]; }

bool Optimizer::has_state(const Tensor& param) const { return state_.count(param.unsafeGetTensorImpl()) > 0; }

}  // namespace ember::optim
