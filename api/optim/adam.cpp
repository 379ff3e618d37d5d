#include <api/optim/adam.h>

#include <aten/Functions.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

#include <cmath>

namespace ember::optim {

std::vector<std::pair<std::string, serialize::Value>> AdamOptions::to_dict() const {
  using serialize::Value;
  return {{"lr", Value::of(lr())},
          {"betas", Value::tuple({Value::of(beta1()), Value::of(beta2())})},
          {"eps", Value::of(eps())},
          {"weight_decay", Value::of(weight_decay())},
          {"amsgrad", Value::of(false)},
          {"maximize", Value::of(maximize())},
          {"foreach", Value::none()},
          {"capturable", Value::of(false)},
          {"differentiable", Value::of(false)},
          {"fused", Value::none()},
          {"decoupled_weight_decay", Value::of(decoupled_weight_decay())}};
}

void AdamOptions::from_dict(const serialize::Value& group) {
  EMBER_CHECK_VALUE(group_number(group, "amsgrad") == 0, "load_state_dict: the C++ Adam has no amsgrad variant yet");
  lr(group_number(group, "lr"));
  for (const auto& [key, value] : group.entries) {
    if (key.string_value == "betas" && value.items.size() == 2) {
      const auto number = [](const serialize::Value& v) {
        return v.kind == serialize::Value::Kind::Int ? double(v.int_value) : v.float_value;
      };
      beta1(number(value.items[0]));
      beta2(number(value.items[1]));
    }
  }
  eps(group_number(group, "eps"));
  weight_decay(group_number(group, "weight_decay"));
  maximize(group_number(group, "maximize") != 0);
  decoupled_weight_decay(group_number(group, "decoupled_weight_decay") != 0);
}

Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  EMBER_CHECK_VALUE(defaults.lr() >= 0, "Invalid learning rate: {}", defaults.lr());
  EMBER_CHECK_VALUE(defaults.eps() >= 0, "Invalid epsilon value: {}", defaults.eps());
  EMBER_CHECK_VALUE(defaults.beta1() >= 0 && defaults.beta1() < 1, "Invalid beta parameter at index 0: {}",
                    defaults.beta1());
  EMBER_CHECK_VALUE(defaults.beta2() >= 0 && defaults.beta2() < 1, "Invalid beta parameter at index 1: {}",
                    defaults.beta2());
  EMBER_CHECK_VALUE(defaults.weight_decay() >= 0, "Invalid weight_decay value: {}", defaults.weight_decay());
}

namespace {
// What the fused kernel takes (as Python's Adam decides): dense float or
// double tensors of one dtype and shape.
bool fusable(const Tensor& p, std::map<std::string, Tensor>& s) {
  if (p.scalar_type() != ScalarType::Float && p.scalar_type() != ScalarType::Double) return false;
  for (const Tensor* t : std::initializer_list<const Tensor*>{&p, &p.grad(), &s["exp_avg"], &s["exp_avg_sq"]}) {
    if (!t->is_contiguous() || t->is_conj() || t->scalar_type() != p.scalar_type() || t->sizes() != p.sizes()) {
      return false;
    }
  }
  return true;
}
}  // namespace

// The kernel Python's Adam calls, with its state as Python keeps it: a
// float32 0-d "step" and the two moments.
void Adam::step() {
  c10::NoGradGuard no_grad;
  for (auto& group : groups_) {
    const auto& o = static_cast<const AdamOptions&>(*group.options);
    for (auto& p : group.params) {
      if (!p.grad().defined()) continue;
      auto& s = state(p);
      if (s.empty()) {
        s["step"] = ember::zeros({}, ScalarType::Float);
        s["exp_avg"] = ember::zeros_like(p);
        s["exp_avg_sq"] = ember::zeros_like(p);
      }
      s["step"].add_(1);
      const double step = s["step"].item<double>();
      if (fusable(p, s)) {
        ember::_adam_step_(p, p.grad(), s["exp_avg"], s["exp_avg_sq"], step, o.get_lr(), o.beta1(), o.beta2(),
                           o.weight_decay(), o.eps(), o.maximize(), o.decoupled_weight_decay());
        continue;
      }
      // Python's op-by-op update, for what the kernel does not take.
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) {
        if (o.decoupled_weight_decay()) {
          p.mul_(1 - o.get_lr() * o.weight_decay());
        } else {
          grad = grad.add(p, o.weight_decay());
        }
      }
      s["exp_avg"].lerp_(grad, 1 - o.beta1());
      s["exp_avg_sq"].mul_(o.beta2()).addcmul_(grad, grad, 1 - o.beta2());
      const double step_size = o.get_lr() / (1 - std::pow(o.beta1(), step));
      const double correction2_sqrt = std::sqrt(1 - std::pow(o.beta2(), step));
      p.addcdiv_(s["exp_avg"], (s["exp_avg_sq"].sqrt() / correction2_sqrt).add_(o.eps()), -step_size);
    }
  }
}

}  // namespace ember::optim
