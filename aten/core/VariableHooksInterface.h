#pragma once
// The autograd side of Tensor's methods (grad, backward, grad_fn, ...).
// Tensor lives in aten, which does not depend on the autograd library; the
// library installs its implementation here when it loads.

#include <functional>
#include <memory>
#include <optional>

namespace ember {

class Tensor;
namespace autograd {
struct Node;
}

struct VariableHooksInterface {
  virtual ~VariableHooksInterface() = default;
  virtual Tensor& mutable_grad(const Tensor& self) const = 0;
  virtual const std::shared_ptr<autograd::Node>& grad_fn(const Tensor& self) const = 0;
  virtual bool is_leaf(const Tensor& self) const = 0;
  virtual int64_t output_nr(const Tensor& self) const = 0;
  virtual void retain_grad(const Tensor& self) const = 0;
  virtual bool retains_grad(const Tensor& self) const = 0;
  virtual void backward(const Tensor& self, const Tensor& gradient, std::optional<bool> retain_graph,
                        bool create_graph) const = 0;
  virtual const Tensor& base(const Tensor& self) const = 0;
  virtual bool is_view(const Tensor& self) const = 0;
  virtual uint64_t register_hook(const Tensor& self, std::function<Tensor(const Tensor&)> hook) const = 0;
  virtual void remove_hook(const Tensor& self, uint64_t id) const = 0;
};

void SetVariableHooks(const VariableHooksInterface* hooks);
const VariableHooksInterface& GetVariableHooks();

}  // namespace ember
