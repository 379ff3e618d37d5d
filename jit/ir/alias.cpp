#include <jit/ir/alias.h>

namespace ember::jit {

WrittenMemory::WrittenMemory(const Graph& graph) {
  // Union-find over values: an output joins the inputs of its alias set.
  for (const auto& n : graph.nodes()) {
    const FunctionSchema* schema = n->schema();
    if (schema == nullptr) continue;
    for (size_t r = 0, out = 0; r < schema->returns.size(); ++r) {
      const int count = n->return_sizes[r] < 0 ? 1 : n->return_sizes[r];
      if (const auto& alias = schema->returns[r].alias) {
        for (size_t a = 0; a < schema->arguments.size(); ++a) {
          if (!schema->arguments[a].alias || schema->arguments[a].alias->set != alias->set) continue;
          for (const Value* in : n->inputs[a].values())
            for (int k = 0; k < count; ++k) unite(n->outputs[out + k], in);
        }
      }
      out += count;
    }
  }
  for (const auto& n : graph.nodes()) {
    const FunctionSchema* schema = n->schema();
    if (schema == nullptr) continue;
    for (size_t a = 0; a < schema->arguments.size(); ++a) {
      const auto& alias = schema->arguments[a].alias;
      if (alias && alias->is_write)
        for (const Value* in : n->inputs[a].values()) written_.insert(root(in));
    }
  }
}

bool WrittenMemory::written(const Value* v) { return written_.count(root(v)) != 0; }

bool WrittenMemory::any_written(const Node& n) {
  for (const Value* v : n.outputs)
    if (written(v)) return true;
  return false;
}

// Iterative, with path halving: a long chain of views does not recurse.
const Value* WrittenMemory::root(const Value* v) {
  for (;;) {
    auto it = parent_.find(v);
    if (it == parent_.end() || it->second == v) return v;
    auto up = parent_.find(it->second);
    if (up != parent_.end()) it->second = up->second;
    v = it->second;
  }
}

void WrittenMemory::unite(const Value* a, const Value* b) {
  const Value *ra = root(a), *rb = root(b);
  if (ra != rb) parent_[ra] = rb;
}

}  // namespace ember::jit
