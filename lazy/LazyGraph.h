#pragma once
// The pending graph: what ops on lazy tensors have recorded since the last
// run, one per process (lazy tensors may cross threads), with the tensors
// that are alive. sync() cuts it as XLA's mark_step does: one run computes
// every live lazy tensor's value, and recording starts over on a new graph
// whose inputs are the data that run left.
//
// Graph inputs are data (tensors) and numbers that change between steps
// (Scalar and float arguments: learning rates, step counts), so that the
// same step records the same graph, found in the executor's cache.

#include <lazy/LazyTensor.h>

#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ember::lazy {

class LazyGraph {
 public:
  static LazyGraph& get();

  // Held while recording and running; recursive because tensors die (and
  // untrack themselves) inside both.
  std::recursive_mutex& mutex() { return mutex_; }
  jit::Graph& graph() { return *graph_; }
  uint64_t epoch() const { return epoch_; }

  // The pending graph's value for `t` (a view gone stale is rederived from
  // its base first; data becomes a graph input).
  jit::Value* value_of(LazyTensorImpl& t);
  // A graph input for CPU data read by the graph: a lazy tensor's data, or
  // (`lazy` false) a CPU scalar or Python number an op reads. The graph
  // keeps `data` until it runs.
  jit::Value* data_input(const Tensor& data, bool lazy = true);
  // A graph input for a number argument.
  jit::Value* number_input(const IValue& number);
  // Gives `t` the value `v` (an in-place op's result): a base's group gets a
  // new memory value; a view's write is scattered into its base.
  void write(LazyTensorImpl& t, jit::Value* v);
  // The same with CPU data (an upload, an eager op's result), which `t` then holds.
  void write_data(LazyTensorImpl& t, Tensor data);
  // Appends a node; its source is the caller's line when the provider says.
  jit::Node* append(const OperatorHandle& op, std::vector<jit::Input> inputs, std::vector<int> return_sizes,
                    const std::vector<std::optional<jit::TensorMeta>>& metas);

  // Runs the pending graph, if anything is pending, so that every live lazy
  // tensor holds data. Where the run fails, the error is raised and the graph
  // dropped: memory written in it holds again what it held before, and the
  // tensors it was to compute raise that error when read.
  void sync();
  // `t`'s value as a CPU tensor (running what is pending). Not a copy:
  // callers that hand it out or write it copy it first.
  Tensor data_of(LazyTensorImpl& t);

  // Forgets what each sync site compiled (after the compiled graphs were
  // dropped: compiling them again is no news).
  void forget_compiles();

  void track(LazyTensorImpl* t);
  void untrack(LazyTensorImpl* t);
  size_t live_tensors();

  // Where the current op was called from ("train.py:12", from the calling
  // thread's Python interpreter): for debug dumps and the recompilation warning.
  static std::string source();

 private:
  LazyGraph();
  void start_new_graph();
  jit::Value* value_of_handle(Handle& h);
  void write(LazyTensorImpl& t, Handle value);
  // After a failed run: see sync().
  void abandon_graph(const std::string& why);

  // Per sync site and graph structure (the text without its numbers).
  struct SiteHistory {
    size_t compiled = 0;                   // graphs of this structure compiled there
    std::vector<std::string> last_inputs;  // the last one's input types
  };

  std::recursive_mutex mutex_;
  std::shared_ptr<jit::Graph> graph_;
  uint64_t epoch_ = 1;
  std::vector<IValue> input_values_;  // per graph input
  std::unordered_map<const c10::TensorImpl*, jit::Value*> data_inputs_;
  std::unordered_set<LazyTensorImpl*> live_;
  // The data each group held before the pending graph first wrote it: what
  // it holds again if that graph fails to run.
  struct BeforeWrite {
    std::weak_ptr<AliasGroup> group;
    Handle base;
    std::vector<int64_t> base_sizes;
  };
  std::unordered_map<const AliasGroup*, BeforeWrite> before_writes_;
  std::unordered_map<std::string, SiteHistory> sites_;
};

// A lazy base tensor holding `data` (a CPU tensor it now owns).
Tensor make_lazy_from_data(Tensor data);

}  // namespace ember::lazy
