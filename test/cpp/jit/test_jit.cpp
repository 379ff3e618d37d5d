// The graph IR, the tracer, the passes, the interpreter and program files,
// from C++. TracedPrograms runs programs traced in Python (run by
// test/python/test_jit.py).

#include <jit/ir/fusion.h>
#include <jit/ir/passes.h>
#include <jit/module.h>
#include <jit/runtime/interpreter.h>
#include <jit/tracer.h>

#include <aten/Functions.h>
#include <aten/serialize/Serialization.h>
#include <c10/core/GradMode.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "error_of.h"
#include "expect/expect_inline.h"

using namespace ember;
using ember::testing::error_of;
using ember::testing::expect_inline;

namespace {

std::shared_ptr<jit::Graph> trace(const std::vector<std::pair<std::string, Tensor>>& inputs,
                                  const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn) {
  jit::Tracer tracer;
  std::vector<Tensor> args;
  for (const auto& [name, t] : inputs) {
    tracer.add_input(t, name);
    args.push_back(t);
  }
  for (const Tensor& out : fn(args)) tracer.add_output(out);
  return tracer.finish();
}

Tensor run1(const jit::Graph& g, std::vector<IValue> inputs) { return jit::run_graph(g, std::move(inputs))[0].toTensor(); }

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ember_jit_test_" + name)).string();
}

}  // namespace

TEST(JitTrace, RecordsCallsWithConstantsAndPrints) {
  const Tensor x = ember::randn({2, 3}), w = ember::randn({4, 3});
  auto g = trace({{"x", x}, {"w", w}}, [](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{ember::relu(ember::linear(a[0], a[1])).sum(IntArrayRef({1}), true) * 2};
  });
  expect_inline(g->str(), R"(graph(%x : Float(2, 3), %w : Float(4, 3)):
  %0 : Float(2, 4) = aten::linear(%x, %w, None)
  %1 : Float(2, 4) = aten::relu(%0)
  %2 : Float(2, 1) = aten::sum.dim_IntList(%1, [1], True, dtype=None)
  %3 : Float(2, 1) = aten::mul.Scalar(%2, 2)
  return (%3)
)");
  const Tensor x2 = ember::randn({2, 3});
  EXPECT_TRUE(ember::allclose(run1(*g, {x2, w}), ember::relu(ember::linear(x2, w)).sum(IntArrayRef({1}), true) * 2));
}

TEST(JitTrace, InPlaceAndViewsRunOnTheSameTensors) {
  const Tensor x = ember::randn({3, 4});
  auto g = trace({{"x", x}}, [](const std::vector<Tensor>& a) {
    Tensor y = a[0].clone();
    y.narrow(0, 1, 1).mul_(0);  // a write through a view
    y.add_(1);
    return std::vector<Tensor>{y.t()};
  });
  const Tensor x2 = ember::randn({3, 4});
  Tensor expected = x2.clone();
  expected.narrow(0, 1, 1).mul_(0);
  expected.add_(1);
  EXPECT_TRUE(ember::equal(run1(*g, {x2}), expected.t()));
  jit::optimize(*g);  // the writes stay, and so does what they write through
  EXPECT_TRUE(ember::equal(run1(*g, {x2}), expected.t()));
}

TEST(JitTrace, OutsideTensorsBecomeConstantsUnlessTheyNeedGrad) {
  const Tensor bias = ember::ones({3});
  auto g = trace({{"x", ember::zeros({3})}}, [&](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] + bias}; });
  EXPECT_EQ(g->nodes()[0]->kind(), "prim::Constant");
  EXPECT_TRUE(ember::equal(run1(*g, {ember::full({3}, 2.0)}), ember::full({3}, 3.0)));
  const Tensor weight = ember::ones({3}).set_requires_grad(true);
  const std::string message = error_of([&] {
    trace({{"x", ember::zeros({3})}}, [&](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * weight}; });
  });
  EXPECT_NE(message.find("requires grad but is neither an input nor a parameter"), std::string::npos) << message;
  EXPECT_FALSE(jit::Tracer::active());  // the failed trace closed
}

TEST(JitTrace, ItemIsAWarning) {
  jit::Tracer tracer;
  const Tensor x = ember::ones({2});
  tracer.add_input(x, "x");
  const double total = x.sum().item().toDouble();
  tracer.add_output(x * total);
  tracer.finish();
  ASSERT_EQ(tracer.warnings().size(), 1u);
  EXPECT_NE(tracer.warnings()[0].find("aten::item"), std::string::npos);
}

TEST(JitPasses, FoldMergeAndDropKeepResults) {
  const Tensor x = ember::randn({4, 4});
  auto g = trace({{"x", x}}, [](const std::vector<Tensor>& a) {
    const Tensor scale = ember::arange(4, ScalarType::Float).add(1);  // inputs-free: folded
    const Tensor unused = ember::exp(a[0]);                           // dead
    (void)unused;
    const Tensor left = ember::tanh(a[0]) * scale, right = ember::tanh(a[0]) * scale;  // merged
    return std::vector<Tensor>{left + right};
  });
  const Tensor x2 = ember::randn({4, 4});
  const Tensor before = run1(*g, {x2});
  jit::optimize(*g);
  expect_inline(g->str(), R"(graph(%x : Float(4, 4)):
  %0 : Float(4) = prim::Constant()
  %1 : Float(4, 4) = aten::tanh(%x)
  %2 : Float(4, 4) = aten::mul.Tensor(%1, %0)
  %3 : Float(4, 4) = aten::add.Tensor(%2, %2, alpha=1)
  return (%3)
)");
  EXPECT_TRUE(ember::equal(run1(*g, {x2}), before));
}

