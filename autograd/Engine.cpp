#include <autograd/Engine.h>

#include <autograd/AnomalyMode.h>
#include <autograd/FunctionsManual.h>
#include <autograd/functions/Basic.h>

#include <aten/Functions.h>
#include <c10/core/GradMode.h>

#include <deque>
#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace ember::autograd {

namespace {

struct NodeTask {
  std::shared_ptr<Node> fn;
  variable_list inputs;
};

struct LaterFirst {
  bool operator()(const NodeTask& a, const NodeTask& b) const { return a.fn->sequence_nr() < b.fn->sequence_nr(); }
};

// Gradients arriving at one node, summed per input.
void accumulate(variable_list& buffer, uint32_t input_nr, Tensor grad) {
  if (!grad.defined()) return;
  Tensor& slot = buffer[input_nr];
  slot = slot.defined() ? slot + grad : std::move(grad);
}

bool expandable_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    if (f != t && f != 1) return false;
  }
  return true;
}

// Makes each gradient match what its next node expects: sums broadcast
// dims away and casts to the input's dtype; a shape that cannot be reduced
// is a bug in a backward function and is reported as such.
void validate_outputs(const Node& node, variable_list& grads) {
  const edge_list& edges = node.next_edges();
  EMBER_CHECK(grads.size() == edges.size(), "function {} returned an incorrect number of gradients (expected {}, got {})",
              node.name(), edges.size(), grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    const Edge& edge = edges[i];
    Tensor& grad = grads[i];
    if (!edge.is_valid() || !grad.defined()) continue;
    const InputMetadata& md = edge.function->input_metadata(edge.input_nr);
    if (grad.sizes() != IntArrayRef(md.shape)) {
      EMBER_CHECK(expandable_to(md.shape, grad.sizes()),
                  "Function {} returned an invalid gradient at index {} - got {} but expected shape compatible with {}",
                  node.name(), i, c10::str_sizes(grad.sizes()), c10::str_sizes(md.shape));
      grad = manual::sum_to(grad, md.shape);
    }
    EMBER_CHECK(grad.device() == md.device, "Function {} returned an invalid gradient at index {} - expected device {} but got {}",
                node.name(), i, md.device.str(), grad.device().str());
    if (grad.scalar_type() != md.dtype) grad = grad.to(md.dtype);
  }
}

void report_anomaly(const Node& node) {
  if (node.forward_trace().empty()) return;
  AnomalyMode::set_last_report(fmt::format("Error detected in {}. Traceback of forward call that caused the error:\n{}",
                                           node.name(), node.forward_trace()));
}

void check_nan(const Node& node, const variable_list& grads) {
  for (size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    if (!g.defined() || !(g.is_floating_point() || g.is_complex())) continue;
    if (g.ne(g).any().item().toBool()) {
      report_anomaly(node);
      EMBER_CHECK(false, "Function '{}' returned nan values in its {}th output.", node.name(), i);
    }
  }
}

variable_list call_function(Node& fn, variable_list inputs, bool keep_graph) {
  inputs = fn.run_pre_hooks(std::move(inputs));
  // Only post hooks see the incoming gradients again; without them no copy
  // is kept, so a leaf's AccumulateGrad finds its gradient unshared and keeps
  // it instead of copying it.
  variable_list hook_inputs;
  if (fn.has_post_hooks()) hook_inputs = inputs;
  variable_list outputs;
  if (AnomalyMode::is_enabled()) {
    try {
      outputs = fn(std::move(inputs));
    } catch (...) {
      report_anomaly(fn);
      throw;
    }
  } else {
    outputs = fn(std::move(inputs));
  }
  if (!keep_graph) fn.release_variables();
  validate_outputs(fn, outputs);
  if (AnomalyMode::is_enabled() && AnomalyMode::should_check_nan()) check_nan(fn, outputs);
  return fn.run_post_hooks(std::move(outputs), hook_inputs);
}

// The final callbacks of the backward passes running on this thread,
// innermost last.
thread_local std::vector<std::deque<std::function<void()>>> final_callbacks;

struct FinalCallbacksScope {
  FinalCallbacksScope() { final_callbacks.emplace_back(); }
  ~FinalCallbacksScope() { final_callbacks.pop_back(); }
  void run() {
    // A callback may queue another onto this same list.
    while (!final_callbacks.back().empty()) {
      std::function<void()> callback = std::move(final_callbacks.back().front());
      final_callbacks.back().pop_front();
      callback();
    }
  }
};

}  // namespace

