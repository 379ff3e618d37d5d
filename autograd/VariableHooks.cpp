// Tensor's autograd methods, installed into aten when this library loads.

#include <autograd/Autograd.h>
#include <autograd/Variable.h>

#include <aten/Functions.h>

namespace ember::autograd {
namespace {

struct VariableHooks final : VariableHooksInterface {
  Tensor& mutable_grad(const Tensor& self) const override { return impl::materialize_autograd_meta(self)->grad; }
  const std::shared_ptr<Node>& grad_fn(const Tensor& self) const override { return impl::grad_fn(self); }
  bool is_leaf(const Tensor& self) const override { return impl::is_leaf(self); }
  int64_t output_nr(const Tensor& self) const override { return impl::output_nr(self); }

  void retain_grad(const Tensor& self) const override {
    EMBER_CHECK(self.requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
    if (impl::is_leaf(self)) return;  // leaves keep their grad anyway
    AutogradMeta* meta = impl::materialize_autograd_meta(self);
    if (meta->retains_grad) return;
    // Weak: the node must not keep the tensor (which owns the node) alive.
    c10::weak_intrusive_ptr<c10::TensorImpl> weak(self.impl_ptr());
    impl::grad_fn(self)->set_retains_grad_hook(impl::output_nr(self), [weak](const Tensor& grad) {
      c10::intrusive_ptr<c10::TensorImpl> strong = weak.lock();
      if (!strong) return;
      Tensor owner(strong);
      Tensor& slot = impl::materialize_autograd_meta(owner)->grad;
      slot = slot.defined() ? slot + grad : grad.clone();
    });
    meta->retains_grad = true;
  }

  bool retains_grad(const Tensor& self) const override {
    AutogradMeta* meta = impl::get_autograd_meta(self);
    return meta && meta->retains_grad;
  }

  void backward(const Tensor& self, const Tensor& gradient, std::optional<bool> retain_graph,
                bool create_graph) const override {
    autograd::backward({self}, {gradient}, retain_graph, create_graph);
  }

  const Tensor& base(const Tensor& self) const override { return impl::base(self); }
  bool is_view(const Tensor& self) const override { return impl::is_view(self); }

  uint64_t register_hook(const Tensor& self, std::function<Tensor(const Tensor&)> hook) const override {
    EMBER_CHECK(self.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
    if (impl::is_leaf(self)) {
      AutogradMeta* meta = impl::materialize_autograd_meta(self);
      const uint64_t id = next_hook_id();
      meta->leaf_hooks->hooks.emplace_back(id, std::move(hook));
      return id;
    }
    return impl::grad_fn(self)->add_tensor_pre_hook(impl::output_nr(self), std::move(hook));
  }

  void remove_hook(const Tensor& self, uint64_t id) const override {
    if (AutogradMeta* meta = impl::get_autograd_meta(self)) {
      auto& hooks = meta->leaf_hooks->hooks;
      for (auto it = hooks.begin(); it != hooks.end(); ++it) {
        if (it->first == id) {
          hooks.erase(it);
          return;
        }
      }
    }
    if (const auto& fn = impl::grad_fn(self)) fn->remove_hook(id);
  }
};

const VariableHooks hooks_instance;
const bool installed = (SetVariableHooks(&hooks_instance), true);

}  // namespace
}  // namespace ember::autograd
