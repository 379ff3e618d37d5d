// The dispatcher, exercised with operators defined by this test alone: no
// core file knows about the "dispatch_test" namespace.

#include <aten/core/dispatch/Library.h>
#include <aten/core/dispatch/OperatorLog.h>
#include <aten/ember.h>

#include <gtest/gtest.h>

#include "error_of.h"
#include "expect/expect_inline.h"

using ember::testing::error_of;
using ember::testing::expect_inline;

namespace ember {
namespace {

using c10::DispatchKey;

Tensor scale_cpu(const Tensor& self, double factor) {
  Tensor out = self.clone();
  auto* p = out.data_ptr<float>();
  for (int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<float>(p[i] * factor);
  return out;
}

Tensor scale_meta(const Tensor& self, double) { return empty_like(self); }

int64_t count_args(const Tensor&, IntArrayRef dims, std::optional<int64_t> extra) {
  return static_cast<int64_t>(dims.size()) + extra.value_or(100);
}

std::tuple<Tensor, Tensor> split_halves(c10::DispatchKeySet ks, const Tensor& self) {
  EXPECT_TRUE(ks.has(DispatchKey::CPU));
  const int64_t half = self.size(0) / 2;
  return {self.narrow(0, 0, half), self.narrow(0, half, self.size(0) - half)};
}

EMBER_LIBRARY(dispatch_test, m) {
  m.def("scale(Tensor self, float factor) -> Tensor");
  m.def("count(Tensor self, int[] dims, int? extra=None) -> int");
  m.def("halves(Tensor self) -> (Tensor, Tensor)");
}

EMBER_LIBRARY_IMPL(dispatch_test, CPU, m) {
  m.impl("scale", &scale_cpu);
  m.impl("count", &count_args);
  m.impl("halves", &split_halves);
}

EMBER_LIBRARY_IMPL(dispatch_test, Meta, m) { m.impl("scale", &scale_meta); }

float first(const Tensor& t) { return t.contiguous().data_ptr<float>()[0]; }

TEST(Dispatcher, CallsRegisteredKernelsUnboxedAndBoxed) {
  auto scale = Dispatcher::singleton().findTyped<Tensor(const Tensor&, double)>("dispatch_test::scale");
  EXPECT_EQ(first(scale.call(full({3}, 2.0), 1.5)), 3.0f);

  Stack stack{IValue(full({2}, 4.0)), IValue(0.5)};
  scale.callBoxed(stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(first(stack[0].toTensor()), 2.0f);

  Stack counted{IValue(zeros({1})), IValue(std::vector<int64_t>{1, 2, 3}), IValue()};
  Dispatcher::singleton().findSchemaOrThrow("dispatch_test::count").callBoxed(counted);
  EXPECT_EQ(counted[0].toInt(), 103);

  auto halves = Dispatcher::singleton().findTyped<std::tuple<Tensor, Tensor>(const Tensor&)>("dispatch_test::halves");
  auto [a, b] = halves.call(arange(5, ScalarType::Float));
  EXPECT_EQ(a.numel(), 2);
  EXPECT_EQ(b.numel(), 3);
}

TEST(Dispatcher, PicksTheBackendFromTheArguments) {
  auto scale = Dispatcher::singleton().findTyped<Tensor(const Tensor&, double)>("dispatch_test::scale");
  Tensor m = scale.call(empty({4, 5}, Device(DeviceType::Meta)), 2.0);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes(), IntArrayRef({4, 5}));
}

TEST(Dispatcher, ReportsMissingKernelsAndSignatureMismatches) {
  auto count = Dispatcher::singleton().findTyped<int64_t(const Tensor&, IntArrayRef, std::optional<int64_t>)>(
      "dispatch_test::count");
  try {
    count.call(empty({1}, Device(DeviceType::Meta)), {1}, 2);
    FAIL() << "expected an error";
  } catch (const c10::NotImplementedError& e) {
    expect_inline(e.what(), R"(Could not run 'dispatch_test::count' with arguments from the 'Meta' backend. 'dispatch_test::count' is only available for these backends: [CPU].)");
  }
  auto wrong = Dispatcher::singleton().findTyped<Tensor(const Tensor&, int64_t)>("dispatch_test::scale");
  EXPECT_THROW(wrong.call(zeros({1}), 2), c10::Error);
  EXPECT_FALSE(Dispatcher::singleton().findSchema("dispatch_test::nope").has_value());
}

Tensor scale_wrong_kind(const Tensor& self, int64_t) { return self; }
Tensor scale_too_few(const Tensor& self) { return self; }

TEST(Library, RefusesKernelsThatDoNotMatchTheSchemaAndDuplicatesAtRegistration) {
  Library m(Library::Kind::IMPL, "dispatch_test", DispatchKey::PrivateUse1);
  expect_inline(error_of([&] { m.impl("scale", &scale_wrong_kind); }),
                R"(the kernel registered for dispatch_test::scale at PrivateUse1 takes int for argument 2 (factor), but the schema says float: dispatch_test::scale(Tensor self, float factor) -> Tensor)");
  expect_inline(error_of([&] { m.impl("scale", &scale_too_few); }),
                R"(the kernel registered for dispatch_test::scale at PrivateUse1 takes 1 arguments, but the schema has 2: dispatch_test::scale(Tensor self, float factor) -> Tensor)");
  m.impl("scale", &scale_cpu);
  expect_inline(error_of([&] { m.impl("scale", &scale_cpu); }),
                R"(Library dispatch_test: dispatch_test::scale is registered twice for PrivateUse1)");
  // A kernel that arrived before its schema is checked when the schema does.
  Library early(Library::Kind::IMPL, "late_test", DispatchKey::CPU);
  early.impl("op", &scale_wrong_kind);
  Library defs(Library::Kind::DEF, "late_test");
  expect_inline(error_of([&] { defs.def("op(Tensor self, float factor) -> Tensor"); }),
                R"(the kernel registered for late_test::op at CPU takes int for argument 2 (factor), but the schema says float: late_test::op(Tensor self, float factor) -> Tensor)");
  expect_inline(error_of([&] { defs.def("op(Tensor self, flaot factor) -> Tensor"); }),
                R"(schema: unknown type 'flaot' at position 21 in 'op(Tensor self, flaot factor) -> Tensor')");
}

TEST(Library, KernelsFromLambdasWithAndWithoutState) {
  Library defs(Library::Kind::DEF, "lambda_test");
  defs.def("plain(Tensor self, float factor) -> Tensor");
  defs.def("stateful(Tensor self, float factor) -> Tensor");
  Library m(Library::Kind::IMPL, "lambda_test", DispatchKey::CPU);
  m.impl("plain", [](const Tensor& self, double factor) { return self.mul(factor); });
  const double offset = 10;
  m.impl("stateful", [offset](const Tensor& self, double factor) { return self.mul(factor).add(offset); });
  Library meta(Library::Kind::IMPL, "lambda_test", DispatchKey::Meta);
  expect_inline(error_of([&] { meta.impl("stateful", [offset](const Tensor& self, int64_t) { return self; }); }),
                R"(the kernel registered for lambda_test::stateful at Meta takes int for argument 2 (factor), but the schema says float: lambda_test::stateful(Tensor self, float factor) -> Tensor)");
  const auto plain = Dispatcher::singleton().findTyped<Tensor(const Tensor&, double)>("lambda_test::plain");
  const auto stateful = Dispatcher::singleton().findTyped<Tensor(const Tensor&, double)>("lambda_test::stateful");
  EXPECT_TRUE(equal(plain.call(ones({2}), 3.0), full({2}, 3.0)));
  EXPECT_TRUE(equal(stateful.call(ones({2}), 3.0), full({2}, 13.0)));  // a typed call boxes for it
}

TEST(Dispatcher, FallbacksFallthroughsAndLocalKeySets) {
  auto scale = Dispatcher::singleton().findTyped<Tensor(const Tensor&, double)>("dispatch_test::scale");
  int seen = 0;
  {
    // A boxed fallback on a functionality key sees every op, then passes on.
    Library lib(Library::Kind::IMPL, "_", DispatchKey::Python);
    lib.fallback(KernelFunction::makeFromBoxed([&seen](const OperatorHandle& op, c10::DispatchKeySet ks, Stack& s) {
      if (op.schema().name == "dispatch_test::scale") ++seen;  // full(), clone() etc. pass by too
      op.redispatchBoxed(ks.remove(DispatchKey::Python), s);
    }));
    EXPECT_EQ(first(scale.call(full({1}, 1.0), 3.0)), 3.0f);
    EXPECT_EQ(seen, 0);  // Python is not in the tensor's keys
    {
      c10::IncludeDispatchKeyGuard include(DispatchKey::Python);
      EXPECT_EQ(first(scale.call(full({1}, 1.0), 3.0)), 3.0f);
      EXPECT_EQ(seen, 1);
      c10::ExcludeDispatchKeyGuard exclude(DispatchKey::Python);
      scale.call(full({1}, 1.0), 3.0);
      EXPECT_EQ(seen, 1);
    }
  }
  // The Library's destructor removed the fallback again.
  c10::IncludeDispatchKeyGuard include(DispatchKey::Python);
  scale.call(full({1}, 1.0), 3.0);
  EXPECT_EQ(seen, 1);
}

TEST(Dispatcher, LibrariesUndoTheirRegistrations) {
  {
    Library lib(Library::Kind::DEF, "dispatch_tmp");
    lib.def("twice(Tensor self) -> Tensor", +[](const Tensor& t) { return scale_cpu(t, 2.0); });
    auto op = Dispatcher::singleton().findTyped<Tensor(const Tensor&)>("dispatch_tmp::twice");
    // Registered as CompositeImplicitAutograd, so it serves every backend key.
    EXPECT_EQ(first(op.call(full({1}, 5.0))), 10.0f);
    {
      Library override_cpu(Library::Kind::IMPL, "dispatch_tmp", DispatchKey::CPU);
      override_cpu.impl("twice", +[](const Tensor& t) { return full_like(t, -1); });
      EXPECT_EQ(first(op.call(full({1}, 5.0))), -1.0f);
    }
    EXPECT_EQ(first(op.call(full({1}, 5.0))), 10.0f);
  }
  EXPECT_FALSE(Dispatcher::singleton().findSchema("dispatch_tmp::twice").has_value());
}

TEST(OperatorLog, RecordsTopLevelCallsOfOpenLogs) {
  const Tensor x = ones({2, 3});
  std::vector<std::string> outer_names;
  {
    OperatorLog outer;
    matmul(x, x.t());  // decomposes into mm: only matmul (and t) are the caller's
    {
      OperatorLog inner;
      add(x, x);
      EXPECT_EQ(inner.names(), std::vector<std::string>{"aten::add.Tensor"});
    }
    outer_names = outer.names();
  }
  EXPECT_EQ(outer_names, (std::vector<std::string>{"aten::t", "aten::matmul", "aten::add.Tensor"}));
  OperatorLog after;
  EXPECT_TRUE(after.names().empty());
}

TEST(Schema, ParsesAndPrintsCanonically) {
  const char* schemas[] = {
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
      "aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
      "aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
      "aten::split.Tensor(Tensor(a) self, int split_size, int dim=0) -> Tensor(a)[]",
      "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
      "aten::_foo(str mode='mean', float[] weights=[1.5, 2], Generator? generator=None) -> ()",
  };
  for (const char* s : schemas) EXPECT_EQ(parse_schema(s).str(), s);
  expect_inline(parse_schema("  relu ( Tensor   self )->Tensor").str(), R"(aten::relu(Tensor self) -> Tensor)");
  const FunctionSchema sum = parse_schema(schemas[4]);
  EXPECT_EQ(sum.arguments[1].type.str(), "int[1]?");
  EXPECT_TRUE(sum.arguments[3].kwarg_only);
  EXPECT_TRUE(parse_schema(schemas[2]).is_mutable());
  try {
    parse_schema("aten::bad(Tensr self) -> Tensor");
    FAIL();
  } catch (const c10::Error& e) {
    expect_inline(e.what(), R"(schema: unknown type 'Tensr' at position 15 in 'aten::bad(Tensr self) -> Tensor')");
  }
}

// An undefined Tensor where the schema says `Tensor` is refused before any
// kernel can dereference it, in both calling conventions; `Tensor?` takes it.
TEST(Dispatcher, RefusesUndefinedTensorArguments) {
  auto scale = Dispatcher::singleton().findTyped<Tensor(const Tensor&, double)>("dispatch_test::scale");
  expect_inline(error_of([&] { scale.call(Tensor(), 2.0); }), R"(dispatch_test::scale: expected a defined Tensor for argument #1 'self', but got an undefined Tensor)");
  Stack stack{IValue(Tensor()), IValue(0.5)};
  expect_inline(error_of([&] { scale.callBoxed(stack); }), R"(dispatch_test::scale: expected a defined Tensor for argument #1 'self', but got an undefined Tensor)");
  expect_inline(error_of([] { add(ones({2}), Tensor()); }), R"(aten::add.Tensor: expected a defined Tensor for argument #2 'other', but got an undefined Tensor)");
  expect_inline(error_of([] { cat({ones({2}), Tensor()}); }), R"(aten::cat: expected a defined Tensor for argument #1 'tensors', but got an undefined Tensor)");
  Tensor out = empty({2});
  expect_inline(error_of([&] { add_out(out, Tensor(), ones({2})); }), R"(aten::add.out: expected a defined Tensor for argument #1 'self', but got an undefined Tensor)");
  // Tensor? arguments take undefined tensors as None.
  EXPECT_EQ(linear(ones({1, 2}), ones({3, 2}), Tensor()).size(1), 3);
}

// Methods of an undefined Tensor answer with an error, not a null dereference.
TEST(Tensor, UndefinedTensorMethodsRaise) {
  Tensor t;
  const std::string message = "the Tensor is undefined (it holds no data: a default-constructed Tensor or a missing gradient); use defined() to test for it";
  EXPECT_EQ(error_of([&] { (void)t.sizes(); }), message);
  EXPECT_EQ(error_of([&] { (void)t.dtype(); }), message);
  EXPECT_EQ(error_of([&] { (void)t.data_ptr(); }), message);
  EXPECT_EQ(error_of([&] { (void)t.grad(); }), message);
  EXPECT_EQ(error_of([&] { t.backward(); }), message);
  EXPECT_EQ(error_of([&] { (void)t.is_leaf(); }), message);
}

}  // namespace
}  // namespace ember
