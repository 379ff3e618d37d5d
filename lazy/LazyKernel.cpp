// The lazy device's one kernel: a boxed fallback on the Lazy dispatch key
// that serves every operator. Autograd, autocast and composite ops run above
// it as for any backend, so it sees primitive ops only. For each it
//   - runs the op's meta kernel on meta stand-ins of its tensors (same sizes,
//     strides and offset into their base), which checks the arguments as
//     the CPU kernel would and gives the results' shapes and dtypes;
//   - appends a node to the pending graph, with lazy tensors read as their
//     values, Scalar and float arguments as graph inputs, the rest constant;
//   - returns new lazy tensors standing for the node's outputs: views join
//     their input's alias group, written arguments get the node's value.
// Ops without a meta kernel, or whose meta kernel cannot say (results whose
// size depends on the data, non-tensor results), run eagerly on the CPU on
// the tensors' data: the pending graph is cut there and the fallback counted.

#include <lazy/LazyGraph.h>
#include <lazy/Metrics.h>

#include <aten/Functions.h>
#include <aten/core/dispatch/Library.h>
#include <c10/core/LocalDispatchKeySet.h>
#include <c10/util/Exception.h>

#include <unordered_map>

namespace ember::lazy {

namespace {

const Device kMeta(DeviceType::Meta);
const Device kCPU(DeviceType::CPU);

TensorOptions options(ScalarType dtype, Device device) { return TensorOptions().dtype(dtype).device(device); }

// A meta tensor with `t`'s geometry: views address a buffer the size of their
// base, so a view op's meta result has strides and offset into the base too.
Tensor meta_of(const Tensor& t) {
  if (!is_lazy(t)) return t;  // CPU scalars (Python numbers) serve meta kernels as they are
  LazyTensorImpl& impl = lazy_impl(t);
  if (impl.is_base()) return ember::empty(t.sizes(), options(t.scalar_type(), kMeta));
  Tensor memory = ember::empty({c10::checked_numel(impl.group()->base_sizes)}, options(t.scalar_type(), kMeta));
  return memory.as_strided(t.sizes(), t.strides(), t.storage_offset());
}

bool is_number_argument(const SchemaArgument& arg) {
  return !arg.type.is_list && (arg.type.kind == SchemaType::Kind::Scalar || arg.type.kind == SchemaType::Kind::Float);
}

// The same argument with lazy tensors (and the lazy device) replaced by `f`'s
// choice for each tensor (and `device`).
template <typename F>
IValue map_tensors(const IValue& a, F f, Device device) {
  if (a.isTensor()) return a.toTensor().defined() ? IValue(f(a.toTensor())) : a;
  if (a.isTensorList()) {
    std::vector<Tensor> items;
    for (const Tensor& t : a.toTensorList()) items.push_back(t.defined() ? f(t) : t);
    return IValue(std::move(items));
  }
  if (a.isOptionalTensorList()) {
    std::vector<std::optional<Tensor>> items;
    for (const auto& t : a.toOptionalTensorList())
      items.push_back(t && t->defined() ? std::optional<Tensor>(f(*t)) : std::nullopt);
    return IValue(std::move(items));
  }
  if (a.isDevice() && a.toDevice().type == DeviceType::Lazy) return IValue(device);
  return a;
}

// Whether `op` returns only tensors (or lists of them).
bool returns_tensors(const FunctionSchema& schema) {
  for (const auto& r : schema.returns)
    if (r.type.kind != SchemaType::Kind::Tensor) return false;
  return true;
}

// The argument that return `r` aliases (its alias set's argument), or -1.
int aliased_argument(const FunctionSchema& schema, const SchemaReturn& r) {
  if (!r.alias) return -1;
  for (size_t i = 0; i < schema.arguments.size(); ++i)
    if (schema.arguments[i].alias && schema.arguments[i].alias->set == r.alias->set) return static_cast<int>(i);
  return -1;
}

Tensor cpu_snapshot(const Tensor& t) {
  // A CPU tensor the graph reads later: the user may write it before then.
  return t.unsafeGetTensorImpl()->is_wrapped_number() ? t : t.clone();
}

// Runs the op on the CPU on its tensors' data; lazy results from the CPU's.
void run_eagerly(const OperatorHandle& op, Stack& stack) {
  LazyGraph& graph = LazyGraph::get();
  const FunctionSchema& schema = op.schema();
  const std::string name = schema.qualified_name();
  for (const auto& r : schema.returns) {
    EMBER_CHECK(!r.alias || r.alias->is_write,
                "{} is a view operator that the lazy device cannot record (it has no meta kernel), and a view cannot "
                "be computed eagerly: its result would not share memory with its input", name);
  }
  const size_t n = schema.arguments.size();
  const size_t first = stack.size() - n;
  // Written lazy tensors, by argument and list element (-1: not a list).
  std::vector<std::tuple<size_t, int, Tensor>> written;
  for (size_t i = 0; i < n; ++i) {
    const bool writes = schema.arguments[i].alias && schema.arguments[i].alias->is_write;
    int element = 0;
    const bool is_list = stack[first + i].isTensorList();
    stack[first + i] = map_tensors(
        stack[first + i],
        [&](const Tensor& t) {
          const int index = is_list ? element++ : -1;
          if (!is_lazy(t)) return t;
          Tensor data = graph.data_of(lazy_impl(t));
          if (!writes) return data;
          written.emplace_back(i, index, t);
          return data.clone();
        },
        kCPU);
  }
  // Written data, found before the call replaces the arguments by results.
  std::vector<Tensor> written_data;
  for (const auto& [i, index, original] : written) {
    const IValue& a = stack[first + i];
    written_data.push_back(index < 0 ? a.toTensor() : a.toTensorList()[index]);
  }
  op.callBoxed(stack);
  std::lock_guard<std::recursive_mutex> lock(graph.mutex());
  for (size_t k = 0; k < written.size(); ++k) {
    LazyTensorImpl& impl = lazy_impl(std::get<2>(written[k]));
    if (impl.is_base() && written_data[k].sizes() != impl.sizes()) impl.resize_base(written_data[k].sizes());
    graph.write_data(impl, written_data[k]);
  }
  const size_t returns = schema.returns.size();
  for (size_t r = 0; r < returns; ++r) {
    IValue& out = stack[stack.size() - returns + r];
    const int arg = aliased_argument(schema, schema.returns[r]);
    if (arg >= 0) {
      // A written argument: the lazy tensor itself.
      for (const auto& [i, index, original] : written)
        if (static_cast<int>(i) == arg && index < 0) out = IValue(original);
      continue;
    }
    out = map_tensors(out, [](const Tensor& t) { return make_lazy_from_data(t); }, kCPU);
  }
  metrics::count("Fallback::" + name);
}

// The meta kernel's results for the op, or nullopt where it cannot give them.
std::optional<Stack> run_meta(const OperatorHandle& op, const Stack& stack) {
  const FunctionSchema& schema = op.schema();
  if (!returns_tensors(schema)) return std::nullopt;
  if (!op.entry().hasKernelFor(c10::DispatchKey::Meta) &&
      !op.entry().hasKernelFor(c10::DispatchKey::CompositeExplicitAutograd))
    return std::nullopt;
  const size_t n = schema.arguments.size();
  Stack meta(stack.end() - static_cast<std::ptrdiff_t>(n), stack.end());
  for (IValue& a : meta) a = map_tensors(a, meta_of, kMeta);
  try {
    c10::ExcludeDispatchKeyGuard below_lazy(c10::DispatchKeySet({c10::DispatchKey::Autograd, c10::DispatchKey::Lazy}));
    op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::Meta), meta);
  } catch (const c10::Error&) {
    // The CPU kernel gives the error, if the arguments are wrong, or the result.
    return std::nullopt;
  }
  for (const IValue& r : meta) {
    if (r.isTensor() && r.toTensor().defined() && !r.toTensor().is_meta()) return std::nullopt;
    if (r.isTensorList())
      for (const Tensor& t : r.toTensorList())
        if (!t.is_meta()) return std::nullopt;
  }
  return meta;
}

