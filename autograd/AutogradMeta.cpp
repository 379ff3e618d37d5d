#include <autograd/AutogradMeta.h>

namespace ember::autograd {

void AutogradMeta::set_requires_grad(bool value, c10::TensorImpl*) { requires_grad_ = value; }

void install_autograd_meta_factory() {
  c10::SetAutogradMetaFactory([]() -> std::unique_ptr<c10::AutogradMetaInterface> {
    return std::make_unique<AutogradMeta>();
  });
}

namespace {
// Loading the library is enough to make requires_grad work.
const bool registered = (install_autograd_meta_factory(), true);
}  // namespace

}  // namespace ember::autograd
