// jit::save / jit::load: a program as a tree of plain values in Ember's file
// format:
//   {"ember_program": version, "code": the graph's text (for people),
//    "inputs": [(name, meta)...] (the caller's inputs),
//    "parameters": {name: tensor} (the graph inputs after them),
//    "constants": [tensor...] (the prim::Constant nodes', in order),
//    "nodes": [(kind, [input...], [return size...], [meta...])...],
//    "outputs": [value number...]}
// Values are numbered: graph inputs first, then node outputs in order. An
// input is ("v", n), ("l", [n or None...]) or ("c", constant); a meta is
// (dtype, [sizes], device) for a tensor, else the value's type name.

#include <jit/module.h>

#include <aten/serialize/Serialization.h>
#include <c10/util/Exception.h>

#include <unordered_map>

namespace ember::jit {

namespace {

using FileValue = serialize::Value;
using Kind = serialize::Value::Kind;

FileValue encode_meta(const ::ember::jit::Value* v) {
  if (!v->is_tensor()) return FileValue::of(v->type_name());
  const TensorMeta& m = *v->meta();
  std::vector<FileValue> sizes;
  for (int64_t s : m.sizes) sizes.push_back(FileValue::of(s));
  return FileValue::tuple({FileValue::dtype(m.dtype), FileValue::list(std::move(sizes)), FileValue::device(m.device)});
}

// An IValue constant as a file value (lists by element; complex as a pair).
struct ConstantEncoder {
  FileValue operator()(std::monostate) const { return FileValue::none(); }
  FileValue operator()(double d) const { return FileValue::of(d); }
  FileValue operator()(int64_t i) const { return FileValue::of(i); }
  FileValue operator()(bool b) const { return FileValue::of(b); }
  FileValue operator()(c10::complex<double> c) const { return FileValue::tuple({FileValue::of(c.real()), FileValue::of(c.imag())}); }
  template <typename T>
  FileValue operator()(const std::vector<T>& l) const {
    std::vector<FileValue> items;
    for (const auto& x : l) items.push_back((*this)(static_cast<T>(x)));
    return FileValue::list(std::move(items));
  }
  FileValue operator()(const std::string& s) const { return FileValue::of(s); }
  FileValue operator()(ScalarType t) const { return FileValue::dtype(t); }
  FileValue operator()(Device d) const { return FileValue::device(d); }
  FileValue operator()(c10::MemoryFormat f) const { return FileValue::of(std::string(c10::toString(f))); }
  FileValue operator()(const Tensor&) const { EMBER_CHECK(false, "a tensor constant belongs in a prim::Constant node"); }
  FileValue operator()(const std::vector<Tensor>&) const { return (*this)(Tensor()); }
  FileValue operator()(const std::vector<std::optional<Tensor>>&) const { return (*this)(Tensor()); }
  FileValue operator()(const Generator&) const { EMBER_CHECK(false, "a program cannot hold a Generator"); }
};

// The parameter as the file holds it: its memory without autograd state (a
// program loads for inference, where no autograd library may be present),
// marked "Parameter" if it was trainable.
FileValue encode_parameter(const Tensor& t) {
  const c10::TensorImpl& impl = *t.unsafeGetTensorImpl();
  Tensor plain(c10::make_intrusive<c10::TensorImpl>(impl.storage(), impl.dtype(), impl.sizes(), impl.strides(),
                                                    impl.storage_offset(), impl.version_counter()));
  return FileValue::of(plain, t.requires_grad() ? "Parameter" : "Tensor");
}

FileValue encode_constant(const IValue& c) {
  return std::visit(ConstantEncoder{}, c.payload());
}

}  // namespace

void save(const Module& module, const std::string& path) {
  const Graph& graph = module.graph();
  std::unordered_map<const ::ember::jit::Value*, int64_t> number;
  const auto numbered = [&](const ::ember::jit::Value* v) {
    auto it = number.find(v);
    EMBER_CHECK(it != number.end(), "jit::save: the graph reads a value before it is made");
    return FileValue::of(it->second);
  };
  std::vector<FileValue> inputs, constants, nodes, outputs;
  for (const auto* v : graph.inputs()) {
    number.emplace(v, static_cast<int64_t>(number.size()));
    if (inputs.size() < module.num_inputs()) inputs.push_back(FileValue::tuple({FileValue::of(v->name()), encode_meta(v)}));
  }
  for (const auto& n : graph.nodes()) {
    std::vector<FileValue> args, sizes, metas;
    for (const Input& in : n->inputs) {
      if (in.kind == Input::Kind::Value) {
        args.push_back(FileValue::tuple({FileValue::of(std::string("v")), numbered(in.value)}));
      } else if (in.kind == Input::Kind::List) {
        std::vector<FileValue> items;
        for (const auto* v : in.list) items.push_back(v ? numbered(v) : FileValue::none());
        args.push_back(FileValue::tuple({FileValue::of(std::string("l")), FileValue::list(std::move(items))}));
      } else {
        args.push_back(FileValue::tuple({FileValue::of(std::string("c")), encode_constant(in.constant)}));
      }
    }
    if (!n->op()) constants.push_back(FileValue::of(n->constant));
    for (int s : n->return_sizes) sizes.push_back(FileValue::of(int64_t{s}));
    for (const auto* v : n->outputs) {
      number.emplace(v, static_cast<int64_t>(number.size()));
      metas.push_back(encode_meta(v));
    }
    nodes.push_back(FileValue::tuple({FileValue::of(n->kind()), FileValue::list(std::move(args)), FileValue::list(std::move(sizes)),
                                  FileValue::list(std::move(metas))}));
  }
  for (const auto* v : graph.outputs()) outputs.push_back(numbered(v));
  std::vector<std::pair<FileValue, FileValue>> parameters;
  for (const auto& [name, tensor] : module.named_parameters())
    parameters.emplace_back(FileValue::of(name), encode_parameter(tensor));
  const auto key = [](const char* k) { return FileValue::of(std::string(k)); };
  serialize::save(FileValue::dict({{key("ember_program"), FileValue::of(kProgramVersion)},
                               {key("code"), FileValue::of(graph.str())},
                               {key("inputs"), FileValue::list(std::move(inputs))},
                               {key("parameters"), FileValue::dict(std::move(parameters), true)},
                               {key("constants"), FileValue::list(std::move(constants))},
                               {key("nodes"), FileValue::list(std::move(nodes))},
                               {key("outputs"), FileValue::list(std::move(outputs))}}),
                  path);
}

namespace {

// Reads one program file; every malformed part is an error naming the file.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  Module read() {
    const FileValue root = serialize::load(path_);
    check(root.kind == Kind::Dict, "is not an Ember program (its root is not a dict)");
    const FileValue& version = field(root, "ember_program");
    check(version.kind == Kind::Int, "is not an Ember program (no \"ember_program\" version)");
    check(version.int_value <= kProgramVersion && version.int_value >= 1,
          fmt::format("holds a program of layout version {}, newer than this build of Ember reads ({}): update "
                      "Ember to load it",
                      version.int_value, kProgramVersion));
    auto graph = std::make_shared<Graph>();
    for (const FileValue& in : list(field(root, "inputs"), "inputs")) {
      check(in.kind == Kind::Tuple && in.items.size() == 2 && in.items[0].kind == Kind::String, "has a bad input");
      auto tensor = meta(in.items[1]).first;
      check(tensor.has_value(), "has an input that is not a tensor");
      values_.push_back(graph->add_input(in.items[0].string_value, std::move(tensor)));
    }
    std::vector<std::pair<std::string, Tensor>> parameters;
    std::vector<std::string> trainable;
    const FileValue& params = field(root, "parameters");
    check(params.kind == Kind::Dict || params.kind == Kind::OrderedDict, "has bad parameters");
    for (const auto& [name, tensor] : params.entries) {
      check(name.kind == Kind::String && tensor.kind == Kind::Tensor, "has a bad parameter");
      parameters.emplace_back(name.string_value, tensor.tensor);
      if (tensor.string_value == "Parameter") trainable.push_back(name.string_value);
      values_.push_back(graph->add_input(name.string_value, TensorMeta::of(tensor.tensor)));
    }
    const auto& constants = list(field(root, "constants"), "constants");
    size_t next_constant = 0;
    for (const FileValue& node : list(field(root, "nodes"), "nodes")) {
      check(node.kind == Kind::Tuple && node.items.size() == 4 && node.items[0].kind == Kind::String,
            "has a malformed node");
      const std::string& kind = node.items[0].string_value;
      if (kind == "prim::Constant") {
        check(next_constant < constants.size() && constants[next_constant].kind == Kind::Tensor,
              "has fewer constants than prim::Constant nodes");
        values_.push_back(graph->append_constant(constants[next_constant++].tensor)->outputs[0]);
        continue;
      }
      read_call(*graph, kind, node);
    }
    for (const FileValue& out : list(field(root, "outputs"), "outputs")) graph->add_output(value(out));
    Module module(std::move(graph), std::move(parameters));
    module.set_trainable(std::move(trainable));
    return module;
  }

