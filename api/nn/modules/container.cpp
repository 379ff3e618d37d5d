#include <api/nn/modules/container.h>

#include <c10/util/Exception.h>

namespace ember::nn {

void SequentialImpl::push_back(AnyModule module) { push_back(std::to_string(size()), std::move(module)); }

void SequentialImpl::push_back(const std::string& name, AnyModule module) {
  register_module(name, std::move(module.module));
}

std::shared_ptr<Module> SequentialImpl::operator[](size_t index) const {
  const auto all = children();
  EMBER_CHECK_INDEX(index < all.size(), "index {} is out of range for a Sequential of {} modules", index, all.size());
  return all[index];
}

Tensor SequentialImpl::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& module : children()) x = module->forward(x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::clone() const {
  auto copy = std::make_shared<SequentialImpl>();
  clone_children_into(*copy);
  return copy;
}

void ModuleListImpl::push_back(AnyModule module) {
  register_module(std::to_string(size()), std::move(module.module));
  refresh();
}

void ModuleListImpl::refresh() { items_ = children(); }

std::shared_ptr<Module> ModuleListImpl::operator[](size_t index) const {
  EMBER_CHECK_INDEX(index < items_.size(), "index {} is out of range for a ModuleList of {} modules", index,
                    items_.size());
  return items_[index];
}

std::vector<std::shared_ptr<Module>>::const_iterator ModuleListImpl::begin() const { return items_.begin(); }
std::vector<std::shared_ptr<Module>>::const_iterator ModuleListImpl::end() const { return items_.end(); }

std::shared_ptr<Module> ModuleListImpl::clone() const {
  auto copy = std::make_shared<ModuleListImpl>();
  clone_children_into(*copy);
  copy->refresh();
  return copy;
}

std::string ModuleListImpl::repr() const {
  if (items_.empty()) return "ModuleList()";
  std::string out = "ModuleList(\n";
  for (size_t start = 0; start < items_.size();) {
    const std::string text = items_[start]->repr();
    size_t end = start;
    while (end + 1 < items_.size() && items_[end + 1]->repr() == text) ++end;
    std::string line = "(" + std::to_string(start) + "): " + text;
    if (end != start) {
      line = "(" + std::to_string(start) + "-" + std::to_string(end) + "): " + std::to_string(end - start + 1) +
             " x " + text;
    }
    std::string indented;
    for (char c : line) {
      indented += c;
      if (c == '\n') indented += "  ";
    }
    out += "  " + indented + "\n";
    start = end + 1;
  }
  return out + ")";
}

void ModuleDictImpl::insert(const std::string& name, AnyModule module) { register_module(name, std::move(module.module)); }

bool ModuleDictImpl::contains(const std::string& name) const {
  for (const auto& [key, child] : named_children()) {
    if (key == name) return true;
  }
  return false;
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& name) const {
  for (const auto& [key, child] : named_children()) {
    if (key == name) return child;
  }
  EMBER_CHECK_INDEX(false, "ModuleDict has no module named \"{}\"", name);
  return nullptr;
}

std::vector<std::string> ModuleDictImpl::keys() const {
  std::vector<std::string> out;
  for (const auto& [key, child] : named_children()) out.push_back(key);
  return out;
}

std::shared_ptr<Module> ModuleDictImpl::clone() const {
  auto copy = std::make_shared<ModuleDictImpl>();
  clone_children_into(*copy);
  return copy;
}

}  // namespace ember::nn
