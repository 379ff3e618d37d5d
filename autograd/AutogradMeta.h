#pragma once
// Per-tensor autograd state. The engine, graph nodes and gradient formulas
// build on this; for now it records requires_grad and the accumulated grad.

#include <aten/core/Tensor.h>

namespace ember::autograd {

struct AutogradMeta final : c10::AutogradMetaInterface {
  bool requires_grad() const override { return requires_grad_; }
  void set_requires_grad(bool value, c10::TensorImpl* self) override;

  Tensor grad;
  bool requires_grad_ = false;
};

// Installs the factory c10 uses to create AutogradMeta; idempotent.
void install_autograd_meta_factory();

// Every program that includes this header registers the factory at start-up.
// Being a reference from the program into the library, it also keeps linkers
// that drop unreferenced shared libraries (--as-needed) from dropping it.
inline const bool autograd_meta_factory_installed = (install_autograd_meta_factory(), true);

}  // namespace ember::autograd
