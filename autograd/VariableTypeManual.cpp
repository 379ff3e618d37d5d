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

// Recorded as the out-of-place as_strided of the old geometry: its node,
// whose next edge is self's history so far, becomes self's grad_fn (the
// kernel bumps the version, so tensors saved with the old geometry refuse
// to be used in backward, as after any in-place op). A view's
// base would have to learn the new geometry too, so views that require grad
// are refused (use the out-of-place view op).
Tensor as_strided_(c10::DispatchKeySet ks, const Tensor& self, IntArrayRef size, IntArrayRef stride,
                   std::optional<int64_t> storage_offset) {
  static const auto op = Dispatcher::singleton().findTyped<Tensor(const Tensor&, IntArrayRef, IntArrayRef, std::optional<int64_t>)>("aten::as_strided_", "");
  const bool requires_grad = c10::GradMode::is_enabled() && self.requires_grad();
  impl::check_inplace(self, requires_grad);
  EMBER_CHECK(!(requires_grad && impl::is_view(self)),
              "as_strided_(): cannot change the shape of a view that requires grad in place; use the out-of-place "
              "op (transpose, squeeze, unsqueeze, as_strided) instead");
  // Taken before the kernel bumps the version, which would make the view's node stale.
  std::shared_ptr<Node> node = requires_grad ? impl::grad_fn(self.as_strided(size, stride, storage_offset)) : nullptr;
  {
    c10::ExcludeDispatchKeyGuard guard(c10::DispatchKey::Autograd);
    op.redispatch(below_autograd(ks), self, size, stride, storage_offset);
  }
  if (requires_grad) {
    // The recorded node's one input has the new geometry: self becomes that output.
    AutogradMeta* meta = impl::materialize_autograd_meta(self);
    meta->grad_fn = std::move(node);
    meta->output_nr = 0;
  }
  return self;
}

EMBER_LIBRARY_IMPL(aten, Autograd, m) {
  m.impl("detach", &detach);
  m.impl("resize_", &resize_);
  m.impl("as_strided_", &as_strided_);
}

}  // namespace
}  // namespace ember::autograd