void Engine::queue_callback(std::function<void()> callback) {
  EMBER_CHECK(!final_callbacks.empty(), "Final callbacks can only be installed during backward pass.");
  final_callbacks.back().push_back(std::move(callback));
}

variable_list Engine::execute(const edge_list& roots, const variable_list& grads, bool keep_graph, bool create_graph,
                              bool accumulate_grad, const edge_list& outputs) {
  auto root = std::make_shared<GraphRoot>(roots, grads);

  // Dependencies: how many edges lead into each node from the graph.
  std::unordered_map<Node*, int> dependencies;
  std::vector<Node*> order;  // discovery order, for the needed-set pass
  {
    std::vector<Node*> stack{root.get()};
    std::unordered_set<Node*> seen{root.get()};
    while (!stack.empty()) {
      Node* fn = stack.back();
      stack.pop_back();
      order.push_back(fn);
      for (const Edge& e : fn->next_edges()) {
        if (!e.is_valid()) continue;
        dependencies[e.function.get()] += 1;
        if (seen.insert(e.function.get()).second) stack.push_back(e.function.get());
      }
    }
  }

  // With outputs: gradients are captured where they enter those edges, and
  // only nodes on a path to a capture run.
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  std::unordered_map<Node*, bool> needed;
  const bool select = !outputs.empty();
  if (select) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].is_valid()) captures[outputs[i].function.get()].emplace_back(outputs[i].input_nr, i);
    }
    // A node is needed if one of its next nodes captures or is needed. In
    // reverse discovery order children mostly come first; iterate to a fixpoint.
    std::unordered_map<Node*, bool> leads;  // captures or needed
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        Node* fn = *it;
        bool n = false;
        for (const Edge& e : fn->next_edges()) {
          if (e.is_valid() && leads[e.function.get()]) n = true;
        }
        // backward(inputs=...) still accumulates into the chosen leaves.
        if (accumulate_grad && captures.count(fn) && dynamic_cast<AccumulateGrad*>(fn)) n = true;
        const bool l = n || captures.count(fn) > 0;
        if (n != needed[fn] || l != leads[fn]) {
          needed[fn] = n;
          leads[fn] = l;
          changed = true;
        }
      }
    }
  }
  auto is_needed = [&](Node* fn) { return !select || needed[fn]; };
  auto is_relevant = [&](Node* fn) { return !select || needed[fn] || captures.count(fn); };

  variable_list captured(outputs.size());
  FinalCallbacksScope callbacks;
  c10::AutoGradMode grad_mode(create_graph);
  std::priority_queue<NodeTask, std::vector<NodeTask>, LaterFirst> ready;
  std::unordered_map<Node*, variable_list> pending;
  ready.push(NodeTask{root, {}});

  while (!ready.empty()) {
    // top() is const; the gradients (which the ordering never reads) are
    // moved out just before pop() discards them, so none stays shared.
    NodeTask task{ready.top().fn, std::move(const_cast<NodeTask&>(ready.top()).inputs)};
    ready.pop();
    Node& fn = *task.fn;
    variable_list inputs = fn.run_tensor_pre_hooks(std::move(task.inputs));
    fn.run_retains_grad_hooks(inputs);
    if (auto it = captures.find(&fn); it != captures.end()) {
      for (const auto& [input_nr, index] : it->second) {
        if (input_nr < inputs.size()) accumulate(captured, static_cast<uint32_t>(index), inputs[input_nr]);
      }
    }
    if (!is_needed(&fn)) continue;
    variable_list results = call_function(fn, std::move(inputs), keep_graph);

    for (size_t i = 0; i < results.size(); ++i) {
      const Edge& e = fn.next_edge(i);
      if (!e.is_valid()) continue;
      Node* next = e.function.get();
      if (!is_relevant(next)) continue;
      auto [slot, inserted] = pending.try_emplace(next);
      if (inserted) slot->second.resize(next->num_inputs());
      accumulate(slot->second, e.input_nr, std::move(results[i]));
      if (--dependencies[next] == 0) {
        ready.push(NodeTask{e.function, std::move(slot->second)});
        pending.erase(slot);
      }
    }
  }
  callbacks.run();
  return captured;
}

}  // namespace ember::autograd
