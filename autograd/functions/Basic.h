#pragma once
// The nodes autograd itself creates (as opposed to the generated ones for
// operators): the root of a backward pass, leaf accumulation, errors, and
// the nodes behind in-place changes to views.

#include <autograd/Node.h>

namespace ember::autograd {

// Feeds the initial gradients (e.g. ones for a scalar loss) to the roots.
struct GraphRoot final : Node {
  GraphRoot(edge_list roots, variable_list grads) : Node(std::move(roots)), grads_(std::move(grads)) {}
  std::string name() const override { return "GraphRoot"; }

 protected:
  variable_list apply(variable_list&&) override { return grads_; }

 private:
  variable_list grads_;
};

// Adds incoming gradients into a leaf's .grad.
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  const Tensor& variable() const { return variable_; }
  // The leaf's own tensor hooks live in its metadata, not in this node.
  variable_list run_tensor_pre_hooks(variable_list grads) override;

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  Tensor variable_;
};

// Raises when reached: an op whose derivative is not implemented, or one
// that cannot be differentiated again.
struct ErrorNode final : Node {
  ErrorNode(std::string message, edge_list next) : Node(std::move(next)), message_(std::move(message)) {}
  std::string name() const override { return "Error"; }

 protected:
  variable_list apply(variable_list&&) override;

 private:
  std::string message_;
};

// The geometry of a view over its base's memory.
struct ViewGeometry {
  explicit ViewGeometry(const Tensor& t)
      : sizes(t.sizes().vec()), strides(t.strides().vec()), storage_offset(t.storage_offset()) {}
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset;
};

// The gradient of a view, taken as an arbitrary strided window of its base:
// scatters the view's gradient into a zero gradient for the whole base.
struct AsStridedViewBackward final : Node {
  AsStridedViewBackward(const Tensor& base, const Tensor& view);
  std::string name() const override { return "AsStridedBackward0"; }

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  ViewGeometry base_;
  ViewGeometry view_;
};

// After an in-place op `fn` on a view: the base's new grad_fn. The slice
// of the base's gradient that the view covers goes through `fn`; the rest
// passes to the base's previous history unchanged.
struct CopySlices final : Node {
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  std::string name() const override { return "CopySlices"; }
  void release_variables() override { fn_->release_variables(); }

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  ViewGeometry base_;
  ViewGeometry view_;
  std::shared_ptr<Node> fn_;
};

}  // namespace ember::autograd