 private:
  void check(bool ok, const std::string& problem) const {
    EMBER_CHECK_VALUE(ok, "ember::jit::load: {} {}", path_, problem);
  }

  const FileValue& field(const FileValue& dict, const char* key) const {
    for (const auto& [k, v] : dict.entries)
      if (k.kind == Kind::String && k.string_value == key) return v;
    check(false, fmt::format("is not an Ember program (no \"{}\")", key));
    return dict;  // unreachable
  }

  const std::vector<FileValue>& list(const FileValue& v, const char* what) const {
    check(v.kind == Kind::List, fmt::format("has a malformed {} list", what));
    return v.items;
  }

  ::ember::jit::Value* value(const FileValue& n) const {
    check(n.kind == Kind::Int && n.int_value >= 0 && static_cast<size_t>(n.int_value) < values_.size(),
          "reads a value before it is made");
    return values_[n.int_value];
  }

  // A meta, or the type name of a value that is not a tensor.
  std::pair<std::optional<TensorMeta>, std::string> meta(const FileValue& m) const {
    if (m.kind == Kind::String) return {std::nullopt, m.string_value};
    check(m.kind == Kind::Tuple && m.items.size() == 3 && m.items[0].kind == Kind::Dtype &&
              m.items[1].kind == Kind::List && m.items[2].kind == Kind::Device,
          "has a malformed value type");
    TensorMeta t;
    t.dtype = c10::scalar_type_named(m.items[0].string_value).value();
    for (const FileValue& s : m.items[1].items) {
      check(s.kind == Kind::Int, "has a malformed size");
      t.sizes.push_back(s.int_value);
    }
    t.device = Device(m.items[2].string_value);
    return {t, "Tensor"};
  }

