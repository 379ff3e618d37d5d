// _fused_elementwise(inputs, code): a chain of float32 pointwise ops in one
// TensorIterator loop, as the jit's fusion pass makes it (jit/ir/fusion.cpp).
// The chain runs over blocks of a few hundred elements that stay in L1, so
// the intermediates never travel to memory: the time of a long chain (a
// hand-written GELU is eight ops) approaches that of one op.
//
// `code` is the chain, one instruction per ';': `op(operand, ...)` where an
// operand is `%k` (input k), `$j` (instruction j's result) or a number; the
// last instruction's result is the output. For example, x * sigmoid(x) + 1:
//   sigmoid(%0);mul(%0,$0);add($1,1)

#include <aten/Functions.h>
#include <aten/native/TensorIterator.h>
#include <aten/native/cpu/VecMath.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

namespace ember::native {

namespace {

using namespace cpu;

constexpr int64_t kBlock = 256;

enum class Op { Neg, Relu, Exp, Log, Tanh, Sigmoid, Silu, Gelu, GeluTanh, Sqrt, Rsqrt, Abs, Reciprocal,
                Add, Sub, Mul, Div, Pow, Maximum, Minimum };

struct OpInfo {
  std::string_view name;
  Op op;
  int arity;
};

constexpr OpInfo kOps[] = {
    {"neg", Op::Neg, 1},         {"relu", Op::Relu, 1},       {"exp", Op::Exp, 1},
    {"log", Op::Log, 1},         {"tanh", Op::Tanh, 1},       {"sigmoid", Op::Sigmoid, 1},
    {"silu", Op::Silu, 1},       {"gelu", Op::Gelu, 1},       {"gelu_tanh", Op::GeluTanh, 1},
    {"sqrt", Op::Sqrt, 1},       {"rsqrt", Op::Rsqrt, 1},     {"abs", Op::Abs, 1},
    {"reciprocal", Op::Reciprocal, 1},
    {"add", Op::Add, 2},         {"sub", Op::Sub, 2},         {"mul", Op::Mul, 2},
    {"div", Op::Div, 2},         {"pow", Op::Pow, 2},         {"maximum", Op::Maximum, 2},
    {"minimum", Op::Minimum, 2},
};

struct Operand {
  enum class Kind { Input, Result, Number };
  Kind kind = Kind::Number;
  int index = 0;
  float number = 0;
};

struct Instruction {
  Op op;
  Operand a, b;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

Operand parse_operand(std::string_view text, int inputs, int results, std::string_view code) {
  text = trim(text);
  EMBER_CHECK_VALUE(!text.empty(), "_fused_elementwise: an empty operand in \"{}\"", code);
  Operand o;
  if (text[0] == '%' || text[0] == '$') {
    const std::string digits(text.substr(1));
    char* end = nullptr;
    const long i = std::strtol(digits.c_str(), &end, 10);
    EMBER_CHECK_VALUE(!digits.empty() && *end == '\0', "_fused_elementwise: bad operand {} in \"{}\"", text, code);
    o.kind = text[0] == '%' ? Operand::Kind::Input : Operand::Kind::Result;
    const int limit = text[0] == '%' ? inputs : results;
    EMBER_CHECK_INDEX(i >= 0 && i < limit, "_fused_elementwise: operand {} names {} of {} {}", text,
                      text[0] == '%' ? "input" : "result", limit, text[0] == '%' ? "inputs" : "earlier results");
    o.index = static_cast<int>(i);
    return o;
  }
  const std::string number(text);
  char* end = nullptr;
  o.number = std::strtof(number.c_str(), &end);
  EMBER_CHECK_VALUE(*end == '\0', "_fused_elementwise: bad operand {} in \"{}\"", text, code);
  return o;
}

std::vector<Instruction> parse(std::string_view code, int inputs) {
  std::vector<Instruction> program;
  while (!code.empty()) {
    const size_t end = code.find(';');
    const std::string_view text = trim(code.substr(0, end));
    code = end == std::string_view::npos ? std::string_view() : code.substr(end + 1);
    if (text.empty()) continue;
    const size_t open = text.find('(');
    EMBER_CHECK_VALUE(open != std::string_view::npos && text.back() == ')',
                      "_fused_elementwise: expected op(operands) but got \"{}\"", text);
    const std::string_view name = trim(text.substr(0, open));
    const OpInfo* info = std::find_if(std::begin(kOps), std::end(kOps), [&](const OpInfo& i) { return i.name == name; });
    EMBER_CHECK_VALUE(info != std::end(kOps), "_fused_elementwise: unknown op \"{}\"", name);
    std::string_view args = text.substr(open + 1, text.size() - open - 2);
    std::vector<Operand> operands;
    const int results = static_cast<int>(program.size());
    while (!args.empty()) {
      const size_t comma = args.find(',');
      operands.push_back(parse_operand(args.substr(0, comma), inputs, results, text));
      args = comma == std::string_view::npos ? std::string_view() : args.substr(comma + 1);
    }
    EMBER_CHECK_VALUE(static_cast<int>(operands.size()) == info->arity,
                      "_fused_elementwise: {} takes {} operands but got {}", name, info->arity, operands.size());
    program.push_back({info->op, operands[0], info->arity == 2 ? operands[1] : Operand{}});
  }
  EMBER_CHECK_VALUE(!program.empty(), "_fused_elementwise: the code holds no instruction");
  return program;
}

#define EMBER_FUSED_CLONES __attribute__((target_clones("avx2", "default")))

template <typename F>
EMBER_FUSED_CLONES void unary_block(const float* a, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(a[i]);
}

template <typename F>
EMBER_FUSED_CLONES void binary_block(const float* a, const float* b, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
}

template <typename F>
EMBER_FUSED_CLONES void binary_number_block(const float* a, float b, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b);
}

template <typename F>
EMBER_FUSED_CLONES void number_binary_block(float a, const float* b, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(a, b[i]);
}

template <typename F>
void binary(const Instruction& ins, const float* a, const float* b, float* y, int64_t n, F f) {
  const bool a_number = ins.a.kind == Operand::Kind::Number, b_number = ins.b.kind == Operand::Kind::Number;
  if (a_number && b_number) {
    std::fill(y, y + n, f(ins.a.number, ins.b.number));
  } else if (b_number) {
    binary_number_block(a, ins.b.number, y, n, f);
  } else if (a_number) {
    number_binary_block(ins.a.number, b, y, n, f);
  } else {
    binary_block(a, b, y, n, f);
  }
}

void run_instruction(const Instruction& ins, const float* a, const float* b, float* y, int64_t n) {
  switch (ins.op) {
    case Op::Neg: return unary_block(a, y, n, [](float x) { return -x; });
    case Op::Relu: return unary_block(a, y, n, [](float x) { return x > 0 ? x : (x == x ? 0.f : x); });
    case Op::Exp: return exp_floats(a, y, n);
    case Op::Log: return unary_block(a, y, n, [](float x) { return std::log(x); });
    case Op::Tanh: return tanh_floats(a, y, n);
    case Op::Sigmoid: return sigmoid_floats(a, y, n);
    case Op::Silu: return silu_floats(a, y, n);
    case Op::Gelu: return gelu_floats(a, y, n);
    case Op::GeluTanh: return gelu_tanh_floats(a, y, n);
    case Op::Sqrt: return unary_block(a, y, n, [](float x) { return std::sqrt(x); });
    case Op::Rsqrt: return unary_block(a, y, n, [](float x) { return 1.f / std::sqrt(x); });
    case Op::Abs: return unary_block(a, y, n, [](float x) { return std::fabs(x); });
    case Op::Reciprocal: return unary_block(a, y, n, [](float x) { return 1.f / x; });
    case Op::Add: return binary(ins, a, b, y, n, [](float p, float q) { return p + q; });
    case Op::Sub: return binary(ins, a, b, y, n, [](float p, float q) { return p - q; });
    case Op::Mul: return binary(ins, a, b, y, n, [](float p, float q) { return p * q; });
    case Op::Div: return binary(ins, a, b, y, n, [](float p, float q) { return p / q; });
    case Op::Pow:
      if (ins.b.kind == Operand::Kind::Number && ins.b.number == 2.f)
        return unary_block(a, y, n, [](float x) { return x * x; });
      return binary(ins, a, b, y, n, [](float p, float q) { return std::pow(p, q); });
    case Op::Maximum:
      return binary(ins, a, b, y, n, [](float p, float q) { return p != p ? p : (q != q ? q : std::max(p, q)); });
    case Op::Minimum:
      return binary(ins, a, b, y, n, [](float p, float q) { return p != p ? p : (q != q ? q : std::min(p, q)); });
  }
}

// Per thread: a block for each input read through a stride, one per
// instruction's result, and where each input's block starts.
struct Scratch {
  std::vector<float> floats;
  std::vector<const float*> input_ptrs;
};

// Runs the chain over one run of the iterator: data[0] the output, data[1..]
// the inputs, each with its byte stride.
void run_chain(const std::vector<Instruction>& program, int inputs, char** data, const int64_t* strides, int64_t n) {
  thread_local Scratch scratch;
  scratch.floats.resize(static_cast<size_t>(inputs + program.size()) * kBlock);
  scratch.input_ptrs.resize(inputs);
  float* input_blocks = scratch.floats.data();
  float* results = input_blocks + inputs * kBlock;
  auto& input_ptrs = scratch.input_ptrs;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t m = std::min(kBlock, n - start);
    for (int k = 0; k < inputs; ++k) {
      const char* base = data[1 + k];
      const int64_t stride = strides[1 + k];
      if (stride == static_cast<int64_t>(sizeof(float))) {
        input_ptrs[k] = reinterpret_cast<const float*>(base) + start;
        continue;
      }
      float* block = input_blocks + k * kBlock;
      for (int64_t i = 0; i < m; ++i) block[i] = *reinterpret_cast<const float*>(base + (start + i) * stride);
      input_ptrs[k] = block;
    }
    const auto operand = [&](const Operand& o) -> const float* {
      if (o.kind == Operand::Kind::Input) return input_ptrs[o.index];
      if (o.kind == Operand::Kind::Result) return results + o.index * kBlock;
      return nullptr;
    };
    const bool contiguous_out = strides[0] == static_cast<int64_t>(sizeof(float));
    for (size_t j = 0; j < program.size(); ++j) {
      const bool last = j + 1 == program.size();
      float* y = last && contiguous_out ? reinterpret_cast<float*>(data[0]) + start : results + j * kBlock;
      run_instruction(program[j], operand(program[j].a), operand(program[j].b), y, m);
    }
    if (!contiguous_out) {
      const float* y = results + (program.size() - 1) * kBlock;
      for (int64_t i = 0; i < m; ++i) *reinterpret_cast<float*>(data[0] + (start + i) * strides[0]) = y[i];
    }
  }
}

}  // namespace

Tensor _fused_elementwise(c10::ArrayRef<Tensor> inputs, std::string_view code) {
  EMBER_CHECK_VALUE(!inputs.empty(), "_fused_elementwise: expected at least one input");
  const int ninputs = static_cast<int>(inputs.size());
  const auto program = parse(code, ninputs);
  TensorIteratorConfig config;
  config.add_output(Tensor()).name("_fused_elementwise");
  for (size_t k = 0; k < inputs.size(); ++k) {
    EMBER_CHECK_TYPE(inputs[k].scalar_type() == ScalarType::Float,
                     "_fused_elementwise: expected float32 inputs, but input {} is {}", k,
                     c10::python_name(inputs[k].scalar_type()));
    config.add_input(inputs[k]);
  }
  TensorIterator iter = config.build();
  // A long chain does more work per element than one op: smaller parallel grains.
  const int64_t grain = std::max<int64_t>(2048, 32768 / static_cast<int64_t>(program.size()));
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) { run_chain(program, ninputs, data, strides, n); },
      grain);
  return iter.output();
}

}  // namespace ember::native
