#pragma once
// Which values of a graph share memory with a tensor that some node writes:
// views of it, what it is a view of, and the written tensor itself, found
// from the schemas' alias sets. Passes leave such values where they are.

#include <jit/ir/ir.h>

#include <unordered_map>
#include <unordered_set>

namespace ember::jit {

class WrittenMemory {
 public:
  explicit WrittenMemory(const Graph& graph);
  bool written(const Value* v);
  // Whether any output of `n` is written memory.
  bool any_written(const Node& n);

 private:
  const Value* root(const Value* v);
  void unite(const Value* a, const Value* b);
  std::unordered_map<const Value*, const Value*> parent_;
  std::unordered_set<const Value*> written_;
};

}  // namespace ember::jit
