#include <jit/module.h>

#include <jit/runtime/interpreter.h>

#include <c10/util/Exception.h>

#include <set>

namespace ember::jit {

Module::Module(std::shared_ptr<Graph> graph, std::vector<std::pair<std::string, Tensor>> parameters)
    : graph_(std::move(graph)), parameters_(std::move(parameters)) {
  EMBER_CHECK(graph_ != nullptr, "a program needs a graph");
  EMBER_CHECK(graph_->inputs().size() >= parameters_.size(), "a program with {} parameters has only {} graph inputs",
              parameters_.size(), graph_->inputs().size());
}

std::vector<IValue> Module::forward(std::vector<IValue> inputs) const {
  EMBER_CHECK(inputs.size() == num_inputs(), "forward() of this program takes {} inputs but got {}", num_inputs(),
              inputs.size());
  for (const auto& [name, tensor] : parameters_) inputs.emplace_back(tensor);
  return run_graph(*graph_, std::move(inputs));
}

Tensor Module::forward(const Tensor& input) const {
  auto outputs = forward(std::vector<IValue>{IValue(input)});
  EMBER_CHECK(!outputs.empty() && outputs[0].isTensor(), "this program's first output is not a tensor");
  return outputs[0].toTensor();
}

std::vector<std::string> Module::operator_names() const {
  std::set<std::string> names;
  for (const auto& n : graph_->nodes())
    if (n->op()) names.insert(n->kind());
  return {names.begin(), names.end()};
}

}  // namespace ember::jit
