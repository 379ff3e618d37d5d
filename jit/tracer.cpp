#include <jit/tracer.h>

#include <aten/core/dispatch/Library.h>
#include <c10/util/Exception.h>

#include <fmt/format.h>

namespace ember::jit {

namespace {

thread_local Tracer* open_tracer = nullptr;

void record_and_pass_on(const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack);

}  // namespace

struct TracerAccess {
  static void record(Tracer& tracer, const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack) {
    const FunctionSchema& schema = op.schema();
    const size_t n = schema.arguments.size();
    std::vector<Input> inputs;
    inputs.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const IValue& arg = stack[stack.size() - n + i];
      if (arg.isTensor() && arg.toTensor().unsafeGetTensorImpl()->is_wrapped_number()) {
        // A Python number passed where the schema takes a tensor: recorded
        // as the number, as torch's traces show it (aten::mul.Tensor(%x, 2)).
        c10::ExcludeDispatchKeyGuard not_traced(c10::DispatchKey::Tracer);
        inputs.push_back(Input::of_constant(IValue(arg.toTensor().item())));
      } else if (arg.isTensor()) {
        inputs.push_back(Input::of(tracer.value_for(arg.toTensor())));
      } else if (arg.isTensorList()) {
        std::vector<Value*> list;
        for (const Tensor& t : arg.toTensorList()) list.push_back(tracer.value_for(t));
        inputs.push_back(Input::of_list(std::move(list)));
      } else if (arg.isOptionalTensorList()) {
        std::vector<Value*> list;
        for (const auto& t : arg.toOptionalTensorList())
          list.push_back(t && t->defined() ? tracer.value_for(*t) : nullptr);
        inputs.push_back(Input::of_list(std::move(list)));
      } else if (std::holds_alternative<Generator>(arg.payload())) {
        tracer.warnings_.push_back(fmt::format(
            "{} was called with an explicit Generator: the program draws from the default generator instead",
            schema.qualified_name()));
        inputs.push_back(Input::of_constant(IValue()));
      } else {
        inputs.push_back(Input::of_constant(arg));
      }
    }
    if (schema.name == "aten::item" || schema.name == "aten::_local_scalar_dense") {
      tracer.warnings_.push_back(
          "Converting a tensor to a Python number (aten::item) records the value seen while tracing as a constant: "
          "a program that computes or branches on it will not follow other inputs");
    }

    {
      c10::ExcludeDispatchKeyGuard recorded_once(c10::DispatchKey::Tracer);
      op.redispatchBoxed(ks.below(c10::DispatchKey::Tracer), stack);
    }

    const size_t returns = schema.returns.size();
    std::vector<int> return_sizes;
    std::vector<std::optional<TensorMeta>> metas;
    std::vector<std::string> type_names;
    std::vector<Tensor> produced;
    for (size_t r = 0; r < returns; ++r) {
      const IValue& out = stack[stack.size() - returns + r];
      if (out.isTensorList()) {
        return_sizes.push_back(static_cast<int>(out.toTensorList().size()));
        for (const Tensor& t : out.toTensorList()) {
          metas.emplace_back(TensorMeta::of(t));
          type_names.emplace_back("Tensor");
          produced.push_back(t);
        }
      } else {
        return_sizes.push_back(-1);
        if (out.isTensor()) {
          metas.emplace_back(TensorMeta::of(out.toTensor()));
          type_names.emplace_back("Tensor");
          produced.push_back(out.toTensor());
        } else {
          metas.emplace_back(std::nullopt);
          type_names.push_back(out.isNone() ? std::string("NoneType") : out.tagName());
          produced.emplace_back();
        }
      }
    }
    Node* node = tracer.graph_->append_call(op, std::move(inputs), std::move(return_sizes), metas, type_names);
    for (size_t i = 0; i < produced.size(); ++i)
      if (produced[i].defined()) tracer.bind(produced[i], node->outputs[i]);
  }
};

namespace {

void record_and_pass_on(const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack) {
  if (open_tracer == nullptr) {  // the key reached this thread without a tracer: pass on
    c10::ExcludeDispatchKeyGuard no_tracer(c10::DispatchKey::Tracer);
    op.redispatchBoxed(ks.below(c10::DispatchKey::Tracer), stack);
    return;
  }
  TracerAccess::record(*open_tracer, op, ks, stack);
}

}  // namespace

Tracer::Tracer() : graph_(std::make_shared<Graph>()) {
  EMBER_CHECK(open_tracer == nullptr, "a tracer is already open on this thread: traces do not nest");
  install_mode_fallback(c10::DispatchKey::Tracer, &record_and_pass_on);
  include_tracer_key_.emplace(c10::DispatchKey::Tracer);
  open_tracer = this;
}

Tracer::~Tracer() {
  if (open_tracer == this) open_tracer = nullptr;
}

bool Tracer::active() { return open_tracer != nullptr; }

void Tracer::bind(const Tensor& tensor, Value* value) {
  values_[tensor.unsafeGetTensorImpl()] = value;
  seen_.push_back(tensor);
}

Value* Tracer::add_input(const Tensor& tensor, std::string name) {
  EMBER_CHECK(graph_ != nullptr, "this tracer has finished");
  EMBER_CHECK(tensor.defined(), "a traced program's input {} is an undefined tensor", name);
  for (const Value* v : graph_->inputs())
    EMBER_CHECK_VALUE(v->name() != name, "a traced program has two inputs named {}", name);
  Value* v = graph_->add_input(std::move(name), TensorMeta::of(tensor));
  bind(tensor, v);
  return v;
}

void Tracer::add_output(const Tensor& tensor) {
  EMBER_CHECK(graph_ != nullptr, "this tracer has finished");
  EMBER_CHECK(tensor.defined(), "a traced program's output is an undefined tensor");
  graph_->add_output(value_for(tensor));
}

Value* Tracer::value_for(const Tensor& tensor) {
  auto it = values_.find(tensor.unsafeGetTensorImpl());
  if (it != values_.end()) return it->second;
  EMBER_CHECK(!tensor.requires_grad(),
              "ember.jit.trace: the traced code reads a tensor that requires grad but is neither an input nor a "
              "parameter of the traced module ({}): it cannot become a constant of the program; pass it as an "
              "input, make it a parameter, or detach it",
              TensorMeta::of(tensor).str());
  Node* constant = graph_->append_constant(tensor);
  bind(tensor, constant->outputs[0]);
  return constant->outputs[0];
}

std::shared_ptr<Graph> Tracer::finish() {
  EMBER_CHECK(graph_ != nullptr, "this tracer has finished");
  include_tracer_key_.reset();
  if (open_tracer == this) open_tracer = nullptr;
  values_.clear();
  seen_.clear();
  return std::move(graph_);
}

}  // namespace ember::jit