  IValue constant(const FileValue& c, const SchemaType& type) const {
    using T = SchemaType::Kind;
    switch (c.kind) {
      case Kind::None: return IValue();
      case Kind::Bool: return IValue(c.bool_value);
      case Kind::Int: return IValue(c.int_value);
      case Kind::Float: return IValue(c.float_value);
      case Kind::Dtype: return IValue(c10::scalar_type_named(c.string_value).value());
      case Kind::Device: return IValue(Device(c.string_value));
      case Kind::String:
        if (type.kind == T::MemoryFormat) {
          const auto format = c10::memory_format_named(c.string_value);
          check(format.has_value(), "has an unknown memory format");
          return IValue(*format);
        }
        return IValue(c.string_value);
      case Kind::Tuple:
        check(c.items.size() == 2 && c.items[0].kind == Kind::Float && c.items[1].kind == Kind::Float,
              "has a malformed complex constant");
        return IValue(c10::complex<double>(c.items[0].float_value, c.items[1].float_value));
      case Kind::List: {
        if (type.kind == T::Float) {
          std::vector<double> l;
          for (const FileValue& x : c.items) l.push_back(x.kind == Kind::Int ? double(x.int_value) : x.float_value);
          return IValue(std::move(l));
        }
        if (type.kind == T::Bool) {
          std::vector<bool> l;
          for (const FileValue& x : c.items) l.push_back(x.bool_value);
          return IValue(std::move(l));
        }
        std::vector<int64_t> l;
        for (const FileValue& x : c.items) {
          check(x.kind == Kind::Int, "has a malformed int list");
          l.push_back(x.int_value);
        }
        return IValue(std::move(l));
      }
      default: check(false, "has a constant of an unsupported kind"); return IValue();
    }
  }

