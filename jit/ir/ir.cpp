#include <jit/ir/ir.h>

#include <c10/util/Exception.h>

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

namespace ember::jit {

TensorMeta TensorMeta::of(const Tensor& t) { return TensorMeta{t.scalar_type(), t.sizes().vec(), t.device()}; }

std::string TensorMeta::str() const {
  std::string s = fmt::format("{}({})", c10::toString(dtype), fmt::join(sizes, ", "));
  if (device.type != DeviceType::CPU) s.insert(s.size() - 1, (sizes.empty() ? "device=" : ", device=") + device.str());
  return s;
}

std::vector<Value*> Input::values() const {
  if (kind == Kind::Value) return {value};
  std::vector<Value*> out;
  for (Value* v : list)
    if (v != nullptr) out.push_back(v);
  return out;
}

bool Node::mutates() const { return op_ && op_->schema().is_mutable(); }

bool writes_without_returning(const FunctionSchema& schema, size_t i) {
  const auto& alias = schema.arguments[i].alias;
  if (!alias || !alias->is_write) return false;
  for (const auto& r : schema.returns)
    if (r.alias && r.alias->set == alias->set) return false;
  return true;
}

std::vector<Tensor> written_without_returning(const FunctionSchema& schema, const std::vector<IValue>& args) {
  std::vector<Tensor> written;
  for (size_t i = 0; i < args.size() && i < schema.arguments.size(); ++i) {
    if (!writes_without_returning(schema, i)) continue;
    if (args[i].isTensorList()) {
      for (const Tensor& t : args[i].toTensorList()) written.push_back(t);
    } else {
      written.push_back(args[i].toTensor());
    }
  }
  return written;
}

bool Node::aliases_input() const {
  if (!op_) return false;
  for (const auto& r : op_->schema().returns)
    if (r.alias) return true;
  return false;
}

bool Node::nondeterministic() const {
  if (!op_) return false;
  for (const auto& a : op_->schema().arguments)
    if (a.type.kind == SchemaType::Kind::Generator) return true;
  return false;
}

std::vector<Value*> Node::input_values() const {
  std::vector<Value*> out;
  for (const Input& in : inputs)
    for (Value* v : in.values()) out.push_back(v);
  return out;
}

Value* Graph::new_value(Node* producer, std::optional<TensorMeta> meta, std::string type_name) {
  auto v = std::unique_ptr<Value>(new Value());
  v->index_ = values_.size();
  v->node_ = producer;
  v->meta_ = std::move(meta);
  v->type_name_ = std::move(type_name);
  values_.push_back(std::move(v));
  return values_.back().get();
}

Value* Graph::add_input(std::string name, std::optional<TensorMeta> meta) {
  Value* v = new_value(nullptr, std::move(meta), "");
  v->name_ = std::move(name);
  inputs_.push_back(v);
  return v;
}

Value* Graph::add_input(std::string name, std::string type_name) {
  Value* v = new_value(nullptr, std::nullopt, std::move(type_name));
  v->name_ = std::move(name);
  inputs_.push_back(v);
  return v;
}

Node* Graph::append_call(OperatorHandle op, std::vector<Input> inputs, std::vector<int> return_sizes,
                         const std::vector<std::optional<TensorMeta>>& output_metas,
                         const std::vector<std::string>& output_type_names) {
  auto node = std::unique_ptr<Node>(new Node());
  node->kind_ = op.schema().qualified_name();
  node->op_ = op;
  node->inputs = std::move(inputs);
  node->return_sizes = std::move(return_sizes);
  for (size_t i = 0; i < output_metas.size(); ++i)
    node->outputs.push_back(
        new_value(node.get(), output_metas[i], i < output_type_names.size() ? output_type_names[i] : "Tensor"));
  nodes_.push_back(std::move(node));
  return nodes_.back().get();
}

Node* Graph::append_constant(Tensor value) {
  auto node = std::unique_ptr<Node>(new Node());
  node->kind_ = "prim::Constant";
  node->outputs.push_back(new_value(node.get(), TensorMeta::of(value), "Tensor"));
  node->return_sizes = {-1};
  node->constant = std::move(value);
  nodes_.push_back(std::move(node));
  return nodes_.back().get();
}

void Graph::make_constant(Node* node, Tensor value) {
  EMBER_CHECK(node->outputs.size() == 1, "make_constant: {} has {} outputs", node->kind_, node->outputs.size());
  node->kind_ = "prim::Constant";
  node->op_.reset();
  node->inputs.clear();
  node->return_sizes = {-1};
  node->constant = std::move(value);
}

void Graph::make_call(Node* node, OperatorHandle op, std::vector<Input> inputs) {
  EMBER_CHECK(node->outputs.size() == 1, "make_call: {} has {} outputs", node->kind_, node->outputs.size());
  node->kind_ = op.schema().qualified_name();
  node->op_ = op;
  node->inputs = std::move(inputs);
  node->return_sizes = {-1};
  node->constant = Tensor();
}

void Graph::replace_all_uses(Value* from, Value* to) {
  for (auto& n : nodes_) {
    for (Input& in : n->inputs) {
      if (in.value == from) in.value = to;
      for (Value*& v : in.list)
        if (v == from) v = to;
    }
  }
  for (Value*& v : outputs_)
    if (v == from) v = to;
}

std::string constant_str(const IValue& v) {
  struct Printer {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(const Tensor&) const { return "<Tensor>"; }
    std::string operator()(double d) const {
      if (std::isnan(d)) return "nan";
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      std::string s = fmt::format("{}", d);
      return s.find_first_of(".e") == std::string::npos ? s + ".0" : s;
    }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(c10::complex<double> c) const {
      return fmt::format("complex({}, {})", (*this)(c.real()), (*this)(c.imag()));
    }
    std::string operator()(const std::vector<int64_t>& l) const { return fmt::format("[{}]", fmt::join(l, ", ")); }
    std::string operator()(const std::vector<double>& l) const {
      std::vector<std::string> parts;
      for (double d : l) parts.push_back((*this)(d));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
    std::string operator()(const std::vector<bool>& l) const {
      std::vector<std::string> parts;
      for (bool b : l) parts.push_back((*this)(b));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
    std::string operator()(const std::vector<Tensor>& l) const { return fmt::format("<{} tensors>", l.size()); }
    std::string operator()(const std::vector<std::optional<Tensor>>& l) const {
      return fmt::format("<{} tensors>", l.size());
    }
    std::string operator()(const std::string& s) const { return fmt::format("\"{}\"", s); }
    std::string operator()(ScalarType t) const { return std::string(c10::python_name(t)); }
    std::string operator()(Device d) const { return d.str(); }
    std::string operator()(const Generator&) const { return "<Generator>"; }
    std::string operator()(c10::MemoryFormat f) const { return std::string(c10::toString(f)); }
  };
  return std::visit(Printer{}, v.payload());
}

std::string Graph::str(bool sources) const {
  std::unordered_map<const Value*, std::string> names;
  int next = 0;
  const auto name = [&](const Value* v) -> std::string {
    if (v == nullptr) return "None";
    auto it = names.find(v);
    if (it != names.end()) return it->second;
    std::string n = "%" + (v->name().empty() ? std::to_string(next++) : v->name());
    names.emplace(v, n);
    return n;
  };
  const auto typed = [&](const Value* v) {
    return name(v) + " : " + (v->is_tensor() ? v->meta()->str() : v->type_name());
  };

  std::vector<std::string> header;
  for (const Value* v : inputs_) header.push_back(typed(v));
  std::string out = fmt::format("graph({}):\n", fmt::join(header, ", "));
  for (const auto& n : nodes_) {
    std::vector<std::string> results, args;
    for (const Value* v : n->outputs) results.push_back(typed(v));
    const FunctionSchema* schema = n->schema();
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const Input& in = n->inputs[i];
      std::string text;
      if (in.kind == Input::Kind::Value) {
        text = name(in.value);
      } else if (in.kind == Input::Kind::List) {
        std::vector<std::string> items;
        for (const Value* v : in.list) items.push_back(name(v));
        text = fmt::format("[{}]", fmt::join(items, ", "));
      } else {
        text = constant_str(in.constant);
      }
      if (schema && schema->arguments[i].kwarg_only) text = schema->arguments[i].name + "=" + text;
      args.push_back(std::move(text));
    }
    out += fmt::format("  {} = {}({})", fmt::join(results, ", "), n->kind(), fmt::join(args, ", "));
    out += sources && !n->source.empty() ? "  # " + n->source + "\n" : "\n";
  }
  std::vector<std::string> results;
  for (const Value* v : outputs_) results.push_back(name(v));
  out += fmt::format("  return ({})\n", fmt::join(results, ", "));
  return out;
}

}  // namespace ember::jit
