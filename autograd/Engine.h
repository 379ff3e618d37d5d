#pragma once
// Runs a backward pass: counts how many gradients each node waits for,
// then runs nodes as their inputs complete, latest forward op first. Runs
// on the calling thread; a node may start a nested (reentrant) pass.

#include <autograd/Node.h>

#include <functional>

namespace ember::autograd {

struct Engine {
  // Runs `callback` when the backward pass running on this thread (the
  // innermost, for a reentrant one) has finished all its nodes, after the
  // callbacks queued before it; a callback may queue more. Outside a
  // backward pass: an error, as torch's Variable._execution_engine.queue_callback.
  static void queue_callback(std::function<void()> callback);

  // Feeds `grads` into `roots` and runs the graph behind them. With
  // `outputs`, returns the gradients that reach those edges (and, unless
  // accumulate_grad, runs only what computing them needs).
  static variable_list execute(const edge_list& roots, const variable_list& grads, bool keep_graph,
                               bool create_graph, bool accumulate_grad, const edge_list& outputs = {});
};

}  // namespace ember::autograd
