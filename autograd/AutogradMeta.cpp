#include <autograd/AutogradMeta.h>

namespace ember::autograd {

void AutogradMeta::set_requires_grad(bool value, c10::TensorImpl*) { requires_grad_ = value; }

void install_autograd_meta_factory() {
  c10::SetAutogradMetaFactory([]() -> std::unique_ptr<c10::AutogradMetaInterface> {
    return std::make_unique<AutogradMeta>();
  });
}

}  // namespace ember::autograd
