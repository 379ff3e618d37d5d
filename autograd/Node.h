#pragma once
// A node of the backward graph: a function from the gradients of a forward
// op's outputs to the gradients of its inputs. Edges point from a node to the
// nodes that produced its forward inputs; the engine walks them.

#include <aten/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ember::autograd {

using variable_list = std::vector<Tensor>;
struct Node;

// Input `input_nr` of `function`. Invalid (no function) where no gradient
// is wanted, e.g. for an input that does not require grad.
struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> function, uint32_t input_nr) : function(std::move(function)), input_nr(input_nr) {}
  bool is_valid() const { return function != nullptr; }
  bool operator==(const Edge& other) const { return function == other.function && input_nr == other.input_nr; }

  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};
using edge_list = std::vector<Edge>;

// What a gradient arriving at one input of a node must look like: the
// forward tensor's shape, dtype and device.
struct InputMetadata {
  InputMetadata() = default;
  explicit InputMetadata(const Tensor& t) : shape(t.sizes().vec()), dtype(t.scalar_type()), device(t.device()) {}
  Tensor zeros() const;

  std::vector<int64_t> shape;
  ScalarType dtype = ScalarType::Float;
  Device device = Device(DeviceType::CPU);
};

// Hooks. A tensor hook sees the gradient of one tensor and may replace it
// (an undefined result keeps it); a pre-hook sees all the node's incoming
// gradients, a post-hook its results too; each may return replacements
// (empty keeps them).
using TensorHook = std::function<Tensor(const Tensor&)>;
using PreHook = std::function<variable_list(const variable_list& grad_outputs)>;
using PostHook = std::function<variable_list(const variable_list& grad_inputs, const variable_list& grad_outputs)>;

// Tensor hooks by id, in registration order; shared by a leaf's metadata
// and its AccumulateGrad node so hooks outlive any one graph.
struct TensorHookList {
  std::vector<std::pair<uint64_t, TensorHook>> hooks;
};

// Ids for hook handles, unique across all nodes and tensors.
uint64_t next_hook_id();

struct Node : std::enable_shared_from_this<Node> {
  explicit Node(edge_list next_edges = {});
  // Releases the graph behind this node without recursing (see Node.cpp).
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Runs the backward function (the engine adds hooks and checks around it).
  variable_list operator()(variable_list&& grads) { return apply(std::move(grads)); }

  // "MulBackward0". Generated nodes override it.
  virtual std::string name() const;

  const edge_list& next_edges() const { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  void set_next_edges(edge_list edges) { next_edges_ = std::move(edges); }
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  size_t num_outputs() const { return next_edges_.size(); }
  // Whether the gradient for forward input i is wanted at all.
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  // One entry per forward output (= per incoming gradient).
  uint32_t add_input_metadata(const Tensor& t);
  size_t num_inputs() const { return input_metadata_.size(); }
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }

  // Later nodes run first: the engine orders its ready queue by this.
  uint64_t sequence_nr() const { return sequence_nr_; }

  // Hooks; the returned id removes them again.
  uint64_t add_tensor_pre_hook(uint32_t input_nr, TensorHook hook);
  uint64_t add_pre_hook(PreHook hook);
  uint64_t add_post_hook(PostHook hook);
  bool remove_hook(uint64_t id);
  // retain_grad() of the tensor that is output `input_nr` of this node.
  void set_retains_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> hook);
  void clear_retains_grad_hook(uint32_t input_nr);

  // Frees saved tensors after a backward pass without retain_graph.
  virtual void release_variables() {}

  // Where the forward op ran, recorded under anomaly mode.
  const std::string& forward_trace() const { return forward_trace_; }
  void set_forward_trace(std::string trace) { forward_trace_ = std::move(trace); }

  // For the engine: the hooks around apply().
  variable_list run_pre_hooks(variable_list grads);
  variable_list run_post_hooks(variable_list grad_inputs, const variable_list& grad_outputs);
  bool has_post_hooks() const { return !post_hooks_.empty(); }
  void run_retains_grad_hooks(const variable_list& grads);
  virtual variable_list run_tensor_pre_hooks(variable_list grads);

 protected:
  virtual variable_list apply(variable_list&& grads) = 0;
  static variable_list apply_tensor_hooks(const TensorHookList& list, uint32_t input_nr, variable_list grads);

  edge_list next_edges_;
  std::vector<InputMetadata> input_metadata_;
  uint64_t sequence_nr_;
  // (input_nr, hooks) pairs; few per node.
  std::vector<std::pair<uint32_t, TensorHookList>> tensor_pre_hooks_;
  std::vector<std::pair<uint64_t, PreHook>> pre_hooks_;
  std::vector<std::pair<uint64_t, PostHook>> post_hooks_;
  std::vector<std::pair<uint32_t, std::function<void(const Tensor&)>>> retains_grad_hooks_;
  std::string forward_trace_;

 public:
  // Owned by the Python binding (grad_fn.metadata); opaque here.
  std::shared_ptr<void> python_metadata;
};

// The edge a gradient for `t` flows into: its grad_fn, its grad accumulator
// (a leaf that requires grad), or invalid.
Edge gradient_edge(const Tensor& t);

}  // namespace ember::autograd
