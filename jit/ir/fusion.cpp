#include <jit/ir/fusion.h>

#include <jit/ir/alias.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace ember::jit {

namespace {

// How each fusible operator reads in the fused kernel's code. `a`/`b` are
// the operands of its tensor (or scalar) arguments, `c` its constants.
struct Emitter {
  std::vector<std::string> lines;
  std::string emit(const std::string& op, const std::string& a, const std::string& b = "") {
    lines.push_back(b.empty() ? fmt::format("{}({})", op, a) : fmt::format("{}({},{})", op, a, b));
    return "$" + std::to_string(lines.size() - 1);
  }
};

std::optional<double> number(const Input& in) {
  if (in.kind != Input::Kind::Constant) return std::nullopt;
  const IValue& c = in.constant;
  if (c.isDouble()) return c.toDouble();
  if (c.isInt()) return static_cast<double>(c.toInt());
  if (c.isBool()) return c.toBool() ? 1.0 : 0.0;
  return std::nullopt;
}

std::string literal(double v) { return fmt::format("{:.9g}", v); }

using Operand = std::function<std::string(const Input&)>;
using Rule = std::function<std::optional<std::string>(const Node&, const Operand&, Emitter&)>;

Rule unary(const char* op) {
  return [op](const Node& n, const Operand& x, Emitter& e) -> std::optional<std::string> {
    return e.emit(op, x(n.inputs[0]));
  };
}

Rule binary(const char* op) {
  return [op](const Node& n, const Operand& x, Emitter& e) -> std::optional<std::string> {
    const std::string a = x(n.inputs[0]), b = x(n.inputs[1]);  // inputs numbered in argument order
    return e.emit(op, a, b);
  };
}

// self op alpha * other, for add/sub with an alpha.
Rule with_alpha(const char* op) {
  return [op](const Node& n, const Operand& x, Emitter& e) -> std::optional<std::string> {
    const auto alpha = number(n.inputs[2]);
    if (!alpha) return std::nullopt;
    const std::string self = x(n.inputs[0]);
    std::string other = x(n.inputs[1]);
    if (*alpha != 1.0) other = e.emit("mul", other, literal(*alpha));
    return e.emit(op, self, other);
  };
}

const std::unordered_map<std::string, Rule>& rules() {
  static const auto* table = new std::unordered_map<std::string, Rule>{
      {"aten::neg", unary("neg")},
      {"aten::relu", unary("relu")},
      {"aten::exp", unary("exp")},
      {"aten::log", unary("log")},
      {"aten::tanh", unary("tanh")},
      {"aten::sigmoid", unary("sigmoid")},
      {"aten::silu", unary("silu")},
      {"aten::sqrt", unary("sqrt")},
      {"aten::rsqrt", unary("rsqrt")},
      {"aten::abs", unary("abs")},
      {"aten::reciprocal", unary("reciprocal")},
      {"aten::gelu",
       [](const Node& n, const Operand& x, Emitter& e) -> std::optional<std::string> {
         const IValue& approximate = n.inputs[1].constant;
         if (!approximate.isString()) return std::nullopt;
         if (approximate.toStringRef() == "none") return e.emit("gelu", x(n.inputs[0]));
         if (approximate.toStringRef() == "tanh") return e.emit("gelu_tanh", x(n.inputs[0]));
         return std::nullopt;
       }},
      {"aten::add.Tensor", with_alpha("add")},
      {"aten::add.Scalar", with_alpha("add")},
      {"aten::sub.Tensor", with_alpha("sub")},
      {"aten::sub.Scalar", with_alpha("sub")},
      {"aten::mul.Tensor", binary("mul")},
      {"aten::mul.Scalar", binary("mul")},
      {"aten::div.Tensor", binary("div")},
      {"aten::div.Scalar", binary("div")},
      {"aten::pow.Tensor_Tensor", binary("pow")},
      {"aten::pow.Tensor_Scalar", binary("pow")},
      {"aten::maximum", binary("maximum")},
      {"aten::minimum", binary("minimum")},
      {"aten::rsub.Scalar",
       [](const Node& n, const Operand& x, Emitter& e) -> std::optional<std::string> {
         const auto alpha = number(n.inputs[2]);
         if (!alpha) return std::nullopt;
         std::string self = x(n.inputs[0]);
         const std::string other = x(n.inputs[1]);
         if (*alpha != 1.0) self = e.emit("mul", self, literal(*alpha));
         return e.emit("sub", other, self);
       }},
  };
  return *table;
}

bool float_on(const Value* v, DeviceType device) {
  return v->is_tensor() && v->meta()->dtype == ScalarType::Float && v->meta()->device.type == device;
}

// A node the pass may put in a chain: a rule, float32 CPU tensors in and
// out, constants where numbers are expected. (Translating it for real is the
// final check: a rule may still refuse, e.g. a non-numeric alpha.)
bool fusible(const Node& n, DeviceType device) {
  if (!n.op() || rules().count(n.kind()) == 0 || n.outputs.size() != 1 || !float_on(n.outputs[0], device))
    return false;
  for (const Input& in : n.inputs) {
    if (in.kind == Input::Kind::List) return false;
    if (in.kind == Input::Kind::Value && !float_on(in.value, device)) return false;
  }
  return true;
}

}  // namespace

