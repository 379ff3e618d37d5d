#pragma once
// The graph IR that traced programs (and, later, lazy tensors) are held in:
// a straight-line SSA program over dispatcher operators.
//
//   graph(%x : Float(2, 4), %fc.weight : Float(3, 4), %fc.bias : Float(3)):
//     %0 : Float(2, 3) = aten::linear(%x, %fc.weight, %fc.bias)
//     %1 : Float(2, 3) = aten::relu(%0)
//     return (%1)
//
// Values are typed (dtype, sizes, device for tensors) and produced once.
// A node names an operator schema and holds one input per schema argument:
// a value, a list of values (Tensor[] / Tensor?[]) or a constant. Tensor
// constants are prim::Constant nodes. In-place ops and views keep their
// schemas' alias annotations (passes read them through Node::mutates());
// an in-place node's output is a new value standing for the written tensor.
// Nothing here knows how a graph was made (tracing) or is run.

#include <aten/core/Tensor.h>
#include <aten/core/dispatch/Dispatcher.h>
#include <aten/core/dispatch/IValue.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ember::jit {

struct TensorMeta {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  Device device = Device(DeviceType::CPU);

  static TensorMeta of(const Tensor& t);
  // "Float(2, 3)", with ", device=meta" off the CPU.
  std::string str() const;
  friend bool operator==(const TensorMeta& a, const TensorMeta& b) {
    return a.dtype == b.dtype && a.sizes == b.sizes && a.device == b.device;
  }
};

class Node;
class Graph;

class Value {
 public:
  // Graph inputs are named ("x", "fc.weight"); other values print by number.
  const std::string& name() const { return name_; }
  // Tensors have a meta; other values (an item()'s Scalar) have only a type name.
  const std::optional<TensorMeta>& meta() const { return meta_; }
  const std::string& type_name() const { return type_name_; }
  bool is_tensor() const { return meta_.has_value(); }
  // The node that produces it; nullptr for a graph input.
  Node* node() const { return node_; }
  // Its number in its graph, below Graph::num_values(): where executors keep it.
  size_t index() const { return index_; }

 private:
  friend class Graph;
  Value() = default;
  size_t index_ = 0;
  std::string name_;
  std::optional<TensorMeta> meta_;
  std::string type_name_;
  Node* node_ = nullptr;
};

// One schema argument's input.
struct Input {
  enum class Kind { Value, List, Constant };
  Kind kind = Kind::Constant;
  Value* value = nullptr;
  // A Tensor[] or Tensor?[] argument: its elements (nullptr: None).
  std::vector<Value*> list;
  IValue constant;

  static Input of(Value* v) { return Input{Kind::Value, v, {}, {}}; }
  static Input of_list(std::vector<Value*> values) { return Input{Kind::List, nullptr, std::move(values), {}}; }
  static Input of_constant(IValue c) { return Input{Kind::Constant, nullptr, {}, std::move(c)}; }
  // The values read, in order (none for a constant).
  std::vector<Value*> values() const;
};

class Node {
 public:
  // "aten::add.Tensor", or "prim::Constant".
  const std::string& kind() const { return kind_; }
  // The operator called; none for prim:: nodes.
  const std::optional<OperatorHandle>& op() const { return op_; }
  const FunctionSchema* schema() const { return op_ ? &op_->schema() : nullptr; }

  std::vector<Input> inputs;
  // The returns flattened: a Tensor[] return gives one value per element;
  // then, where the op writes arguments it does not return (_adam_step_
  // writes its moments), the new value of each, in argument order (list
  // elements each): see writes_without_returning.
  std::vector<Value*> outputs;
  // Per schema return: -1 for one value, n for a list of n.
  std::vector<int> return_sizes;
  // A prim::Constant's tensor.
  Tensor constant;

  // Writes one of its arguments (an alias annotation with '!').
  bool mutates() const;
  // Its output aliases an input (a view, or the written argument).
  bool aliases_input() const;
  // Gives different results for the same inputs (random ops, empty).
  bool nondeterministic() const;
  // Every value it reads, in argument order.
  std::vector<Value*> input_values() const;

  // Where the node was made ("train.py:42"), for debugging dumps; empty
  // when nobody said. Not part of the graph's meaning.
  std::string source;

 private:
  friend class Graph;
  Node() = default;
  std::string kind_;
  std::optional<OperatorHandle> op_;
};

// Whether schema argument `i` is written by the op but not among its
// returns: a node's outputs then include its new value after the returns'.
bool writes_without_returning(const FunctionSchema& schema, size_t i);
// The tensors that `args` (one per schema argument) give those arguments,
// list elements each, in order: what a node's outputs after its returns stand for.
std::vector<Tensor> written_without_returning(const FunctionSchema& schema, const std::vector<IValue>& args);

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Value* add_input(std::string name, std::optional<TensorMeta> meta);
  // An input that is not a tensor ("float", "int": a learning rate fed per run).
  Value* add_input(std::string name, std::string type_name);
  // Appends a call of `op`; the outputs are made from `return_metas` (one per
  // flattened output: a meta for tensors, nullopt plus a type name otherwise).
  Node* append_call(OperatorHandle op, std::vector<Input> inputs, std::vector<int> return_sizes,
                    const std::vector<std::optional<TensorMeta>>& output_metas,
                    const std::vector<std::string>& output_type_names = {});
  Node* append_constant(Tensor value);
  // Turns a one-output node into the prim::Constant of `value`, or into a
  // call of `op` on `inputs`, in place: its output keeps its readers.
  void make_constant(Node* node, Tensor value);
  void make_call(Node* node, OperatorHandle op, std::vector<Input> inputs);
  void add_output(Value* v) { outputs_.push_back(v); }

  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  std::vector<Value*>& mutable_outputs() { return outputs_; }
  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  // Every value ever made in this graph (passes leave removed ones numbered).
  size_t num_values() const { return values_.size(); }

  // Every read of `from` (node inputs, graph outputs) reads `to` instead.
  void replace_all_uses(Value* from, Value* to);
  // Removes the nodes for which `drop` is true (their outputs must be unused).
  template <typename Pred>
  void remove_nodes_if(Pred drop) {
    std::vector<std::unique_ptr<Node>> kept;
    for (auto& n : nodes_)
      if (!drop(n.get())) kept.push_back(std::move(n));
    nodes_ = std::move(kept);
  }

  // The text form above; values numbered in order of appearance. With
  // `sources`, each node that knows where it was made says so in a comment.
  std::string str(bool sources = false) const;

 private:
  Value* new_value(Node* producer, std::optional<TensorMeta> meta, std::string type_name);
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
};

// An IValue constant as the IR prints it: 1, 2.5, True, None, [1, 2], "tanh", float32, cpu.
std::string constant_str(const IValue& v);

}  // namespace ember::jit
