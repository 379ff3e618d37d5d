#include <autograd/functions/Basic.h>

#include <autograd/Variable.h>

#include <aten/Functions.h>
#include <aten/core/ExpandUtils.h>
#include <c10/core/GradMode.h>

namespace ember::autograd {

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  // Leaves accumulate as soon as their gradient is complete.
  sequence_nr_ = UINT64_MAX;
  add_input_metadata(variable_);
}

variable_list AccumulateGrad::run_tensor_pre_hooks(variable_list grads) {
  grads = Node::run_tensor_pre_hooks(std::move(grads));
  if (AutogradMeta* meta = impl::get_autograd_meta(variable_)) {
    const std::shared_ptr<TensorHookList> hooks = meta->leaf_hooks;
    grads = apply_tensor_hooks(*hooks, 0, std::move(grads));
  }
  return grads;
}

namespace {
// Torch's gradient layout contract: a new .grad has its parameter's strides
// (when those are dense; else it is contiguous), whatever layout backward
// produced (a linear layer's weight gradient arrives transposed). Optimizers
// then see matching layouts, and their fused one-pass updates apply.
bool obeys_layout_contract(const Tensor& grad, const Tensor& variable) {
  if (is_non_overlapping_and_dense(variable.sizes(), variable.strides())) return grad.strides() == variable.strides();
  return grad.is_contiguous();
}

// A sparse gradient (an embedding's with sparse=True) stays sparse while
// every part is; sparse plus strided is strided. The first one is kept
// unless someone else holds it, so later accumulation never changes theirs.
void accumulate_sparse(Tensor& grad, Tensor new_grad) {
  if (!grad.defined()) {
    grad = new_grad.use_count() > 1 ? new_grad.clone() : std::move(new_grad);
    if (!c10::GradMode::is_enabled()) grad = grad.detach();
  } else if (!c10::GradMode::is_enabled() && !grad.requires_grad() && (new_grad.is_sparse() || !grad.is_sparse())) {
    grad.add_(new_grad);
  } else {
    grad = grad + new_grad;
  }
}
}  // namespace

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor new_grad = std::move(grads.at(0));
  if (!new_grad.defined()) return {};
  AutogradMeta* meta = impl::materialize_autograd_meta(variable_);
  Tensor& grad = meta->grad;
  if (new_grad.is_sparse() || (grad.defined() && grad.is_sparse())) {
    accumulate_sparse(grad, std::move(new_grad));
  } else if (!grad.defined()) {
    // Keep the incoming gradient itself when nothing else can see it and it
    // has the parameter's layout; a copy in that layout otherwise, so later
    // accumulation never writes into a user tensor.
    if (c10::GradMode::is_enabled()) {
      grad = new_grad;
    } else if (new_grad.use_count() > 1 || impl::is_view(new_grad) || !obeys_layout_contract(new_grad, variable_)) {
      grad = ember::empty_like(variable_, new_grad.dtype(), new_grad.device(), std::nullopt).copy_(new_grad);
      grad.unsafeGetTensorImpl()->reset_version();
    } else {
      grad = new_grad;
    }
    if (!c10::GradMode::is_enabled()) grad = grad.detach();
  } else if (!c10::GradMode::is_enabled() && !grad.requires_grad()) {
    grad.add_(new_grad);
  } else {
    // create_graph: the accumulated gradient is itself differentiable.
    grad = grad + new_grad;
  }
  const auto hooks = meta->post_accumulate_hooks;
  for (const auto& [id, hook] : hooks) hook(variable_);
  return {};
}

variable_list ErrorNode::apply(variable_list&&) { EMBER_CHECK(false, "{}", message_); }

AsStridedViewBackward::AsStridedViewBackward(const Tensor& base, const Tensor& view) : base_(base), view_(view) {
  set_next_edges({gradient_edge(base)});
  add_input_metadata(view);
}

namespace {
// Elements of memory that `g` spans, from its storage offset.
int64_t span(const ViewGeometry& g) {
  int64_t last = 0;
  for (size_t i = 0; i < g.sizes.size(); ++i) {
    if (g.sizes[i] == 0) return 0;
    last += (g.sizes[i] - 1) * g.strides[i];
  }
  return last + 1;
}
}  // namespace

variable_list AsStridedViewBackward::apply(variable_list&& grads) {
  const Tensor& grad = grads.at(0);
  if (!grad.defined() || !should_compute_output(0)) return {Tensor()};
  // Index each view element by its place in the base's memory, then add the
  // gradients up by place (views may overlap themselves, e.g. expand).
  const int64_t n = std::max(span(base_), view_.storage_offset - base_.storage_offset + span(view_));
  Tensor places = ember::arange(n, TensorOptions().dtype(ScalarType::Long))
                      .as_strided(view_.sizes, view_.strides, view_.storage_offset - base_.storage_offset);
  Tensor flat = ember::zeros({n}, grad.options()).scatter_add(0, places.reshape({-1}), grad.reshape({-1}));
  return {flat.as_strided(base_.sizes, base_.strides, 0)};
}

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
    : base_(base), view_(view), fn_(std::move(fn)) {
  // After the base's previous history, the in-place op's other inputs.
  next_edges_.push_back(gradient_edge(base));
  for (size_t i = 1; i < fn_->num_outputs(); ++i) next_edges_.push_back(fn_->next_edge(i));
  add_input_metadata(base);
}

variable_list CopySlices::apply(variable_list&& grads) {
  const Tensor& grad = grads.at(0);
  variable_list result(num_outputs());
  if (!grad.defined()) return result;
  Tensor whole = ember::empty_strided(base_.sizes, base_.strides, grad.options());
  whole.copy_(grad);
  Tensor slice = whole.as_strided(view_.sizes, view_.strides, view_.storage_offset - base_.storage_offset);
  variable_list from_fn = (*fn_)({slice.clone()});
  EMBER_INTERNAL_ASSERT(from_fn.size() == num_outputs());
  for (size_t i = 0; i < from_fn.size(); ++i) {
    if (i == 0) {
      if (from_fn[0].defined()) {
        slice.copy_(from_fn[0]);
      } else {
        slice.zero_();
      }
      result[0] = whole;
    } else {
      result[i] = std::move(from_fn[i]);
    }
  }
  return result;
}

}  // namespace ember::autograd