int fuse_elementwise(Graph& graph, DeviceType device) {
  const auto op = Dispatcher::singleton().findSchema("aten::_fused_elementwise");
  if (!op) return 0;  // a selective build without the fused kernel
  std::unordered_map<const Value*, std::unordered_set<const Node*>> consumers;
  std::unordered_set<const Value*> graph_outputs(graph.outputs().begin(), graph.outputs().end());
  std::unordered_map<const Node*, size_t> position;
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    const Node* n = graph.nodes()[i].get();
    position[n] = i;
    for (const Value* v : n->input_values()) consumers[v].insert(n);
  }

  WrittenMemory memory(graph);
  std::unordered_set<const Node*> taken, absorbed;
  int fused = 0;
  for (auto it = graph.nodes().rbegin(); it != graph.nodes().rend(); ++it) {
    Node* root = it->get();
    if (taken.count(root) || !fusible(*root, device)) continue;
    // Grow the chain backwards through producers read only inside it.
    std::vector<Node*> group{root};
    std::unordered_set<const Node*> members{root};
    for (size_t k = 0; k < group.size(); ++k) {
      for (Value* v : group[k]->input_values()) {
        Node* producer = v->node();
        if (producer == nullptr || members.count(producer) || taken.count(producer) || !fusible(*producer, device) ||
            graph_outputs.count(v))
          continue;
        const auto& readers = consumers[v];
        if (!std::all_of(readers.begin(), readers.end(), [&](const Node* r) { return members.count(r) != 0; }))
          continue;
        group.push_back(producer);
        members.insert(producer);
      }
    }
    if (group.size() < 2) continue;
    // The fused call reads its inputs where the root was: none may be
    // written in between (nor may any member's output be written at all).
    bool touches_written = false;
    for (const Node* n : group) {
      touches_written = touches_written || memory.any_written(*n);
      for (const Value* v : n->input_values()) touches_written = touches_written || memory.written(v);
    }
    if (touches_written) continue;
    std::sort(group.begin(), group.end(), [&](const Node* a, const Node* b) { return position[a] < position[b]; });

    // The code, with the chain's outside values as its inputs.
    Emitter emitter;
    std::vector<Value*> inputs;
    std::unordered_map<const Value*, std::string> operands;
    bool translated = true;
    const Operand operand = [&](const Input& in) -> std::string {
      if (in.kind == Input::Kind::Constant) return literal(number(in).value_or(0.0));
      auto found = operands.find(in.value);
      if (found != operands.end()) return found->second;
      inputs.push_back(in.value);
      return operands[in.value] = "%" + std::to_string(inputs.size() - 1);
    };
    for (Node* n : group) {
      for (const Input& in : n->inputs)
        if (in.kind == Input::Kind::Constant && !in.constant.isNone() && !in.constant.isString() && !number(in))
          translated = false;
      const auto result = translated ? rules().at(n->kind())(*n, operand, emitter) : std::nullopt;
      if (!result) {
        translated = false;
        break;
      }
      operands[n->outputs[0]] = *result;
    }
    if (!translated) continue;
    // The last line computes the root's value.
    if (operands[root->outputs[0]] != "$" + std::to_string(emitter.lines.size() - 1)) continue;
    std::string code;
    for (const auto& line : emitter.lines) code += (code.empty() ? "" : ";") + line;

    for (Node* n : group) taken.insert(n);
    for (Node* n : group)
      if (n != root) absorbed.insert(n);
    graph.make_call(root, *op, {Input::of_list(inputs), Input::of_constant(IValue(code))});
    ++fused;
  }
  graph.remove_nodes_if([&](const Node* n) { return absorbed.count(n) != 0; });
  return fused;
}

}  // namespace ember::jit
