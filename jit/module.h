#pragma once
// A traced program as C++ runs it: the graph, and the parameters and buffers
// it reads after the caller's inputs. Saved in Ember's file format (readable
// by ember.load as a plain dict; ember.jit.load and jit::load make it a
// program again), so a model traced in Python runs from C++ without Python.

#include <jit/ir/ir.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ember::jit {

// The newest program layout this build writes and reads.
constexpr int64_t kProgramVersion = 1;

class Module {
 public:
  // `graph`'s inputs are the caller's inputs followed by one per parameter.
  Module(std::shared_ptr<Graph> graph, std::vector<std::pair<std::string, Tensor>> parameters);

  // The graph's outputs for these inputs.
  std::vector<IValue> forward(std::vector<IValue> inputs) const;
  // One tensor in, the first output out.
  Tensor forward(const Tensor& input) const;

  const Graph& graph() const { return *graph_; }
  std::shared_ptr<Graph> graph_ptr() const { return graph_; }
  // Names as the traced module's state_dict has them ("fc1.weight").
  const std::vector<std::pair<std::string, Tensor>>& named_parameters() const { return parameters_; }
  size_t num_inputs() const { return graph_->inputs().size() - parameters_.size(); }
  // The parameters that were trainable where the program was traced. A
  // program runs for inference: none of its tensors requires grad after
  // jit::load (Python's ember.jit.load makes these nn.Parameters again).
  const std::vector<std::string>& trainable() const { return trainable_; }
  void set_trainable(std::vector<std::string> names) { trainable_ = std::move(names); }
  // Every operator the program calls ("aten::linear"), sorted, once each.
  std::vector<std::string> operator_names() const;

 private:
  std::shared_ptr<Graph> graph_;
  std::vector<std::pair<std::string, Tensor>> parameters_;
  std::vector<std::string> trainable_;
};

void save(const Module& module, const std::string& path);
// Errors name the file and the problem: not a program, a newer layout, an
// operator this build does not have.
Module load(const std::string& path);

}  // namespace ember::jit