void record(const OperatorHandle& op, Stack& stack, Stack meta_results) {
  LazyGraph& graph = LazyGraph::get();
  const FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments.size();
  const size_t first = stack.size() - n;
  const std::vector<IValue> args(stack.begin() + static_cast<std::ptrdiff_t>(first), stack.end());

  std::vector<jit::Input> inputs;
  inputs.reserve(n);
  const auto value_for = [&](const Tensor& t) -> jit::Value* {
    return is_lazy(t) ? graph.value_of(lazy_impl(t)) : graph.data_input(cpu_snapshot(t), /*lazy=*/false);
  };
  for (size_t i = 0; i < n; ++i) {
    const IValue& a = stack[first + i];
    const SchemaArgument& arg = schema.arguments[i];
    if (a.isTensor()) {
      inputs.push_back(a.toTensor().defined() ? jit::Input::of(value_for(a.toTensor()))
                                              : jit::Input::of_constant(IValue()));
    } else if (a.isTensorList()) {
      std::vector<jit::Value*> list;
      for (const Tensor& t : a.toTensorList()) list.push_back(value_for(t));
      inputs.push_back(jit::Input::of_list(std::move(list)));
    } else if (a.isOptionalTensorList()) {
      std::vector<jit::Value*> list;
      for (const auto& t : a.toOptionalTensorList()) list.push_back(t && t->defined() ? value_for(*t) : nullptr);
      inputs.push_back(jit::Input::of_list(std::move(list)));
    } else if (is_number_argument(arg) && a.isScalar()) {
      inputs.push_back(jit::Input::of(graph.number_input(a)));
    } else if (arg.type.kind == SchemaType::Kind::Generator) {
      inputs.push_back(jit::Input::of_constant(IValue()));  // runs draw from the default generator
    } else {
      inputs.push_back(jit::Input::of_constant(map_tensors(a, [](const Tensor& t) { return t; }, kCPU)));
    }
  }

  const size_t returns = schema.returns.size();
  std::vector<int> return_sizes;
  std::vector<std::optional<jit::TensorMeta>> metas;
  for (size_t r = 0; r < returns; ++r) {
    const IValue& out = meta_results[r];
    if (out.isTensorList()) {
      return_sizes.push_back(static_cast<int>(out.toTensorList().size()));
      for (const Tensor& t : out.toTensorList()) metas.emplace_back(lazy_meta(t.scalar_type(), t.sizes()));
    } else {
      return_sizes.push_back(-1);
      // An output the op was asked not to compute (native_layer_norm_backward's mask) stays undefined.
      const Tensor& t = out.toTensor();
      metas.emplace_back(t.defined() ? std::optional<jit::TensorMeta>(lazy_meta(t.scalar_type(), t.sizes()))
                                     : std::nullopt);
    }
  }
  // Arguments written but not returned (_adam_step_'s moments): outputs after the returns'.
  const std::vector<Tensor> written = jit::written_without_returning(schema, args);
  for (const Tensor& t : written) {
    EMBER_CHECK(is_lazy(t), "{}: writes a {} tensor where the others are lazy", schema.qualified_name(),
                t.device().str());
    metas.emplace_back(lazy_meta(t.scalar_type(), t.sizes()));
  }
  jit::Node* node = graph.append(op, std::move(inputs), std::move(return_sizes), metas);

  size_t next_output = 0;
  std::vector<IValue> results(returns);
  for (size_t r = 0; r < returns; ++r) {
    const SchemaReturn& ret = schema.returns[r];
    const int arg = aliased_argument(schema, ret);
    IValue& out = results[r];
    const IValue& meta_out = meta_results[r];
    const auto result = [&](const Tensor& meta, const Tensor& source) -> Tensor {
      jit::Value* v = node->outputs[next_output++];
      if (!meta.defined()) return Tensor();
      Handle pending{Tensor(), v, graph.epoch()};
      if (ret.alias && ret.alias->is_write) {
        LazyTensorImpl& impl = lazy_impl(source);
        if (impl.is_base() && meta.sizes() != impl.sizes()) impl.resize_base(meta.sizes());
        graph.write(impl, v);
        return source;
      }
      if (ret.alias && is_lazy(source)) {
        auto view = c10::make_intrusive<LazyTensorImpl>(meta.scalar_type(), meta.sizes(), meta.strides(),
                                                        meta.storage_offset(), lazy_impl(source).group(),
                                                        std::move(pending));
        // as_strided addresses the memory, not its input's value: the view
        // is derived from the base (the node recorded for it goes unused).
        if (schema.name == "aten::as_strided") view->mark_stale();
        return Tensor(std::move(view));
      }
      return Tensor(c10::make_intrusive<LazyTensorImpl>(meta.scalar_type(), meta.sizes(), std::move(pending)));
    };
    const IValue source = arg >= 0 ? args[static_cast<size_t>(arg)] : IValue();
    if (meta_out.isTensorList()) {
      std::vector<Tensor> items;
      for (const Tensor& t : meta_out.toTensorList()) items.push_back(result(t, source.isTensor() ? source.toTensor() : Tensor()));
      out = IValue(std::move(items));
    } else {
      out = IValue(result(meta_out.toTensor(), source.isTensor() ? source.toTensor() : Tensor()));
    }
  }
  for (const Tensor& t : written) graph.write(lazy_impl(t), node->outputs[next_output++]);
  stack.resize(first);
  for (IValue& r : results) stack.push_back(std::move(r));
}

