#include <jit/runtime/interpreter.h>

#include <aten/native/TensorIterator.h>
#include <c10/util/Exception.h>


namespace ember::jit {

namespace {

IValue list_argument(const Input& in, const SchemaArgument& arg,
                     const std::function<const IValue&(const Value*)>& value_of) {
  if (arg.type.elem_optional) {
    std::vector<std::optional<Tensor>> items;
    for (const Value* v : in.list) items.push_back(v ? std::optional<Tensor>(value_of(v).toTensor()) : std::nullopt);
    return IValue(std::move(items));
  }
  std::vector<Tensor> items;
  for (const Value* v : in.list) items.push_back(value_of(v).toTensor());
  return IValue(std::move(items));
}

}  // namespace

std::vector<IValue> run_node(const Node& node, const std::function<const IValue&(const Value*)>& value_of) {
  if (!node.op()) {
    EMBER_CHECK(node.kind() == "prim::Constant", "cannot run a node of kind {}", node.kind());
    return {IValue(node.constant)};
  }
  const FunctionSchema& schema = *node.schema();
  Stack stack;
  stack.reserve(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Input& in = node.inputs[i];
    switch (in.kind) {
      case Input::Kind::Value: stack.push_back(value_of(in.value)); break;
      case Input::Kind::List: stack.push_back(list_argument(in, schema.arguments[i], value_of)); break;
      case Input::Kind::Constant:
        // A number where the schema takes a tensor is a Python number: it
        // promotes as one (a wrapped number), as when it was traced.
        if (in.constant.isScalar() && schema.arguments[i].type.kind == SchemaType::Kind::Tensor &&
            !schema.arguments[i].type.is_list)
          stack.emplace_back(wrapped_scalar_tensor(in.constant.toScalar()));
        else
          stack.push_back(in.constant);
        break;
    }
  }
  // Arguments written but not returned: written in place, their tensors are
  // the outputs after the returns'.
  std::vector<Tensor> written = written_without_returning(schema, stack);
  node.op()->callBoxed(stack);
  std::vector<IValue> outputs;
  outputs.reserve(node.outputs.size());
  for (size_t r = 0; r < node.return_sizes.size(); ++r) {
    if (node.return_sizes[r] < 0) {
      outputs.push_back(std::move(stack[r]));
      continue;
    }
    const auto& list = stack[r].toTensorList();
    EMBER_CHECK(list.size() == static_cast<size_t>(node.return_sizes[r]),
                "{} returned {} tensors where the traced program expects {}: the inputs' shapes differ from the "
                "example inputs the program was traced with",
                node.kind(), list.size(), node.return_sizes[r]);
    for (const Tensor& t : list) outputs.emplace_back(t);
  }
  // (A node made without outputs for them, as the tracer makes, has none.)
  if (node.outputs.size() == outputs.size() + written.size())
    for (Tensor& w : written) outputs.emplace_back(std::move(w));
  return outputs;
}

std::vector<IValue> run_graph(const Graph& graph, std::vector<IValue> inputs) {
  EMBER_CHECK(inputs.size() == graph.inputs().size(), "the program takes {} inputs but got {}",
              graph.inputs().size(), inputs.size());
  std::vector<IValue> env(graph.num_values());  // by value number
  for (size_t i = 0; i < inputs.size(); ++i) env[graph.inputs()[i]->index()] = std::move(inputs[i]);
  const auto value_of = [&](const Value* v) -> const IValue& { return env[v->index()]; };
  for (const auto& node : graph.nodes()) {
    auto outputs = run_node(*node, value_of);
    for (size_t i = 0; i < outputs.size(); ++i) env[node->outputs[i]->index()] = std::move(outputs[i]);
  }
  std::vector<IValue> results;
  for (const Value* v : graph.outputs()) results.push_back(env[v->index()]);
  return results;
}

}  // namespace ember::jit
