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
  for (const auto& [name, child] : named_children()) copy->push_back(name, AnyModule(child->clone()));
  copy->train(is_training());
  return copy;
}

}  // namespace ember::nn
