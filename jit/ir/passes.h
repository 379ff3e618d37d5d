#pragma once
// Graph-to-graph rewrites that keep a program's results. Each respects the
// schemas' alias annotations: a node that writes an argument is never
// removed, merged or folded, and neither is any node whose output shares
// memory with a tensor that some node writes.

#include <jit/ir/ir.h>

namespace ember::jit {

// Removes nodes whose outputs nothing reads (writing nodes stay).
void eliminate_dead_code(Graph& graph);
// Merges a node into an earlier one of the same operator and inputs.
void eliminate_common_subexpressions(Graph& graph);
// Runs, once, the nodes whose tensor inputs are all constants (and that
// are deterministic), and puts their results in as constants.
void fold_constants(Graph& graph);
// The three, to a fixed point.
void optimize(Graph& graph);

}  // namespace ember::jit
