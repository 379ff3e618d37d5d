#include <lazy/LazyGraph.h>

#include <lazy/Executor.h>
#include <lazy/Metrics.h>

#include <c10/core/LocalDispatchKeySet.h>
#include <c10/core/PythonInterpreter.h>
#include <c10/util/Exception.h>
#include <c10/util/Warning.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <map>

namespace ember::lazy {

namespace {

const OperatorHandle& find_op(const char* name) {
  static std::map<std::string, OperatorHandle> found;
  auto it = found.find(name);
  if (it != found.end()) return it->second;
  auto op = Dispatcher::singleton().findSchema(name);
  EMBER_CHECK(op.has_value(), "the lazy device needs the operator {}, which this build leaves out", name);
  return found.emplace(name, *op).first->second;
}

bool debug_dumps() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_LAZY_DEBUG");
    return env && *env && std::string(env) != "0";
  }();
  return on;
}

// How many distinct graphs one sync site may compile before a warning says
// that shapes keep changing there.
constexpr size_t kRecompileWarnAfter = 3;

std::vector<std::string> input_types(const jit::Graph& g) {
  std::vector<std::string> types;
  for (const jit::Value* v : g.inputs()) types.push_back(v->is_tensor() ? v->meta()->str() : v->type_name());
  return types;
}

// The text with every run of digits replaced by '#': equal for graphs that
// differ only in sizes and numeric constants.
std::string without_numbers(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    if (!digit) out += text[i];
    else if (i == 0 || !std::isdigit(static_cast<unsigned char>(text[i - 1]))) out += '#';
  }
  return out;
}

std::string what_changed(const std::vector<std::string>& before, const std::vector<std::string>& now) {
  for (size_t i = 0; i < before.size() && i < now.size(); ++i)
    if (before[i] != now[i]) return fmt::format("input {} was {} and is now {}", i, before[i], now[i]);
  return "the recorded operations differ";
}

// Functional liveness: what the outputs need (an in-place node's input keeps
// its old value, so a write nobody reads is dead too).
void remove_dead_nodes(jit::Graph& g) {
  std::unordered_set<const jit::Value*> needed(g.outputs().begin(), g.outputs().end());
  std::unordered_set<const jit::Node*> kept;
  for (auto it = g.nodes().rbegin(); it != g.nodes().rend(); ++it) {
    const jit::Node& n = **it;
    bool used = false;
    for (const jit::Value* v : n.outputs) used = used || needed.count(v) != 0;
    if (!used) continue;
    kept.insert(&n);
    for (const jit::Value* v : n.input_values()) needed.insert(v);
  }
  g.remove_nodes_if([&](const jit::Node* n) { return kept.count(n) == 0; });
}

}  // namespace

LazyGraph& LazyGraph::get() {
  static LazyGraph* graph = new LazyGraph();  // lives to exit: lazy tensors may die after static destructors
  return *graph;
}

LazyGraph::LazyGraph() { start_new_graph(); }

void LazyGraph::start_new_graph() {
  graph_ = std::make_shared<jit::Graph>();
  ++epoch_;
  input_values_.clear();
  data_inputs_.clear();
  before_writes_.clear();
}

void LazyGraph::forget_compiles() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  sites_.clear();
}

void LazyGraph::track(LazyTensorImpl* t) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  live_.insert(t);
}

void LazyGraph::untrack(LazyTensorImpl* t) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  live_.erase(t);
}

size_t LazyGraph::live_tensors() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return live_.size();
}

std::string LazyGraph::source() {
  const c10::PythonInterpreter* python = c10::current_python_interpreter();
  return python ? python->user_source_line() : std::string();
}

jit::Value* LazyGraph::data_input(const Tensor& data, bool lazy) {
  auto found = data_inputs_.find(data.unsafeGetTensorImpl());
  if (found != data_inputs_.end()) return found->second;
  const Device device = lazy ? kLazyDevice : data.device();
  jit::Value* v = graph_->add_input(fmt::format("x{}", graph_->inputs().size()),
                                    jit::TensorMeta{data.scalar_type(), data.sizes().vec(), device});
  input_values_.emplace_back(data);
  data_inputs_.emplace(data.unsafeGetTensorImpl(), v);
  return v;
}

jit::Value* LazyGraph::number_input(const IValue& number) {
  const char* type = number.isDouble() ? "float" : number.isInt() ? "int" : number.isBool() ? "bool" : "complex";
  jit::Value* v = graph_->add_input(fmt::format("s{}", graph_->inputs().size()), std::string(type));
  input_values_.push_back(number);
  return v;
}

