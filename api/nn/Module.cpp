#include <api/nn/Module.h>

#include <aten/Functions.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <ostream>
#include <set>
#include <sstream>

namespace ember::nn {

namespace {

void check_name(const std::string& name, const char* what) {
  EMBER_CHECK(!name.empty(), "{} name can't be empty string \"\"", what);
  EMBER_CHECK(name.find('.') == std::string::npos, "{} name can't contain \".\", got \"{}\"", what, name);
}

template <typename Entries>
auto find(Entries& entries, const std::string& name) {
  return std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.name == name; });
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "\"" : ", \"") + n + "\"";
  return out;
}

std::string shape_string(const Tensor& t) {
  std::string out = "[";
  for (int64_t d = 0; d < t.dim(); ++d) out += (d ? ", " : "") + std::to_string(t.size(d));
  return out + "]";
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}

void Module::forget(const std::string& name) {
  parameters_.erase(std::remove_if(parameters_.begin(), parameters_.end(), [&](const Entry& e) { return e.name == name; }),
                    parameters_.end());
  buffers_.erase(std::remove_if(buffers_.begin(), buffers_.end(), [&](const Entry& e) { return e.name == name; }),
                 buffers_.end());
  children_.erase(std::remove_if(children_.begin(), children_.end(), [&](const auto& c) { return c.first == name; }),
                  children_.end());
}

Tensor& Module::register_parameter(const std::string& name, Tensor tensor, bool requires_grad) {
  check_name(name, "parameter");
  if (tensor.defined()) {
    EMBER_CHECK(tensor.is_leaf(), "register_parameter: \"{}\" is not a leaf tensor (detach it first)", name);
    tensor.set_requires_grad(requires_grad);
  }
  auto it = find(parameters_, name);
  if (it != parameters_.end()) {
    it->tensor = std::move(tensor);
    return it->tensor;
  }
  forget(name);
  parameters_.push_back({name, std::move(tensor)});
  return parameters_.back().tensor;
}

Tensor& Module::register_buffer(const std::string& name, Tensor tensor) {
  check_name(name, "buffer");
  auto it = find(buffers_, name);
  if (it != buffers_.end()) {
    it->tensor = std::move(tensor);
    return it->tensor;
  }
  forget(name);
  buffers_.push_back({name, std::move(tensor)});
  return buffers_.back().tensor;
}

std::shared_ptr<Module> Module::register_module(const std::string& name, std::shared_ptr<Module> module) {
  check_name(name, "module");
  EMBER_CHECK(module != nullptr, "register_module: \"{}\" is a null module", name);
  for (auto& child : children_) {
    if (child.first == name) {
      child.second = module;
      return module;
    }
  }
  forget(name);
  children_.emplace_back(name, module);
  return module;
}

void Module::collect(const std::string& prefix, bool recurse, bool parameters, NamedTensors& out) const {
  for (const Entry& e : parameters ? parameters_ : buffers_) {
    if (e.tensor.defined()) out.emplace_back(prefix + e.name, e.tensor);
  }
  if (!recurse) return;
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", true, parameters, out);
}

NamedTensors Module::named_parameters(bool recurse) const {
  NamedTensors out;
  collect("", recurse, true, out);
  // A tensor registered twice (shared weights) is listed once, as in Python.
  std::set<const void*> seen;
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const auto& e) { return !seen.insert(e.second.unsafeGetTensorImpl()).second; }),
            out.end());
  return out;
}

NamedTensors Module::named_buffers(bool recurse) const {
  NamedTensors out;
  collect("", recurse, false, out);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& e : named_parameters(recurse)) out.push_back(e.second);
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& e : named_buffers(recurse)) out.push_back(e.second);
  return out;
}

NamedModules Module::named_children() const { return children_; }

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& c : children_) out.push_back(c.second);
  return out;
}

void Module::collect_modules(const std::string& prefix, NamedModules& out) {
  for (const auto& seen : out) {
    if (seen.second.get() == this) return;
  }
  out.emplace_back(prefix, shared_from_this());
  for (const auto& [name, child] : children_) child->collect_modules(prefix.empty() ? name : prefix + "." + name, out);
}

NamedModules Module::named_modules() {
  NamedModules out;
  collect_modules("", out);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules() {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& m : named_modules()) out.push_back(m.second);
  return out;
}

NamedTensors Module::state_dict() const {
  NamedTensors out;
  std::function<void(const Module&, const std::string&)> walk = [&](const Module& m, const std::string& prefix) {
    for (const Entry& e : m.parameters_) {
      if (e.tensor.defined()) out.emplace_back(prefix + e.name, e.tensor.detach());
    }
    for (const Entry& e : m.buffers_) {
      if (e.tensor.defined()) out.emplace_back(prefix + e.name, e.tensor);
    }
    for (const auto& [name, child] : m.children_) walk(*child, prefix + name + ".");
  };
  walk(*this, "");
  return out;
}

