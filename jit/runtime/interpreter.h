#pragma once
// Runs a graph through the dispatcher: every node is one boxed operator call
// (autograd, autocast and the device's kernels apply as in eager code), in
// graph order, so views and in-place writes act on the same tensors they
// acted on when the graph was made.

#include <jit/ir/ir.h>

#include <functional>
#include <vector>

namespace ember::jit {

// Calls one node on the values `value_of` gives for its inputs; returns its
// outputs flattened as Node::outputs lists them.
std::vector<IValue> run_node(const Node& node, const std::function<const IValue&(const Value*)>& value_of);

// The graph's outputs for these inputs (one per graph input, in order).
std::vector<IValue> run_graph(const Graph& graph, std::vector<IValue> inputs);

}  // namespace ember::jit
