#include <autograd/Autograd.h>

#include <autograd/Engine.h>
#include <autograd/Variable.h>

#include <aten/Functions.h>

namespace ember::autograd {

namespace {

// The initial gradient of each output: given, or ones for a scalar.
variable_list make_grads(const variable_list& outputs, const variable_list& grads) {
  EMBER_CHECK(grads.empty() || grads.size() == outputs.size(),
              "grad_tensors has {} entries but there are {} tensors to differentiate", grads.size(), outputs.size());
  variable_list result;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    const Tensor grad = grads.empty() ? Tensor() : grads[i];
    if (!grad.defined()) {
      if (out.requires_grad()) {
        EMBER_CHECK(out.numel() == 1, "grad can be implicitly created only for scalar outputs");
        EMBER_CHECK(!out.is_complex(), "grad can be implicitly created only for real scalar outputs but got {}",
                    c10::toString(out.scalar_type()));
        result.push_back(ember::ones_like(out));
      } else {
        result.push_back(Tensor());
      }
      continue;
    }
    EMBER_CHECK(grad.sizes() == out.sizes(),
                "Mismatch in shape: grad_output[{}] has a shape of ember.Size({}) and output[{}] has a shape of "
                "ember.Size({}).",
                i, c10::str_sizes(grad.sizes()), i, c10::str_sizes(out.sizes()));
    EMBER_CHECK(grad.is_complex() == out.is_complex(),
                "For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch in "
                "dtype: grad_output[{}] has a dtype of {} and output[{}] has a dtype of {}.",
                i, c10::toString(grad.scalar_type()), i, c10::toString(out.scalar_type()));
    result.push_back(grad);
  }
  return result;
}

edge_list root_edges(const variable_list& outputs) {
  edge_list roots;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.defined(), "element {} of tensors is undefined", i);
    EMBER_CHECK(out.requires_grad(), "element {} of tensors does not require grad and does not have a grad_fn", i);
    roots.push_back(gradient_edge(out));
  }
  return roots;
}

}  // namespace

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  const edge_list roots = root_edges(tensors);
  const variable_list grads = make_grads(tensors, grad_tensors);
  const bool keep_graph = retain_graph.value_or(create_graph);
  if (inputs.empty()) {
    Engine::execute(roots, grads, keep_graph, create_graph, /*accumulate_grad=*/true);
    return;
  }
  edge_list outputs;
  for (const Tensor& input : inputs) {
    EMBER_CHECK(input.requires_grad(), "One of the differentiated Tensors does not require grad");
    outputs.push_back(gradient_edge(input));
  }
  const variable_list captured = Engine::execute(roots, grads, keep_graph, create_graph, true, outputs);
  // Leaves accumulated through their AccumulateGrad node; non-leaf inputs
  // get theirs here, as .grad like retain_grad() would.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (impl::is_leaf(inputs[i]) || !captured[i].defined()) continue;
    AutogradMeta* meta = impl::materialize_autograd_meta(inputs[i]);
    meta->grad = meta->grad.defined() ? meta->grad + captured[i] : captured[i];
  }
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  const edge_list roots = root_edges(outputs);
  const variable_list grads = make_grads(outputs, grad_outputs);
  edge_list wanted;
  for (const Tensor& input : inputs) {
    EMBER_CHECK(input.requires_grad(), "One of the differentiated Tensors does not require grad");
    wanted.push_back(gradient_edge(input));
  }
  variable_list result =
      Engine::execute(roots, grads, retain_graph.value_or(create_graph), create_graph, /*accumulate_grad=*/false, wanted);
  for (size_t i = 0; i < result.size(); ++i) {
    EMBER_CHECK(allow_unused || result[i].defined(),
                "The differentiated Tensor at index {} appears to not have been used in the graph. Set "
                "allow_unused=True if this is the desired behavior.",
                i);
  }
  return result;
}

}  // namespace ember::autograd