static void check_has_value(const Handle& h) {
  EMBER_CHECK(h.error == nullptr,
              "this lazy tensor has no value: the graph run that was to compute it failed ({}). Tensors that graph "
              "wrote hold their earlier values; give this one a value again (e.g. with copy_ or by recomputing it)",
              *h.error);
}

jit::Value* LazyGraph::value_of_handle(Handle& h) {
  check_has_value(h);
  if (h.pending != nullptr) {
    EMBER_INTERNAL_ASSERT(h.epoch == epoch_);  // pending values never outlive their graph
    return h.pending;
  }
  EMBER_INTERNAL_ASSERT(h.data.defined());
  return data_input(h.data);
}

jit::Value* LazyGraph::value_of(LazyTensorImpl& t) {
  if (!t.fresh()) {
    AliasGroup& group = *t.group();
    jit::Value* base = value_of_handle(group.base);
    jit::Node* n = append(find_op("aten::as_strided"),
                          {jit::Input::of(base), jit::Input::of_constant(IValue(t.sizes())),
                           jit::Input::of_constant(IValue(t.strides())),
                           jit::Input::of_constant(IValue(t.storage_offset()))},
                          {-1}, {lazy_meta(t.dtype(), t.sizes())});
    t.own() = Handle{Tensor(), n->outputs[0], epoch_};
    t.mark_fresh();
  }
  return value_of_handle(t.handle());
}

// Whether `t` is all of its group's memory as it is (the base, or a view
// such as detach() or a Parameter): writing it replaces the memory's value.
static bool covers_its_base(LazyTensorImpl& t) {
  return t.is_base() || (t.sizes() == IntArrayRef(t.group()->base_sizes) && t.is_contiguous() && t.storage_offset() == 0);
}

void LazyGraph::write(LazyTensorImpl& t, jit::Value* v) { write(t, Handle{Tensor(), v, epoch_}); }

void LazyGraph::write_data(LazyTensorImpl& t, Tensor data) {
  // Kept as data (not a graph input) where it covers the memory: the graph
  // that uploads a tensor then reads it as every later graph does.
  if (covers_its_base(t)) return write(t, Handle{std::move(data)});
  write(t, data_input(data));
}

void LazyGraph::write(LazyTensorImpl& t, Handle value) {
  t.bump_version();
  AliasGroup& group = *t.group();
  if (group.base.pending == nullptr && group.base.data.defined())
    before_writes_[&group] = BeforeWrite{t.group(), group.base, group.base_sizes};
  if (covers_its_base(t)) {
    group.base = value;
    ++group.generation;
    if (!t.is_base()) {
      t.own() = value;
      t.mark_fresh();
    }
    return;
  }
  jit::Value* base = value_of_handle(group.base);
  jit::Node* n = append(find_op("aten::as_strided_scatter"),
                        {jit::Input::of(base), jit::Input::of(value_of_handle(value)),
                         jit::Input::of_constant(IValue(t.sizes())), jit::Input::of_constant(IValue(t.strides())),
                         jit::Input::of_constant(IValue(t.storage_offset()))},
                        {-1}, {lazy_meta(t.dtype(), group.base_sizes)});
  group.base = Handle{Tensor(), n->outputs[0], epoch_};
  ++group.generation;
  t.own() = std::move(value);
  t.mark_fresh();
}

jit::Node* LazyGraph::append(const OperatorHandle& op, std::vector<jit::Input> inputs, std::vector<int> return_sizes,
                             const std::vector<std::optional<jit::TensorMeta>>& metas) {
  jit::Node* n = graph_->append_call(op, std::move(inputs), std::move(return_sizes), metas);
  if (debug_dumps()) n->source = source();
  return n;
}

