#include <jit/ir/passes.h>

#include <jit/ir/alias.h>
#include <jit/runtime/interpreter.h>

#include <c10/core/GradMode.h>

#include <unordered_map>
#include <unordered_set>

namespace ember::jit {

namespace {

// A node's identity for merging: operator, inputs and constants.
std::string node_key(const Node& n) {
  std::string key = n.kind();
  for (const Input& in : n.inputs) {
    key += '|';
    if (in.kind == Input::Kind::Value) {
      key += std::to_string(reinterpret_cast<uintptr_t>(in.value));
    } else if (in.kind == Input::Kind::List) {
      for (const Value* v : in.list) key += std::to_string(reinterpret_cast<uintptr_t>(v)) + ",";
    } else {
      key += in.constant.tagName() + ":" + constant_str(in.constant);
    }
  }
  return key;
}

}  // namespace

void eliminate_dead_code(Graph& graph) {
  std::unordered_set<const Value*> live(graph.outputs().begin(), graph.outputs().end());
  std::unordered_set<const Node*> kept;
  const auto& nodes = graph.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Node& n = **it;
    bool needed = n.mutates();
    for (const Value* v : n.outputs) needed = needed || live.count(v) != 0;
    if (!needed) continue;
    kept.insert(&n);
    for (const Value* v : n.input_values()) live.insert(v);
  }
  graph.remove_nodes_if([&](const Node* n) { return kept.count(n) == 0; });
}

void eliminate_common_subexpressions(Graph& graph) {
  WrittenMemory memory(graph);
  std::unordered_map<std::string, Node*> seen;
  std::unordered_set<const Node*> merged;
  for (const auto& n : graph.nodes()) {
    if (n->mutates()) {
      seen.clear();  // what was read before the write may read differently after it
      continue;
    }
    if (!n->op() || n->nondeterministic() || memory.any_written(*n)) continue;
    auto [it, inserted] = seen.emplace(node_key(*n), n.get());
    if (inserted) continue;
    for (size_t i = 0; i < n->outputs.size(); ++i) graph.replace_all_uses(n->outputs[i], it->second->outputs[i]);
    merged.insert(n.get());
  }
  graph.remove_nodes_if([&](const Node* n) { return merged.count(n) != 0; });
}

void fold_constants(Graph& graph) {
  WrittenMemory memory(graph);
  c10::NoGradGuard no_grad;
  std::unordered_map<const Value*, IValue> constants;
  const auto constant_of = [&](const Value* v) -> const IValue& {
    auto it = constants.find(v);
    if (it == constants.end()) it = constants.emplace(v, IValue(v->node()->constant)).first;
    return it->second;
  };
  for (const auto& n : graph.nodes()) {
    if (!n->op() || n->mutates() || n->nondeterministic() || n->outputs.size() != 1 || !n->outputs[0]->is_tensor() ||
        memory.any_written(*n))
      continue;
    bool all_constant = true;
    for (const Value* v : n->input_values())
      all_constant = all_constant && v->node() != nullptr && v->node()->kind() == "prim::Constant";
    if (!all_constant) continue;
    auto outputs = run_node(*n, constant_of);
    graph.make_constant(n.get(), outputs[0].toTensor());
  }
}

void optimize(Graph& graph) {
  for (;;) {
    const size_t before = graph.nodes().size();
    fold_constants(graph);
    eliminate_common_subexpressions(graph);
    eliminate_dead_code(graph);
    if (graph.nodes().size() == before) return;
  }
}

}  // namespace ember::jit
