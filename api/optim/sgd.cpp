#include <api/optim/sgd.h>

#include <aten/Functions.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

namespace ember::optim {

std::vector<std::pair<std::string, serialize::Value>> SGDOptions::to_dict() const {
  using serialize::Value;
  return {{"lr", Value::of(lr())},
          {"momentum", Value::of(momentum())},
          {"dampening", Value::of(dampening())},
          {"weight_decay", Value::of(weight_decay())},
          {"nesterov", Value::of(nesterov())},
          {"maximize", Value::of(maximize())},
          {"foreach", Value::none()},
          {"differentiable", Value::of(false)},
          {"fused", Value::none()}};
}

void SGDOptions::from_dict(const serialize::Value& group) {
  lr(group_number(group, "lr"));
  momentum(group_number(group, "momentum"));
  dampening(group_number(group, "dampening"));
  weight_decay(group_number(group, "weight_decay"));
  nesterov(group_number(group, "nesterov") != 0);
  maximize(group_number(group, "maximize") != 0);
}

SGD::SGD(std::vector<ParamGroup> groups, const SGDOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  EMBER_CHECK_VALUE(defaults.lr() >= 0, "Invalid learning rate: {}", defaults.lr());
  EMBER_CHECK_VALUE(defaults.momentum() >= 0, "Invalid momentum value: {}", defaults.momentum());
  EMBER_CHECK_VALUE(defaults.weight_decay() >= 0, "Invalid weight_decay value: {}", defaults.weight_decay());
  EMBER_CHECK_VALUE(!defaults.nesterov() || (defaults.momentum() > 0 && defaults.dampening() == 0),
                    "Nesterov momentum requires a momentum and zero dampening");
}

void SGD::step() {
  c10::NoGradGuard no_grad;
  for (auto& group : groups_) {
    const auto& o = static_cast<const SGDOptions&>(*group.options);
    for (auto& p : group.params) {
      if (!p.grad().defined()) continue;
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        auto& s = state(p);
        auto it = s.find("momentum_buffer");
        if (it == s.end()) {
          it = s.emplace("momentum_buffer", grad.detach().clone()).first;
        } else {
          it->second.mul_(o.momentum()).add_(grad, 1 - o.dampening());
        }
        grad = o.nesterov() ? grad.add(it->second, o.momentum()) : it->second;
      }
      p.add_(grad, -o.get_lr());
    }
  }
}

}  // namespace ember::optim