void LazyGraph::sync() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  // Every pending value a live tensor holds, each once, in the order they
  // were made: the same step gives the same graph, whatever the addresses.
  std::vector<Handle*> handles;
  const auto want = [&](Handle& h) {
    if (h.pending != nullptr) handles.push_back(&h);
  };
  for (LazyTensorImpl* t : live_) {
    want(t->group()->base);
    if (!t->is_base() && t->fresh()) want(t->own());
  }
  std::vector<jit::Value*> pending;
  for (Handle* h : handles) pending.push_back(h->pending);
  std::sort(pending.begin(), pending.end(), [](const jit::Value* a, const jit::Value* b) { return a->index() < b->index(); });
  pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
  std::unordered_map<jit::Value*, size_t> position;
  graph_->mutable_outputs().clear();
  for (jit::Value* v : pending) {
    position.emplace(v, graph_->outputs().size());
    graph_->add_output(v);
  }
  if (graph_->outputs().empty()) {
    if (!graph_->nodes().empty() || !graph_->inputs().empty()) start_new_graph();
    return;
  }
  remove_dead_nodes(*graph_);
  metrics::record("GraphSize", static_cast<double>(graph_->nodes().size()));

  std::shared_ptr<Executor> executor = current_executor();
  const std::string key = executor->name() + "\n" + graph_->str();
  std::shared_ptr<Executable> executable = find_compiled(key);
  if (executable) {
    metrics::count("CachedCompile");
  } else {
    // Graphs that differ only in numbers (sizes, shape constants) at one
    // sync point: shapes that change from step to step.
    const std::string site = source();
    SiteHistory& history = sites_[site + "\n" + without_numbers(key)];
    const std::vector<std::string> inputs_now = input_types(*graph_);
    ++history.compiled;
    if (history.compiled > kRecompileWarnAfter) {
      c10::warn(fmt::format(
          "ember.lazy: {} has compiled {} graphs that differ only in shapes; {}. Shapes that change from step to "
          "step compile a new graph each time: keep them fixed (pad batches, drop the last partial batch)",
          site.empty() ? "one sync point" : site, history.compiled, what_changed(history.last_inputs, inputs_now)));
    }
    history.last_inputs = inputs_now;
    if (debug_dumps()) std::cerr << "[ember.lazy] compiling graph:\n" << graph_->str(true);
    {
      metrics::ScopedTimer timer("CompileTime");
      try {
        executable = executor->compile(graph_);
      } catch (const std::exception& e) {
        abandon_graph(e.what());
        throw;
      }
    }
    metrics::count("UncachedCompile");
    if (debug_dumps()) {
      const std::string dump = executable->dump();
      if (!dump.empty()) std::cerr << "[ember.lazy] " << executor->name() << " compiled it to:\n" << dump << "\n";
    }
    add_compiled(key, executable);
  }

  std::vector<Tensor> results;
  try {
    // The graph holds what autocast, tracing and Python modes did when it
    // was recorded; running it must not apply them again.
    c10::ExcludeDispatchKeyGuard plain({c10::DispatchKey::AutocastCPU, c10::DispatchKey::AutocastCUDA,
                                        c10::DispatchKey::Tracer, c10::DispatchKey::Python});
    metrics::ScopedTimer timer("ExecuteTime");
    results = executable->run(input_values_);
    EMBER_CHECK(results.size() == graph_->outputs().size(), "the lazy executor '{}' returned {} outputs for {}",
                executor->name(), results.size(), graph_->outputs().size());
  } catch (const std::exception& e) {
    abandon_graph(e.what());
    throw;
  }
  metrics::count("ExecuteCount");
  for (Handle* h : handles) {
    if (h->pending == nullptr) continue;  // a group's base, listed by each of its members
    h->data = results[position.at(h->pending)];
    h->pending = nullptr;
  }
  start_new_graph();
}

void LazyGraph::abandon_graph(const std::string& why) {
  for (auto& [_, before] : before_writes_) {
    std::shared_ptr<AliasGroup> group = before.group.lock();
    // (A base that an out= resized in the graph is not restored: its size is the new one.)
    if (!group || group->base.pending == nullptr || group->base_sizes != before.base_sizes) continue;
    group->base = before.base;
    ++group->generation;
  }
  auto error = std::make_shared<const std::string>(why);
  for (LazyTensorImpl* t : live_) {
    AliasGroup& group = *t->group();
    if (group.base.pending != nullptr) {
      group.base = Handle{Tensor(), nullptr, 0, error};
      ++group.generation;
    }
    // A view is rederived from its base (its geometry is all it adds).
    if (!t->is_base() && t->own().pending != nullptr) {
      t->own() = Handle{};
      t->mark_stale();
    }
  }
  start_new_graph();
}

Tensor LazyGraph::data_of(LazyTensorImpl& t) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  check_has_value(t.handle());
  if (!t.fresh() || t.handle().pending != nullptr) {
    value_of(t);
    sync();
  }
  EMBER_INTERNAL_ASSERT(t.handle().data.defined());
  return t.handle().data;
}

Tensor make_lazy_from_data(Tensor data) {
  const ScalarType dtype = data.scalar_type();
  const std::vector<int64_t> sizes = data.sizes().vec();
  return Tensor(c10::make_intrusive<LazyTensorImpl>(dtype, sizes, Handle{std::move(data), nullptr, 0}));
}

}  // namespace ember::lazy