  void read_call(Graph& graph, const std::string& kind, const FileValue& node) {
    const size_t dot = kind.find('.', kind.find("::") == std::string::npos ? 0 : kind.find("::"));
    const std::string name = kind.substr(0, dot), overload = dot == std::string::npos ? "" : kind.substr(dot + 1);
    const auto op = Dispatcher::singleton().findSchema(name, overload);
    check(op.has_value(), fmt::format("calls the operator {}, which this build of Ember does not have (a selective "
                                      "build holds only the operators on its list)",
                                      kind));
    const FunctionSchema& schema = op->schema();
    const auto& args = list(node.items[1], "arguments");
    check(args.size() == schema.arguments.size(),
          fmt::format("calls {} with {} arguments; its schema here has {}", kind, args.size(), schema.arguments.size()));
    std::vector<Input> inputs;
    for (size_t i = 0; i < args.size(); ++i) {
      const FileValue& a = args[i];
      check(a.kind == Kind::Tuple && a.items.size() == 2 && a.items[0].kind == Kind::String,
            "has a malformed argument");
      const std::string& tag = a.items[0].string_value;
      if (tag == "v") {
        inputs.push_back(Input::of(value(a.items[1])));
      } else if (tag == "l") {
        std::vector<::ember::jit::Value*> items;
        for (const FileValue& x : list(a.items[1], "argument")) items.push_back(x.kind == Kind::None ? nullptr : value(x));
        inputs.push_back(Input::of_list(std::move(items)));
      } else {
        check(tag == "c", "has a malformed argument");
        inputs.push_back(Input::of_constant(constant(a.items[1], schema.arguments[i].type)));
      }
    }
    std::vector<int> sizes;
    size_t flattened = 0;
    for (const FileValue& s : list(node.items[2], "return sizes")) {
      check(s.kind == Kind::Int && s.int_value >= -1, "has a malformed return size");
      sizes.push_back(static_cast<int>(s.int_value));
      flattened += s.int_value < 0 ? 1 : s.int_value;
    }
    check(sizes.size() == schema.returns.size(), fmt::format("has a node of {} with the wrong returns", kind));
    std::vector<std::optional<TensorMeta>> metas;
    std::vector<std::string> type_names;
    for (const FileValue& m : list(node.items[3], "outputs")) {
      auto [t, type_name] = meta(m);
      metas.push_back(std::move(t));
      type_names.push_back(std::move(type_name));
    }
    check(metas.size() == flattened, fmt::format("has a node of {} with the wrong number of outputs", kind));
    Node* n = graph.append_call(*op, std::move(inputs), std::move(sizes), metas, type_names);
    for (auto* v : n->outputs) values_.push_back(v);
  }

  std::string path_;
  std::vector<::ember::jit::Value*> values_;
};

}  // namespace

Module load(const std::string& path) { return Reader(path).read(); }

}  // namespace ember::jit
