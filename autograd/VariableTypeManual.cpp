// Autograd kernels written by hand: those whose behaviour is not "record a
// node for a formula".

#include <autograd/VariableTypeUtils.h>

#include <aten/core/dispatch/Dispatcher.h>
#include <aten/core/dispatch/Library.h>

namespace ember::autograd {
namespace {

// A new tensor over the same memory and version counter, outside the graph:
// later in-place changes through it are still seen by saved tensors.
Tensor detach(c10::DispatchKeySet ks, const Tensor& self) {
  static const auto op = Dispatcher::singleton().findTyped<Tensor(const Tensor&)>("aten::detach", "");
  c10::ExcludeDispatchKeyGuard guard(c10::DispatchKey::Autograd);
  return op.redispatch(below_autograd(ks), self);
}

Tensor resize_(c10::DispatchKeySet ks, const Tensor& self, IntArrayRef size) {
  static const auto op = Dispatcher::singleton().findTyped<Tensor(const Tensor&, IntArrayRef)>("aten::resize_", "");
  EMBER_CHECK(!(c10::GradMode::is_enabled() && self.requires_grad()), "cannot resize variables that require grad");
  impl::check_inplace(self, false);
  c10::ExcludeDispatchKeyGuard guard(c10::DispatchKey::Autograd);
  return op.redispatch(below_autograd(ks), self, size);
}

EMBER_LIBRARY_IMPL(aten, Autograd, m) {
  m.impl("detach", &detach);
  m.impl("resize_", &resize_);
}

}  // namespace
}  // namespace ember::autograd