// ---- ops that move data between the lazy device and the CPU ---------------

void to_device(const OperatorHandle& op, Stack& stack) {
  // to.device(Tensor self, Device device, ScalarType? dtype, bool non_blocking, bool copy)
  const size_t first = stack.size() - 5;
  const Tensor self = stack[first].toTensor();
  const Device device = stack[first + 1].toDevice();
  const ScalarType dtype = stack[first + 2].isNone() ? self.scalar_type() : stack[first + 2].toScalarType();
  const bool copy = stack[first + 4].toBool();
  Tensor result;
  if (is_lazy(self) && device.type == DeviceType::Lazy) {
    if (!copy && dtype == self.scalar_type()) {
      result = self;
    } else {
      // A conversion on the lazy device: a copy, so a new base (to.device's
      // schema allows a view, which copy=True rules out).
      static const auto to_device_op = Dispatcher::singleton().findSchema("aten::to.device");
      LazyGraph& graph = LazyGraph::get();
      std::lock_guard<std::recursive_mutex> lock(graph.mutex());
      jit::Node* node = graph.append(
          *to_device_op,
          {jit::Input::of(graph.value_of(lazy_impl(self))), jit::Input::of_constant(IValue(kCPU)),
           jit::Input::of_constant(IValue(dtype)), jit::Input::of_constant(IValue(false)),
           jit::Input::of_constant(IValue(true))},
          {-1}, {lazy_meta(dtype, self.sizes())});
      result = Tensor(c10::make_intrusive<LazyTensorImpl>(dtype, self.sizes(),
                                                          Handle{Tensor(), node->outputs[0], graph.epoch()}));
    }
  } else if (is_lazy(self)) {
    const Tensor data = LazyGraph::get().data_of(lazy_impl(self));
    metrics::count("TransferFromDevice");
    result = ember::to(data, device, dtype, false, /*copy=*/true);
  } else if (device.type == DeviceType::Lazy) {
    metrics::count("TransferToDevice");
    result = make_lazy_from_data(ember::to(self, kCPU, dtype, false, /*copy=*/true).contiguous());
  } else {
    result = ember::to(self, device, dtype, stack[first + 3].toBool(), copy);
  }
  stack.resize(first);
  stack.emplace_back(result);
}

