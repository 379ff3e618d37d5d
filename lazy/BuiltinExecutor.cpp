// The built-in executor: a lazy graph run by the dispatcher's CPU kernels,
// after common subexpressions are merged and elementwise chains fused.
//
// Lazy graphs are functional (an in-place node's output is a new value; its
// input keeps its old value for later readers), while the kernels write in
// place. So a node that writes a value runs on a private copy of it unless
// it is the value's only reader and the value is memory of its own (made by
// a node that is not a view, not an input, not an output).

#include <lazy/Executor.h>

#include <jit/ir/fusion.h>
#include <jit/ir/passes.h>
#include <jit/runtime/interpreter.h>
#include <c10/util/Exception.h>

#include <unordered_map>
#include <unordered_set>

namespace ember::lazy {

namespace {

// The written arguments of `node` that must be copied before it runs.
std::unordered_set<const jit::Value*> written_shared(const jit::Node& node,
                                                     const std::unordered_map<const jit::Value*, int>& readers,
                                                     const std::unordered_set<const jit::Value*>& outputs) {
  std::unordered_set<const jit::Value*> shared;
  const FunctionSchema& schema = *node.schema();
  for (size_t i = 0; i < schema.arguments.size() && i < node.inputs.size(); ++i) {
    const auto& alias = schema.arguments[i].alias;
    if (!alias || !alias->is_write) continue;
    for (const jit::Value* v : node.inputs[i].values()) {
      const jit::Node* producer = v->node();
      const bool own = producer != nullptr && producer->op() && !producer->aliases_input();
      const auto count = readers.find(v);
      if (!own || outputs.count(v) || count == readers.end() || count->second != 1) shared.insert(v);
    }
  }
  return shared;
}

// as_strided reads its input's elements in row-major order as the memory it
// addresses (how lazy views are rederived from their base).
bool reads_as_memory(const jit::Node& node) {
  return node.kind() == "aten::as_strided" || node.kind() == "aten::as_strided_scatter";
}

// A lazy tensor's strides are what the meta kernels say; the CPU tensor a
// run makes for it may be laid out otherwise (a TensorIterator result keeps
// its input's layout), where view() would fail. Values are immutable here,
// so a reshape (a view where it can be, a copy where not) means the same.
void reshape_instead_of_view(jit::Graph& graph) {
  static const auto reshape = Dispatcher::singleton().findSchema("aten::reshape");
  if (!reshape) return;
  for (const auto& n : graph.nodes()) {
    if (n->kind() == "aten::view" || n->kind() == "aten::_unsafe_view")
      graph.make_call(n.get(), *reshape, {n->inputs[0], n->inputs[1]});
  }
}

Tensor as_memory(const Tensor& t) {
  return t.is_contiguous() && t.storage_offset() == 0 ? t : t.clone(MemoryFormat::Contiguous);
}

class BuiltinExecutable final : public Executable {
 public:
  explicit BuiltinExecutable(std::shared_ptr<jit::Graph> graph) : graph_(std::move(graph)) {
    reshape_instead_of_view(*graph_);
    jit::eliminate_common_subexpressions(*graph_);
    jit::fuse_elementwise(*graph_, DeviceType::Lazy);
    std::unordered_map<const jit::Value*, int> readers;
    for (const auto& n : graph_->nodes())
      for (const jit::Value* v : n->input_values()) ++readers[v];
    const std::unordered_set<const jit::Value*> outputs(graph_->outputs().begin(), graph_->outputs().end());
    for (const auto& n : graph_->nodes())
      copies_.push_back(n->mutates() ? written_shared(*n, readers, outputs) : std::unordered_set<const jit::Value*>{});
  }

  std::vector<Tensor> run(std::vector<IValue> inputs) override {
    const jit::Graph& g = *graph_;
    EMBER_CHECK(inputs.size() == g.inputs().size(), "lazy graph: expected {} inputs, got {}", g.inputs().size(),
                inputs.size());
    std::vector<IValue> env(g.num_values());
    for (size_t i = 0; i < inputs.size(); ++i) env[g.inputs()[i]->index()] = std::move(inputs[i]);
    std::unordered_map<const jit::Value*, IValue> private_copies;
    for (size_t k = 0; k < g.nodes().size(); ++k) {
      const jit::Node& node = *g.nodes()[k];
      private_copies.clear();
      for (const jit::Value* v : copies_[k]) private_copies[v] = IValue(env[v->index()].toTensor().clone());
      if (reads_as_memory(node)) {
        const jit::Value* base = node.inputs[0].value;
        private_copies[base] = IValue(as_memory(env[base->index()].toTensor()));
      }
      auto results = jit::run_node(node, [&](const jit::Value* v) -> const IValue& {
        auto found = private_copies.find(v);
        return found != private_copies.end() ? found->second : env[v->index()];
      });
      for (size_t i = 0; i < results.size(); ++i) env[node.outputs[i]->index()] = std::move(results[i]);
      // A lazy value that is not a view is memory of its own, row-major (what
      // its meta says and kernels such as _adam_step_ require); a kernel may
      // have kept a permuted input's layout.
      if (!node.aliases_input()) {
        for (const jit::Value* v : node.outputs) {
          IValue& out = env[v->index()];
          if (out.isTensor() && out.toTensor().defined() && !out.toTensor().is_contiguous())
            out = IValue(out.toTensor().contiguous());
        }
      }
    }
    std::vector<Tensor> outputs;
    outputs.reserve(g.outputs().size());
    for (const jit::Value* v : g.outputs()) outputs.push_back(env[v->index()].toTensor());
    return outputs;
  }

  std::string dump() const override { return graph_->str(); }

 private:
  std::shared_ptr<jit::Graph> graph_;
  std::vector<std::unordered_set<const jit::Value*>> copies_;  // per node
};

class BuiltinExecutor final : public Executor {
 public:
  std::string name() const override { return "builtin"; }
  std::unique_ptr<Executable> compile(std::shared_ptr<jit::Graph> graph) override {
    return std::make_unique<BuiltinExecutable>(std::move(graph));
  }
};

}  // namespace

std::shared_ptr<Executor> make_builtin_executor() { return std::make_shared<BuiltinExecutor>(); }

}  // namespace ember::lazy
