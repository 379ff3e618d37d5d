#include <c10/core/GradMode.h>

namespace c10 {

namespace {
thread_local bool grad_enabled = true;
thread_local bool inference_enabled = false;
}  // namespace

bool GradMode::is_enabled() { return grad_enabled; }
void GradMode::set_enabled(bool enabled) { grad_enabled = enabled; }

InferenceMode::InferenceMode(bool enabled) : previous_inference_(inference_enabled), previous_grad_(grad_enabled) {
  inference_enabled = enabled;
  // Leaving inference mode (InferenceMode(false)) restores grad mode on.
  grad_enabled = !enabled;
  const DispatchKeySet autograd_keys{DispatchKey::Autograd, DispatchKey::ADInplaceOrView};
  if (enabled) {
    skip_autograd_.emplace(autograd_keys);
  } else {
    resume_autograd_.emplace(autograd_keys);
  }
}

InferenceMode::~InferenceMode() {
  inference_enabled = previous_inference_;
  grad_enabled = previous_grad_;
}

bool InferenceMode::is_enabled() { return inference_enabled; }

}  // namespace c10
