// The hand-written parts of Tensor (the operator methods are generated).

#include <aten/core/Tensor.h>

#include <atomic>

namespace ember {

namespace {
std::atomic<const VariableHooksInterface*> variable_hooks{nullptr};
}

void SetVariableHooks(const VariableHooksInterface* hooks) { variable_hooks.store(hooks); }

const VariableHooksInterface& GetVariableHooks() {
  const VariableHooksInterface* hooks = variable_hooks.load();
  EMBER_CHECK(hooks != nullptr, "this needs the ember autograd library, which is not loaded");
  return *hooks;
}

Tensor& Tensor::set_requires_grad(bool requires_grad) {
  impl_->set_requires_grad(requires_grad);
  return *this;
}

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  impl_->set_requires_grad(requires_grad);
  return *this;
}

const Tensor& Tensor::grad() const { return GetVariableHooks().mutable_grad(*this); }
Tensor& Tensor::mutable_grad() const { return GetVariableHooks().mutable_grad(*this); }
const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const { return GetVariableHooks().grad_fn(*this); }
bool Tensor::is_leaf() const { return GetVariableHooks().is_leaf(*this); }
int64_t Tensor::output_nr() const { return GetVariableHooks().output_nr(*this); }
void Tensor::retain_grad() const { GetVariableHooks().retain_grad(*this); }
bool Tensor::retains_grad() const { return GetVariableHooks().retains_grad(*this); }
void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  GetVariableHooks().backward(*this, gradient, retain_graph, create_graph);
}
const Tensor& Tensor::_base() const { return GetVariableHooks().base(*this); }
bool Tensor::is_view() const { return GetVariableHooks().is_view(*this); }
uint64_t Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  return GetVariableHooks().register_hook(*this, std::move(hook));
}
void Tensor::remove_hook(uint64_t id) const { GetVariableHooks().remove_hook(*this, id); }

}  // namespace ember