void copy_(const OperatorHandle& op, Stack& stack) {
  // copy_(Tensor(a!) self, Tensor src, bool non_blocking)
  const size_t first = stack.size() - 3;
  const Tensor self = stack[first].toTensor();
  Tensor src = stack[first + 1].toTensor();
  if (!is_lazy(self)) {  // into the CPU (or another device) from a lazy tensor
    metrics::count("TransferFromDevice");
    self.copy_(LazyGraph::get().data_of(lazy_impl(src)));
    stack.resize(first);
    stack.emplace_back(self);
    return;
  }
  if (!is_lazy(src) && !(src.dim() == 0 && src.is_cpu())) {
    metrics::count("TransferToDevice");
    EMBER_CHECK(src.is_cpu(), "copy_: cannot copy from {} to the lazy device directly; copy to the CPU first",
                src.device().str());
    // Converted on the CPU, where the data is; a private copy (the user may write src later).
    Tensor data = ember::to(src, kCPU, self.scalar_type(), false, /*copy=*/true);
    if (data.sizes() == self.sizes()) {
      LazyGraph& graph = LazyGraph::get();
      std::lock_guard<std::recursive_mutex> lock(graph.mutex());
      graph.write_data(lazy_impl(self), std::move(data));
      stack.resize(first);
      stack.emplace_back(self);
      return;
    }
    src = make_lazy_from_data(std::move(data));
    stack[first + 1] = IValue(src);
  }
  if (is_lazy(src) && src.sizes() == self.sizes() && src.scalar_type() == self.scalar_type() &&
      src.is_contiguous()) {
    // All of self replaced by src's value (an upload, most often): no node
    // needed. (From a permuted view the copy is recorded: the memory it
    // writes is row-major, as kernels that need it contiguous expect.)
    LazyGraph& graph = LazyGraph::get();
    std::lock_guard<std::recursive_mutex> lock(graph.mutex());
    graph.write(lazy_impl(self), graph.value_of(lazy_impl(src)));
    stack.resize(first);
    stack.emplace_back(self);
    return;
  }
  std::optional<Stack> meta = run_meta(op, stack);
  if (!meta) return run_eagerly(op, stack);
  std::lock_guard<std::recursive_mutex> lock(LazyGraph::get().mutex());
  record(op, stack, std::move(*meta));
}

