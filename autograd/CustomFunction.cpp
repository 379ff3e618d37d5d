#include <autograd/CustomFunction.h>

#include <aten/Functions.h>

#include <cxxabi.h>

namespace ember::autograd {

std::string demangle_type_name(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  return name;
}

variable_list AutogradContext::get_saved_variables() const {
  auto node = node_.lock();
  EMBER_CHECK(node != nullptr, "saved tensors are only available while the function's node is alive");
  return node->unpack_saved();
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Tensor& t : inputs) dirty_.insert(t.unsafeGetTensorImpl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.insert(t.unsafeGetTensorImpl());
}

bool AutogradContext::needs_input_grad(size_t i) const {
  auto node = node_.lock();
  return node && node->should_compute_output(i);
}

void CustomFunctionNode::release_variables() {
  for (auto& s : saved) s.reset_data();
}

variable_list CustomFunctionNode::unpack_saved() {
  variable_list out;
  for (const auto& s : saved) out.push_back(s.unpack(shared_from_this()));
  return out;
}

variable_list CustomFunctionNode::apply(variable_list&& grads) {
  if (ctx.materialize_grads_) {
    for (size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].defined() && i < num_inputs()) grads[i] = input_metadata(i).zeros();
    }
  }
  variable_list result = backward_(*this, std::move(grads));
  EMBER_CHECK(result.size() == num_outputs(), "function {} returned an incorrect number of gradients (expected {}, got {})",
              name(), num_outputs(), result.size());
  for (size_t i = 0; i < result.size(); ++i) {
    if (!should_compute_output(i)) result[i] = Tensor();
  }
  return result;
}

variable_list finish_custom_function(const std::shared_ptr<CustomFunctionNode>& node, const variable_list& inputs,
                                     variable_list outputs, bool is_executable) {
  AutogradContext& ctx = node->ctx;
  std::unordered_set<const c10::TensorImpl*> input_set;
  for (const Tensor& t : inputs) {
    if (t.defined()) input_set.insert(t.unsafeGetTensorImpl());
  }
  for (Tensor& out : outputs) {
    if (!out.defined()) continue;
    const c10::TensorImpl* key = out.unsafeGetTensorImpl();
    const bool dirty = ctx.dirty_.count(key) > 0;
    const bool differentiable = is_executable && !ctx.non_differentiable_.count(key) &&
                                (c10::isFloatingType(out.scalar_type()) || c10::isComplexType(out.scalar_type()));
    if (dirty) {
      impl::check_inplace(out, is_executable);
      out.unsafeGetTensorImpl()->bump_version();
      if (differentiable) impl::rebase_history(out, node);
      continue;
    }
    if (input_set.count(key)) {
      // Returned unchanged: an alias carries the new history, the input keeps its own.
      c10::AutoGradMode no_grad(false);
      out = ember::alias(out);
    }
    if (differentiable) impl::set_history(out, node);
  }
  for (const Tensor& t : ctx.to_save_) {
    bool is_output = false;
    for (const Tensor& out : outputs) is_output = is_output || (t.defined() && out.is_same(t));
    node->saved.emplace_back(t, is_output);
  }
  ctx.to_save_.clear();
  return outputs;
}

}  // namespace ember::autograd
