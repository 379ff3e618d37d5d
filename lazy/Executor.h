#pragma once
// What runs a lazy graph. An Executor compiles a graph once into an
// Executable that is then run on every step that records the same graph
// (the cache is keyed by the graph's text, which holds ops, constants,
// shapes and dtypes but no data). Two are provided: the built-in one
// (BuiltinExecutor.cpp: the dispatcher's CPU kernels after the IR's passes
// and elementwise fusion) and XLA through jaxlib, registered from Python
// (ember/lazy/_xla.py). EMBER_LAZY_EXECUTOR or set_executor picks one.

#include <jit/ir/ir.h>

#include <memory>
#include <string>
#include <vector>

namespace ember::lazy {

class Executable {
 public:
  virtual ~Executable() = default;
  // The graph's outputs, as CPU tensors, for its inputs (one per graph
  // input, in order: tensors and numbers).
  virtual std::vector<Tensor> run(std::vector<IValue> inputs) = 0;
  // What the executor made of the graph, for EMBER_LAZY_DEBUG dumps.
  virtual std::string dump() const { return ""; }
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;
  // `graph` has its outputs set and no dead nodes; the executor may rewrite it.
  virtual std::unique_ptr<Executable> compile(std::shared_ptr<jit::Graph> graph) = 0;
};

void register_executor(std::shared_ptr<Executor> executor);
// Errors name the known executors.
void set_executor(const std::string& name);
// EMBER_LAZY_EXECUTOR's choice (default "builtin") until set_executor.
std::shared_ptr<Executor> current_executor();
std::vector<std::string> executor_names();

// Compiled executables by (executor, graph text).
std::shared_ptr<Executable> find_compiled(const std::string& key);
void add_compiled(const std::string& key, std::shared_ptr<Executable> executable);
void clear_compiled();
size_t num_compiled();

}  // namespace ember::lazy
