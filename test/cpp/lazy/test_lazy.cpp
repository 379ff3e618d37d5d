// The lazy device from C++: ops on lazy tensors are recorded, run by the
// built-in executor when a value is needed, and agree with the CPU; views
// and in-place writes keep eager semantics; a repeated step is a cache hit.

#include <lazy/Executor.h>
#include <lazy/LazyGraph.h>
#include <lazy/LazyTensor.h>
#include <lazy/Metrics.h>

#include <aten/Functions.h>

#include <gtest/gtest.h>

using namespace ember;

namespace {

const Device kLazy(DeviceType::Lazy, 0);
const Device kCPU(DeviceType::CPU);

Tensor on_lazy(const Tensor& t) { return t.to(kLazy); }

bool same(const Tensor& lazy_result, const Tensor& expected) {
  return ember::allclose(lazy_result.to(kCPU), expected, 1e-5, 1e-6);
}

}  // namespace

TEST(Lazy, OpsRecordThenAgreeWithTheCPU) {
  const Tensor a = ember::randn({3, 4}), b = ember::randn({4, 2});
  const Tensor la = on_lazy(a), lb = on_lazy(b);
  const Tensor result = ember::relu(ember::mm(la, lb) * 2.5).sum(std::vector<int64_t>{0});
  EXPECT_EQ(result.device(), kLazy);
  EXPECT_EQ(result.sizes().vec(), std::vector<int64_t>({2}));
  EXPECT_NE(lazy::LazyGraph::get().graph().str().find("aten::mm"), std::string::npos);
  EXPECT_TRUE(same(result, ember::relu(ember::mm(a, b) * 2.5).sum(std::vector<int64_t>{0})));
}

TEST(Lazy, WritesThroughViewsReachTheirBase) {
  const Tensor base = ember::arange(6.0).view({2, 3});
  const Tensor lazy_base = on_lazy(base);
  Tensor row = lazy_base.select(0, 1);
  row.mul_(10);
  lazy_base.t().select(0, 0).add_(1);  // column 0 through a transposed view
  Tensor expected = base.clone();
  expected.select(0, 1).mul_(10);
  expected.t().select(0, 0).add_(1);
  EXPECT_TRUE(same(lazy_base, expected));
  EXPECT_TRUE(same(row, expected.select(0, 1)));
}

TEST(Lazy, TheSameStepCompilesOnce) {
  Tensor w = on_lazy(ember::ones({4, 4}));
  lazy::metrics::reset();
  for (int step = 0; step < 3; ++step) {
    const Tensor x = on_lazy(ember::randn({2, 4}));
    w.sub_(ember::mm(x.t(), x), /*alpha=*/0.1 * (step + 1));  // a changing Scalar is a graph input
    lazy::LazyGraph::get().sync();
  }
  const auto counters = lazy::metrics::counters();
  EXPECT_EQ(counters.at("UncachedCompile"), 1);
  EXPECT_EQ(counters.at("CachedCompile"), 2);
}

TEST(Lazy, OpsWithoutAMetaKernelRunEagerlyAndAreCounted) {
  lazy::metrics::reset();
  Tensor values = ember::zeros({4});
  values.select(0, 1).fill_(2.0);
  values.select(0, 3).fill_(3.0);
  const Tensor x = on_lazy(values);
  const Tensor nz = ember::nonzero(x);
  EXPECT_EQ(nz.device(), kLazy);
  EXPECT_TRUE(ember::equal(nz.to(kCPU), ember::arange(1, 4, 2).view({2, 1})));
  EXPECT_EQ(lazy::metrics::counters().at("Fallback::aten::nonzero"), 1);
}
