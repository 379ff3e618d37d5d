#include <autograd/Variable.h>

#include <autograd/functions/Basic.h>

#include <c10/core/GradMode.h>

namespace ember::autograd {

bool AutogradMeta::requires_grad() const {
  return requires_grad_ || grad_fn != nullptr || (is_differentiable_view && base.requires_grad());
}

void AutogradMeta::set_requires_grad(bool value, c10::TensorImpl*) {
  EMBER_CHECK(value || grad_fn == nullptr,
              "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
              "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  requires_grad_ = value;
}

void install_autograd_meta_factory() {
  c10::SetAutogradMetaFactory([]() -> std::unique_ptr<c10::AutogradMetaInterface> {
    return std::make_unique<AutogradMeta>();
  });
}

Edge gradient_edge(const Tensor& t) {
  if (const auto& fn = impl::grad_fn(t)) return Edge(fn, impl::output_nr(t));
  if (t.requires_grad()) return Edge(impl::grad_accumulator(t), 0);
  return Edge();
}

namespace impl {

AutogradMeta* get_autograd_meta(const Tensor& t) {
  return static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta());
}

AutogradMeta* materialize_autograd_meta(const Tensor& t) {
  c10::TensorImpl* impl = t.unsafeGetTensorImpl();
  if (!impl->autograd_meta()) impl->set_autograd_meta(std::make_unique<AutogradMeta>());
  return static_cast<AutogradMeta*>(impl->autograd_meta());
}

const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  static const std::shared_ptr<Node> none;
  AutogradMeta* meta = get_autograd_meta(t);
  if (!meta) return none;
  if (meta->is_differentiable_view && meta->attr_version != t._version() && meta->base.requires_grad()) {
    // Something changed the view or its base in place since grad_fn was
    // set; the view's history now starts from the base's.
    meta->attr_version = t._version();
    auto fn = std::make_shared<AsStridedViewBackward>(meta->base, t);
    meta->grad_fn = std::move(fn);
    meta->output_nr = 0;
  }
  return meta->grad_fn;
}

uint32_t output_nr(const Tensor& t) {
  AutogradMeta* meta = get_autograd_meta(t);
  return meta ? meta->output_nr : 0;
}

bool is_leaf(const Tensor& t) { return grad_fn(t) == nullptr; }

bool is_view(const Tensor& t) {
  AutogradMeta* meta = get_autograd_meta(t);
  return meta && meta->is_view;
}

const Tensor& base(const Tensor& t) {
  static const Tensor none;
  AutogradMeta* meta = get_autograd_meta(t);
  return meta && meta->is_view ? meta->base : none;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta* meta = materialize_autograd_meta(t);
  EMBER_INTERNAL_ASSERT(!meta->grad_fn);
  if (auto existing = meta->grad_accumulator.lock()) return existing;
  auto acc = std::make_shared<AccumulateGrad>(t);
  meta->grad_accumulator = acc;
  return acc;
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn) {
  AutogradMeta* meta = materialize_autograd_meta(t);
  meta->grad_fn = fn;
  meta->output_nr = fn->add_input_metadata(t);
  meta->attr_version = t._version();
}

void rebase_history(const Tensor& t, std::shared_ptr<Node> fn) {
  AutogradMeta* meta = materialize_autograd_meta(t);
  if (meta->is_differentiable_view) {
    const Tensor& base = meta->base;
    auto copy_slices = std::make_shared<CopySlices>(base, t, std::move(fn));
    AutogradMeta* base_meta = materialize_autograd_meta(base);
    base_meta->grad_fn = copy_slices;
    base_meta->output_nr = 0;
    base_meta->attr_version = base._version();
    // Forces the view's grad_fn to be rebuilt from the base's new history.
    meta->attr_version = t._version() - 1;
    grad_fn(t);
    return;
  }
  meta->grad_fn = fn;
  meta->output_nr = fn->add_input_metadata(t);
  meta->attr_version = t._version();
}

void as_view(const Tensor& source, const Tensor& view) {
  AutogradMeta* source_meta = get_autograd_meta(source);
  const Tensor& root = source_meta && source_meta->is_view ? source_meta->base : source;
  AutogradMeta* meta = materialize_autograd_meta(view);
  meta->is_view = true;
  meta->base = root;
  meta->attr_version = view._version();
  const bool inference = c10::InferenceMode::is_enabled();
  meta->creation_meta = inference                       ? CreationMeta::InferenceMode
                        : !c10::GradMode::is_enabled() ? CreationMeta::NoGradMode
                                                        : CreationMeta::Default;
  if (source_meta && source_meta->is_view && source_meta->creation_meta != CreationMeta::Default) {
    meta->creation_meta = source_meta->creation_meta;  // a view of a no_grad view is one too
  }
  meta->is_differentiable_view = c10::GradMode::is_enabled() &&
                                 (c10::isFloatingType(view.scalar_type()) || c10::isComplexType(view.scalar_type()));
}

void check_inplace(const Tensor& t, bool requires_grad) {
  EMBER_CHECK(!t.unsafeGetTensorImpl()->is_inference() || c10::InferenceMode::is_enabled(),
              "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
              "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
              "details.");
  AutogradMeta* meta = get_autograd_meta(t);
  if (!meta) return;
  // A view made in no_grad of a tensor that requires grad: whether the
  // change should reach the base's history is ambiguous, so it is refused.
  const bool ambiguous_view = c10::GradMode::is_enabled() && meta->is_view &&
                              meta->creation_meta == CreationMeta::NoGradMode &&
                              (requires_grad || meta->base.requires_grad());
  if (!requires_grad && !ambiguous_view) return;
  if (meta->is_view) {
    EMBER_CHECK(meta->creation_meta != CreationMeta::NoGradMode,
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
                "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                "moving both the view and the inplace either both inside the no_grad block (if you don't want "
                "the inplace to be tracked) or both outside (if you want the inplace to be tracked).");
    const Tensor& base = meta->base;
    EMBER_CHECK(!(meta->is_differentiable_view && base.requires_grad() && is_leaf(base)),
                "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  EMBER_CHECK(!(meta->requires_grad_ && meta->grad_fn == nullptr && !meta->is_view),
              "a leaf Variable that requires grad is being used in an in-place operation.");
}

}  // namespace impl
}  // namespace ember::autograd