void Module::load_state_dict(const NamedTensors& state, bool strict) {
  NamedTensors own = state_dict();
  std::vector<std::string> missing, unexpected, mismatched;
  for (const auto& [name, tensor] : own) {
    auto it = std::find_if(state.begin(), state.end(), [&](const auto& e) { return e.first == name; });
    if (it == state.end()) {
      missing.push_back(name);
    } else if (it->second.sizes() != tensor.sizes()) {
      mismatched.push_back("size mismatch for " + name + ": copying a param with shape " + shape_string(it->second) +
                           " from checkpoint, the shape in current model is " + shape_string(tensor) + ".");
    }
  }
  for (const auto& [name, tensor] : state) {
    if (std::none_of(own.begin(), own.end(), [&](const auto& e) { return e.first == name; })) {
      unexpected.push_back(name);
    }
  }
  std::string errors;
  if (strict && !unexpected.empty()) errors += "\n\tUnexpected key(s) in state_dict: " + join(unexpected) + ".";
  if (strict && !missing.empty()) errors += "\n\tMissing key(s) in state_dict: " + join(missing) + ".";
  for (const auto& m : mismatched) errors += "\n\t" + m;
  EMBER_CHECK(errors.empty(), "Error(s) in loading state_dict for {}:{}", name_, errors);
  c10::NoGradGuard no_grad;
  for (auto& [name, tensor] : own) {
    auto it = std::find_if(state.begin(), state.end(), [&](const auto& e) { return e.first == name; });
    if (it != state.end()) tensor.copy_(it->second);
  }
}

void Module::train(bool on) {
  training_ = on;
  for (auto& child : children_) child.second->train(on);
}

void Module::convert(const std::function<Tensor(const Tensor&)>& fn) {
  c10::NoGradGuard no_grad;
  for (auto* entries : {&parameters_, &buffers_}) {
    for (Entry& e : *entries) {
      if (!e.tensor.defined()) continue;
      // In place, so that every handle on the tensor (a module's `weight`
      // member, an optimizer's list) sees the converted one.
      Tensor converted = fn(e.tensor);
      e.tensor.unsafeGetTensorImpl()->set_data(*converted.unsafeGetTensorImpl());
      if (e.tensor.requires_grad() && e.tensor.grad().defined()) {
        Tensor grad = fn(e.tensor.grad());
        e.tensor.mutable_grad() = grad;
      }
    }
  }
  for (auto& child : children_) child.second->convert(fn);
}

void Module::to(Device device) {
  convert([&](const Tensor& t) { return t.to(device); });
}

void Module::to(ScalarType dtype) {
  EMBER_CHECK(c10::isFloatingType(dtype) || c10::isComplexType(dtype),
              "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={}",
              c10::toString(dtype));
  convert([&](const Tensor& t) { return t.is_floating_point() || t.is_complex() ? t.to(dtype) : t; });
}

void Module::to(Device device, ScalarType dtype) {
  to(dtype);
  to(device);
}

void zero_grad(const std::vector<Tensor>& parameters, bool set_to_none) {
  for (const Tensor& p : parameters) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.mutable_grad() = Tensor();
    } else {
      p.mutable_grad() = p.grad().detach();
      p.mutable_grad().zero_();
    }
  }
}

void Module::zero_grad(bool set_to_none) { nn::zero_grad(parameters(), set_to_none); }

void Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& child : children_) child.second->apply(fn);
  fn(*this);
}

std::shared_ptr<Module> Module::clone() const {
  EMBER_CHECK(false, "clone() is not implemented for {}: derive it from nn::Cloneable<{}Impl>", name_, name_);
  return nullptr;
}

Tensor Module::forward(const Tensor&) {
  EMBER_CHECK(false, "{} has no forward(Tensor): it cannot be called with one tensor (or chained in a Sequential)",
              name_);
  return Tensor();
}

void Module::clone_children_into(Module& copy) const {
  for (const auto& [name, child] : children_) copy.register_module(name, child->clone());
  copy.train(training_);
}

void Module::clear_registrations() {
  parameters_.clear();
  buffers_.clear();
  children_.clear();
}

void Module::copy_state_from(const Module& other) {
  c10::NoGradGuard no_grad;
  for (auto* entries : {&parameters_, &buffers_}) {
    const auto& theirs = entries == &parameters_ ? other.parameters_ : other.buffers_;
    for (Entry& e : *entries) {
      auto it = find(theirs, e.name);
      if (it == theirs.end() || !it->tensor.defined() || !e.tensor.defined()) continue;
      const bool requires_grad = it->tensor.requires_grad();
      e.tensor.unsafeGetTensorImpl()->set_data(*it->tensor.detach().clone().unsafeGetTensorImpl());
      e.tensor.set_requires_grad(requires_grad);
    }
  }
  training_ = other.training_;
  for (auto& [name, child] : children_) {
    for (const auto& [their_name, their_child] : other.children_) {
      if (their_name == name) child->copy_state_from(*their_child);
    }
  }
}

namespace {
// Lines after the first indented by two spaces (Python's _addindent).
std::string indent(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}
}  // namespace

std::string Module::repr() const {
  std::vector<std::string> extra_lines, child_lines;
  const std::string extra = extra_repr();
  if (!extra.empty()) {
    std::stringstream lines(extra);
    for (std::string line; std::getline(lines, line);) extra_lines.push_back(line);
  }
  for (const auto& [name, child] : children_) child_lines.push_back("(" + name + "): " + indent(child->repr()));
  std::string out = name_ + "(";
  if (extra_lines.size() == 1 && child_lines.empty()) {
    out += extra_lines[0];
  } else if (!extra_lines.empty() || !child_lines.empty()) {
    out += "\n";
    for (const auto* lines : {&extra_lines, &child_lines}) {
      for (const auto& line : *lines) out += "  " + line + "\n";
    }
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& out, const Module& module) { return out << module.repr(); }

}  // namespace ember::nn
