#pragma once
// Per-tensor autograd state: the accumulated grad, the node that produced
// the tensor (grad_fn, with the output index), hooks, and for views the base
// they alias so that in-place changes through either rebase the history.

#include <aten/core/Tensor.h>
#include <autograd/Node.h>

#include <memory>
#include <string>

namespace ember::autograd {

// How a view came to be; some origins forbid later in-place changes.
enum class CreationMeta : uint8_t { Default, NoGradMode, InferenceMode };

struct AutogradMeta final : c10::AutogradMetaInterface {
  bool requires_grad() const override;
  void set_requires_grad(bool value, c10::TensorImpl* self) override;

  Tensor grad;
  // The node that made this tensor (its output `output_nr`); null for leaves.
  std::shared_ptr<Node> grad_fn;
  // A leaf's AccumulateGrad, weak: the graph owns it, the node owns the leaf.
  std::weak_ptr<Node> grad_accumulator;
  uint32_t output_nr = 0;
  bool requires_grad_ = false;  // set by the user on leaves
  bool retains_grad = false;
  // A leaf's tensor hooks and post-accumulate hooks.
  std::shared_ptr<TensorHookList> leaf_hooks = std::make_shared<TensorHookList>();
  std::vector<std::pair<uint64_t, std::function<void(const Tensor&)>>> post_accumulate_hooks;

  // Views. `base` is the tensor that owns the memory (never itself a view).
  bool is_view = false;
  // Whether gradients flow from the view to its base (false in no_grad).
  bool is_differentiable_view = false;
  Tensor base;
  CreationMeta creation_meta = CreationMeta::Default;
  // The version at which grad_fn was last set; a later in-place change to
  // the view or its base makes grad_fn stale and it is rebuilt from base.
  uint32_t attr_version = 0;
};

// Installs the factory c10 uses to create AutogradMeta; idempotent.
void install_autograd_meta_factory();

// Every program that includes this header registers the factory at start-up.
// Being a reference from the program into the library, it also keeps linkers
// that drop unreferenced shared libraries (--as-needed) from dropping it.
inline const bool autograd_meta_factory_installed = (install_autograd_meta_factory(), true);

}  // namespace ember::autograd
