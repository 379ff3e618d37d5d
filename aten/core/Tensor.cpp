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

void Tensor::report_undefined() {
  EMBER_CHECK(false, "the Tensor is undefined (it holds no data: a default-constructed Tensor or a missing "
                     "gradient); use defined() to test for it");
}

const VariableHooksInterface& Tensor::checked_hooks() const {
  impl();
  return GetVariableHooks();
}

Tensor& Tensor::set_requires_grad(bool requires_grad) {
  impl()->set_requires_grad(requires_grad);
  return *this;
}

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  impl()->set_requires_grad(requires_grad);
  return *this;
}

const Tensor& Tensor::grad() const { return checked_hooks().mutable_grad(*this); }
Tensor& Tensor::mutable_grad() const { return checked_hooks().mutable_grad(*this); }
const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const { return checked_hooks().grad_fn(*this); }
bool Tensor::is_leaf() const { return checked_hooks().is_leaf(*this); }
int64_t Tensor::output_nr() const { return checked_hooks().output_nr(*this); }
void Tensor::retain_grad() const { checked_hooks().retain_grad(*this); }
bool Tensor::retains_grad() const { return checked_hooks().retains_grad(*this); }
void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  checked_hooks().backward(*this, gradient, retain_graph, create_graph);
}
const Tensor& Tensor::_base() const { return checked_hooks().base(*this); }
bool Tensor::is_view() const { return checked_hooks().is_view(*this); }
uint64_t Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  return checked_hooks().register_hook(*this, std::move(hook));
}
void Tensor::remove_hook(uint64_t id) const { checked_hooks().remove_hook(*this, id); }

}  // namespace ember
