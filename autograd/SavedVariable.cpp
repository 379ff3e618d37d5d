#include <autograd/SavedVariable.h>

#include <autograd/Variable.h>

#include <cctype>
#include <string_view>

namespace ember::autograd {

namespace {
thread_local std::vector<SavedVariableHooksFactory> hooks_stack;

// A new TensorImpl over the same memory and version counter, without
// autograd metadata.
Tensor shallow_alias(const Tensor& t) { return Tensor(t.unsafeGetTensorImpl()->shallow_copy_and_detach()); }

const char* legacy_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return "FloatTensor";
    case ScalarType::Double: return "DoubleTensor";
    case ScalarType::Half: return "HalfTensor";
    case ScalarType::BFloat16: return "BFloat16Tensor";
    case ScalarType::ComplexFloat: return "ComplexFloatTensor";
    case ScalarType::ComplexDouble: return "ComplexDoubleTensor";
    case ScalarType::Long: return "LongTensor";
    case ScalarType::Int: return "IntTensor";
    case ScalarType::Short: return "ShortTensor";
    case ScalarType::Char: return "CharTensor";
    case ScalarType::Byte: return "ByteTensor";
    case ScalarType::Bool: return "BoolTensor";
    default: return "Tensor";
  }
}
// "SigmoidBackward0" -> "Sigmoid": error messages name the forward op.
std::string forward_name(const std::string& node_name) {
  size_t end = node_name.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(node_name[end - 1]))) --end;
  constexpr std::string_view suffix = "Backward";
  if (end >= suffix.size() && node_name.compare(end - suffix.size(), suffix.size(), suffix) == 0 &&
      end > suffix.size()) {
    return node_name.substr(0, end - suffix.size());
  }
  return node_name;
}
}  // namespace

void push_saved_variable_hooks(SavedVariableHooksFactory factory) { hooks_stack.push_back(std::move(factory)); }
void pop_saved_variable_hooks() {
  EMBER_INTERNAL_ASSERT(!hooks_stack.empty());
  hooks_stack.pop_back();
}

std::string describe_tensor(const Tensor& t) {
  return fmt::format("ember.{} {}", legacy_type_name(t.scalar_type()), c10::str_sizes(t.sizes()));
}

SavedVariable::SavedVariable(const Tensor& t, bool is_output) : saved_(true) {
  if (!t.defined()) return;
  EMBER_CHECK(!t.unsafeGetTensorImpl()->is_inference(),
              "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
              "mode in computation tracked by autograd. To work around this, you can make a clone to get a normal "
              "tensor and use it in autograd, or use `ember.no_grad()` instead of `ember.inference_mode()`.");
  defined_ = true;
  is_output_ = is_output;
  requires_grad_ = t.requires_grad();
  is_leaf_ = impl::is_leaf(t);
  output_nr_ = impl::output_nr(t);
  version_counter_ = t.unsafeGetTensorImpl()->version_counter();
  saved_version_ = t._version();
  if (!is_output && !is_leaf_) grad_fn_of_input_ = impl::grad_fn(t);
  if (!hooks_stack.empty()) {
    hooks_ = hooks_stack.back()();
    hooks_->call_pack_hook(is_output ? shallow_alias(t) : t);
    return;
  }
  // An output would own its grad_fn, which owns this: keep only the data.
  data_ = is_output ? shallow_alias(t) : t;
}

void SavedVariable::reset_data() {
  data_ = Tensor();
  hooks_.reset();
  released_ = true;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!defined_) return Tensor();
  EMBER_CHECK(!released_,
              "Trying to backward through the graph a second time (or directly access saved tensors after they "
              "have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
              "graph a second time or if you need to access saved tensors after calling backward.");
  if (hooks_) return hooks_->call_unpack_hook();
  const uint32_t current = version_counter_->version.load(std::memory_order_relaxed);
  if (current != saved_version_) {
    std::string origin;
    // An input is named by its history now (as torch): the in-place op that changed it.
    const std::shared_ptr<Node> producer =
        is_output_ ? saved_for : (data_.defined() ? impl::grad_fn(data_) : grad_fn_of_input_.lock());
    if (producer) origin = fmt::format(", which is output {} of {},", output_nr_, forward_name(producer->name()));
    EMBER_CHECK(false,
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                "[{}]{} is at version {}; expected version {} instead. Hint: enable anomaly detection to find the "
                "operation that failed to compute its gradient, with ember.autograd.set_detect_anomaly(True, "
                "check_nan=False).",
                describe_tensor(data_), origin, current, saved_version_);
  }
  if (!is_output_ || !requires_grad_ || !saved_for) return data_;
  // A saved output comes back as output `output_nr_` of its node, so that a
  // formula using it is itself differentiable (double backward).
  Tensor t = shallow_alias(data_);
  AutogradMeta* meta = impl::materialize_autograd_meta(t);
  meta->grad_fn = saved_for;
  meta->output_nr = output_nr_;
  return t;
}

std::vector<SavedVariable> save_list(c10::ArrayRef<Tensor> ts, bool is_output) {
  std::vector<SavedVariable> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.emplace_back(t, is_output);
  return out;
}

std::vector<SavedVariable> save_list(const std::vector<std::optional<Tensor>>& ts, bool is_output) {
  std::vector<SavedVariable> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.emplace_back(t, is_output);
  return out;
}

std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& saved, const std::shared_ptr<Node>& saved_for) {
  std::vector<Tensor> out;
  out.reserve(saved.size());
  for (const auto& s : saved) out.push_back(s.unpack(saved_for));
  return out;
}

std::vector<std::optional<Tensor>> unpack_opt_list(const std::vector<SavedVariable>& saved,
                                                   const std::shared_ptr<Node>& saved_for) {
  std::vector<std::optional<Tensor>> out;
  out.reserve(saved.size());
  for (const auto& s : saved) {
    Tensor t = s.unpack(saved_for);
    out.push_back(t.defined() ? std::optional<Tensor>(t) : std::nullopt);
  }
  return out;
}

}  // namespace ember::autograd