void item(const OperatorHandle& op, Stack& stack) {
  const Tensor self = stack.back().toTensor();
  metrics::count("TransferFromDevice");
  const Tensor data = LazyGraph::get().data_of(lazy_impl(self));
  stack.back() = IValue(ember::item(data));
}

using Handler = void (*)(const OperatorHandle&, Stack&);

const std::unordered_map<std::string, Handler>& handlers() {
  static const std::unordered_map<std::string, Handler> table = {
      {"aten::to.device", &to_device},
      {"aten::copy_", &copy_},
      {"aten::item", &item},
  };
  return table;
}

void lazy_kernel(const OperatorHandle& op, c10::DispatchKeySet /*ks*/, Stack& stack) {
  const std::string& name = op.schema().qualified_name();
  auto special = handlers().find(name);
  if (special != handlers().end()) return special->second(op, stack);
  std::optional<Stack> meta = run_meta(op, stack);
  if (!meta) return run_eagerly(op, stack);
  std::lock_guard<std::recursive_mutex> lock(LazyGraph::get().mutex());
  record(op, stack, std::move(*meta));
}

}  // namespace

EMBER_LIBRARY_IMPL(_, Lazy, m) { m.fallback(KernelFunction::makeFromBoxed(&lazy_kernel)); }

}  // namespace ember::lazy