TEST(JitPasses, RandomAndWrittenNodesAreNotMerged) {
  auto g = trace({{"x", ember::zeros({3})}}, [](const std::vector<Tensor>& a) {
    Tensor first = ember::zeros({3}), second = ember::zeros({3});
    first.add_(a[0]);
    second.add_(1);
    const Tensor noise = ember::rand({3}) + ember::rand({3});
    return std::vector<Tensor>{first, second, noise};
  });
  jit::optimize(*g);
  auto outputs = jit::run_graph(*g, {ember::full({3}, 5.0)});
  EXPECT_TRUE(ember::equal(outputs[0].toTensor(), ember::full({3}, 5.0)));
  EXPECT_TRUE(ember::equal(outputs[1].toTensor(), ember::full({3}, 1.0)));
  int rand_nodes = 0;
  for (const auto& n : g->nodes()) rand_nodes += n->kind() == "aten::rand";
  EXPECT_EQ(rand_nodes, 2);
}

TEST(JitFusion, PointwiseChainsBecomeOneCall) {
  auto g = trace({{"x", ember::randn({8, 16})}, {"b", ember::randn({16})}}, [](const std::vector<Tensor>& a) {
    const Tensor h = ember::tanh((a[0] + a[1]) * 0.5);  // a chain, broadcast inside it
    return std::vector<Tensor>{ember::sigmoid(h).sum(), h};  // h is read outside: its chain ends there
  });
  const Tensor x2 = ember::randn({8, 16}), b2 = ember::randn({16});
  const auto before = jit::run_graph(*g, {x2, b2});
  EXPECT_EQ(jit::fuse_elementwise(*g), 1);
  expect_inline(g->str(), R"IR(graph(%x : Float(8, 16), %b : Float(16)):
  %0 : Float(8, 16) = aten::_fused_elementwise([%x, %b], "add(%0,%1);mul($0,0.5);tanh($1)")
  %1 : Float(8, 16) = aten::sigmoid(%0)
  %2 : Float() = aten::sum(%1, dtype=None)
  return (%2, %0)
)IR");
  const auto after = jit::run_graph(*g, {x2, b2});
  EXPECT_TRUE(ember::allclose(after[0].toTensor(), before[0].toTensor(), 1e-5, 1e-5));
  EXPECT_TRUE(ember::allclose(after[1].toTensor(), before[1].toTensor(), 1e-6, 1e-6));
}

TEST(JitProgram, SaveLoadRunsTheSameAndChecksTheFile) {
  const Tensor x = ember::randn({2, 3}), w = ember::randn({3, 3});
  auto g = trace({{"x", x}, {"fc.weight", w}}, [](const std::vector<Tensor>& a) {
    auto parts = ember::chunk(ember::linear(a[0], a[1]), 3, 1);
    return std::vector<Tensor>{ember::cat({parts[2], parts[0]}, 1).to(ScalarType::Double), parts[1]};
  });
  jit::Module program(g, {{"fc.weight", w}});
  const std::string path = temp_path("program.ember");
  jit::save(program, path);
  const jit::Module loaded = jit::load(path);
  EXPECT_EQ(loaded.graph().str(), program.graph().str());
  EXPECT_EQ(loaded.named_parameters()[0].first, "fc.weight");
  const Tensor x2 = ember::randn({2, 3});
  const auto a = program.forward(std::vector<IValue>{x2}), b = loaded.forward(std::vector<IValue>{x2});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_TRUE(ember::equal(a[0].toTensor(), b[0].toTensor()));
  EXPECT_EQ(b[0].toTensor().scalar_type(), ScalarType::Double);
  EXPECT_EQ(loaded.operator_names(),
            (std::vector<std::string>{"aten::cat", "aten::chunk", "aten::linear", "aten::to.dtype"}));

  // A newer layout, and an operator this build lacks: errors naming both.
  auto root = serialize::load(path);
  for (auto& [k, v] : root.entries)
    if (k.string_value == "ember_program") v.int_value = jit::kProgramVersion + 1;
  serialize::save(root, path);
  std::string message = error_of([&] { jit::load(path); });
  EXPECT_NE(message.find("newer than this build of Ember reads"), std::string::npos) << message;
  for (auto& [k, v] : root.entries) {
    if (k.string_value == "ember_program") v.int_value = jit::kProgramVersion;
    if (k.string_value == "nodes") v.items[0].items[0].string_value = "aten::no_such_op";
  }
  serialize::save(root, path);
  message = error_of([&] { jit::load(path); });
  EXPECT_NE(message.find("calls the operator aten::no_such_op"), std::string::npos) << message;
  serialize::save_tensors({{"a", x}}, path);
  message = error_of([&] { jit::load(path); });
  EXPECT_NE(message.find("is not an Ember program"), std::string::npos) << message;
  std::filesystem::remove(path);
}

// Programs traced and saved by test/python/test_jit.py: run here without
// Python, the outputs go back for comparison.
TEST(TracedPrograms, RunWithoutPython) {
  const char* dir = std::getenv("EMBER_TRACED_DIR");
  if (dir == nullptr) GTEST_SKIP() << "run by test/python/test_jit.py";
  c10::NoGradGuard inference;
  for (const std::string name : {"mlp", "cnn", "transformer"}) {
    const jit::Module program = jit::load(std::string(dir) + "/" + name + ".ember");
    const Tensor input = serialize::load_tensors(std::string(dir) + "/" + name + "_input.ember")[0].second;
    serialize::save_tensors({{"output", program.forward(input)}}, std::string(dir) + "/" + name + "_cpp_output.ember");
  }
}
