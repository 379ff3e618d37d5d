#include <api/optim/optimizer.h>

#include <api/nn/Module.h>

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
  for (auto& group : groups_) nn::zero_grad(group.params, set_to_none);
}

std::map<std::string, Tensor>& Optimizer::state(const Tensor& param) { return state_[param.unsafeGetTensorImpl()]; }

bool Optimizer::has_state(const Tensor& param) const { return state_.count(param.unsafeGetTensorImpl()) > 0; }

namespace {
const serialize::Value* entry(const serialize::Value& dict, const std::string& key) {
  for (const auto& [k, v] : dict.entries) {
    if (k.kind == serialize::Value::Kind::String && k.string_value == key) return &v;
  }
  return nullptr;
}

const serialize::Value& required(const serialize::Value& dict, const std::string& key, const char* what) {
  const serialize::Value* v = entry(dict, key);
  EMBER_CHECK_VALUE(v != nullptr, "load_state_dict: {} has no \"{}\"", what, key);
  return *v;
}
}  // namespace

double group_number(const serialize::Value& group, const std::string& key) {
  const serialize::Value& v = required(group, key, "a param group");
  switch (v.kind) {
    case serialize::Value::Kind::Float: return v.float_value;
    case serialize::Value::Kind::Int: return double(v.int_value);
    case serialize::Value::Kind::Bool: return v.bool_value ? 1.0 : 0.0;
    default: EMBER_CHECK_VALUE(false, "load_state_dict: param group entry \"{}\" is not a number", key);
  }
  return 0;
}

serialize::Value Optimizer::state_dict() const {
  using serialize::Value;
  std::vector<std::pair<Value, Value>> state;
  std::vector<Value> groups;
  int64_t index = 0;
  for (const auto& group : groups_) {
    std::vector<std::pair<Value, Value>> entries;
    for (auto& [key, value] : group.options->to_dict()) entries.emplace_back(Value::of(key), value);
    std::vector<Value> params;
    for (const auto& p : group.params) {
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it != state_.end() && !it->second.empty()) {
        std::vector<std::pair<Value, Value>> named;
        for (const auto& [name, tensor] : it->second) named.emplace_back(Value::of(name), Value::of(tensor));
        state.emplace_back(Value::of(index), Value::dict(std::move(named)));
      }
      params.push_back(Value::of(index++));
    }
    entries.emplace_back(Value::of(std::string("params")), Value::list(std::move(params)));
    groups.push_back(Value::dict(std::move(entries)));
  }
  return Value::dict({{Value::of(std::string("state")), Value::dict(std::move(state))},
                      {Value::of(std::string("param_groups")), Value::list(std::move(groups))}});
}

void Optimizer::load_state_dict(const serialize::Value& state_dict) {
  const auto& groups = required(state_dict, "param_groups", "the optimizer state_dict").items;
  EMBER_CHECK_VALUE(groups.size() == groups_.size(),
                    "loaded state dict has a different number of parameter groups ({} here, {} in the file)",
                    groups_.size(), groups.size());
  std::map<int64_t, Tensor> by_index;
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& ids = required(groups[g], "params", "a param group").items;
    EMBER_CHECK_VALUE(ids.size() == groups_[g].params.size(),
                      "loaded state dict contains a parameter group that doesn't match the size of optimizer's group "
                      "({} parameters here, {} in the file)",
                      groups_[g].params.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) by_index[ids[i].int_value] = groups_[g].params[i];
  }
  // Everything checked: now change the groups and the state.
  for (size_t g = 0; g < groups.size(); ++g) groups_[g].options->from_dict(groups[g]);
  state_.clear();
  for (const auto& [key, named] : required(state_dict, "state", "the optimizer state_dict").entries) {
    auto it = by_index.find(key.int_value);
    EMBER_CHECK_VALUE(it != by_index.end(), "load_state_dict: state for parameter {} of no group", key.int_value);
    const Tensor& param = it->second;
    auto& slot = state(param);
    for (const auto& [name, value] : named.entries) {
      // As Python's: moments follow the parameter's dtype and device; "step" stays as saved.
      Tensor t = value.tensor.detach().clone();
      if (name.string_value != "step" && t.is_floating_point()) t = t.to(param.scalar_type()).to(param.device());
      slot[name.string_value] = t;
    }
  }
}

}  // namespace ember::optim
