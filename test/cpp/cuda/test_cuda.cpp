// The CUDA backend against the CPU: every result computed on the GPU is
// compared with the same op on the CPU. Without a GPU only the errors are
// checked and the rest is skipped.

#include <aten/ember.h>
#include <c10/core/DeviceHooks.h>
#include <gtest/gtest.h>

#include "error_of.h"

#include <cmath>
#include <string>

namespace ember {
namespace {

const Device kCUDA(DeviceType::CUDA, 0);
const Device kCPU(DeviceType::CPU);

bool have_gpu() {
  const c10::DeviceHooks* hooks = c10::GetDeviceHooks(DeviceType::CUDA);
  return hooks != nullptr && hooks->device_count() > 0;
}

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: " << c10::GetDeviceHooks(DeviceType::CUDA)->unavailable_reason()

using ember::testing::error_of;

// Largest absolute difference between a GPU result and the CPU's.
double max_diff(const Tensor& gpu, const Tensor& cpu) {
  EXPECT_TRUE(gpu.is_cuda());
  EXPECT_EQ(gpu.sizes(), cpu.sizes());
  EXPECT_EQ(gpu.dtype(), cpu.dtype());
  const Tensor g = gpu.to(kCPU).to(ScalarType::Double), c = cpu.to(ScalarType::Double);
  if (c.numel() == 0) return 0;
  return (g - c).abs().max().item().toDouble();
}

TEST(Cuda, BackendIsRegisteredEvenWithoutAGpu) {
  const c10::DeviceHooks* hooks = c10::GetDeviceHooks(DeviceType::CUDA);
  ASSERT_NE(hooks, nullptr);
  if (!have_gpu()) {
    EXPECT_FALSE(hooks->unavailable_reason().empty());
    const std::string err = error_of([] { ember::empty({2}, ScalarType::Float, kCUDA); });
    EXPECT_NE(err.find("CUDA is not available"), std::string::npos) << err;
  }
}

TEST(Cuda, FactoriesAndRoundTrips) {
  REQUIRE_GPU();
  EXPECT_EQ(max_diff(ember::zeros({3, 4}, ScalarType::Float, kCUDA), ember::zeros({3, 4})), 0);
  EXPECT_EQ(max_diff(ember::full({5}, 2.5, ScalarType::Double, kCUDA), ember::full({5}, 2.5, ScalarType::Double)), 0);
  EXPECT_EQ(max_diff(ember::arange(0, 10, 1, ScalarType::Long, kCUDA), ember::arange(0, 10, 1, ScalarType::Long)), 0);
  EXPECT_EQ(max_diff(ember::eye(3, 3, ScalarType::Float, kCUDA), ember::eye(3, 3, ScalarType::Float)), 0);
  const Tensor x = ember::randn({7, 9});
  const Tensor g = x.to(kCUDA);
  EXPECT_EQ(g.device(), kCUDA);
  EXPECT_EQ(max_diff(g, x), 0);
  // The GPU sums in another order: equal up to rounding.
  EXPECT_NEAR(g.sum().item().toDouble(), x.sum().item().toDouble(), 1e-4);
}

TEST(Cuda, CopiesConvertDtypesAndLayouts) {
  REQUIRE_GPU();
  const Tensor x = ember::randn({6, 5}).mul(10);
  // Non-contiguous sources and destinations on both sides, with casts.
  EXPECT_EQ(max_diff(x.t().to(kCUDA), x.t()), 0);
  EXPECT_EQ(max_diff(x.to(kCUDA).t().contiguous(), x.t().contiguous()), 0);
  EXPECT_EQ(max_diff(x.to(kCUDA).to(ScalarType::Int), x.to(ScalarType::Int)), 0);
  EXPECT_EQ(max_diff(x.to(kCUDA, ScalarType::Long), x.to(ScalarType::Long)), 0);
  EXPECT_EQ(max_diff(x.to(kCUDA).gt(0), x.gt(0)), 0);
  Tensor dst = ember::zeros({5, 6}, ScalarType::Double, kCUDA);
  dst.copy_(x.t());  // upload into a device tensor, cast
  EXPECT_EQ(max_diff(dst, x.t().to(ScalarType::Double)), 0);
  Tensor host = ember::zeros({6, 5}, ScalarType::Float).t();
  host.copy_(x.t().to(kCUDA));  // download into a strided host tensor
  EXPECT_EQ(max_diff(host.to(kCUDA), x.t()), 0);
  Tensor slice = ember::zeros({4, 8}, ScalarType::Float, kCUDA);
  slice.select(1, 3).copy_(ember::ones({4}));
  EXPECT_EQ(slice.sum().item().toDouble(), 4.0);
  const Tensor row = ember::arange(0, 5, 1, ScalarType::Float);
  Tensor broadcast = ember::empty({3, 5}, ScalarType::Float, kCUDA);
  broadcast.copy_(row.to(kCUDA));
  EXPECT_EQ(max_diff(broadcast, row.expand({3, 5}).contiguous()), 0);
}

TEST(Cuda, ElementwiseMatchesTheCpu) {
  REQUIRE_GPU();
  const Tensor a = ember::randn({33, 17}), b = ember::randn({17}), p = ember::rand({33, 17}).add(0.1);
  const Tensor ga = a.to(kCUDA), gb = b.to(kCUDA), gp = p.to(kCUDA);
  EXPECT_LT(max_diff(ga + gb, a + b), 1e-6);
  EXPECT_LT(max_diff(ember::add(ga, gb, 2.5), ember::add(a, b, 2.5)), 1e-6);
  EXPECT_LT(max_diff(ga - gb, a - b), 1e-6);
  EXPECT_LT(max_diff(ga * gb, a * b), 1e-6);
  EXPECT_LT(max_diff(ga / gp, a / p), 1e-4);
  EXPECT_LT(max_diff(ga * 3, a * 3), 1e-6);  // a CPU scalar joins a GPU op
  EXPECT_LT(max_diff(ga.t() + gb.unsqueeze(1), a.t() + b.unsqueeze(1)), 1e-6);
  EXPECT_LT(max_diff(ember::maximum(ga, gb), ember::maximum(a, b)), 0.0 + 1e-12);
  EXPECT_LT(max_diff(ember::minimum(ga, gb), ember::minimum(a, b)), 0.0 + 1e-12);
  EXPECT_EQ(max_diff(ga.lt(gb), a.lt(b)), 0);
  EXPECT_EQ(max_diff(ga.eq(ga), a.eq(a)), 0);
  EXPECT_EQ(max_diff(ga.ge(0), a.ge(0)), 0);
  EXPECT_LT(max_diff(ember::where(ga.gt(0), ga, gb), ember::where(a.gt(0), a, b)), 1e-12);
  EXPECT_LT(max_diff(gp.pow(2), p.pow(2)), 1e-6);
  EXPECT_LT(max_diff(gp.pow(0.5), p.pow(0.5)), 1e-6);
  EXPECT_LT(max_diff(ga.exp(), a.exp()), 1e-4);
  EXPECT_LT(max_diff(gp.log(), p.log()), 1e-5);
  EXPECT_LT(max_diff(gp.sqrt(), p.sqrt()), 1e-6);
  EXPECT_LT(max_diff(ga.tanh(), a.tanh()), 1e-6);
  EXPECT_LT(max_diff(ga.sigmoid(), a.sigmoid()), 1e-6);
  EXPECT_EQ(max_diff(ga.relu(), a.relu()), 0);
  EXPECT_EQ(max_diff(ga.neg(), a.neg()), 0);
  EXPECT_EQ(max_diff(ga.abs(), a.abs()), 0);
  // Integers: promotion to float for division, exact arithmetic otherwise.
  const Tensor i = ember::arange(-20, 20, 1, ScalarType::Long), gi = i.to(kCUDA);
  EXPECT_EQ(max_diff(gi * gi + 3, i * i + 3), 0);
  EXPECT_LT(max_diff(gi / 7, i / 7), 1e-6);
  // In-place ops and out= keep the destination.
  Tensor acc = ga.clone();
  acc.add_(gb).mul_(2);
  EXPECT_LT(max_diff(acc, (a + b) * 2), 1e-5);
}

TEST(Cuda, SumAndMeanMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = ember::randn({4, 50, 30});
  const Tensor g = x.to(kCUDA);
  const Tensor ints = ember::arange(0, 1000, 1, ScalarType::Int);
  EXPECT_LT(max_diff(g.sum(), x.sum()), 1e-3);
  EXPECT_LT(max_diff(ember::sum(g, IntArrayRef{1}, false, std::nullopt), ember::sum(x, IntArrayRef{1}, false, std::nullopt)), 1e-4);
  EXPECT_LT(max_diff(ember::sum(g, IntArrayRef{0, 2}, true, std::nullopt), ember::sum(x, IntArrayRef{0, 2}, true, std::nullopt)), 1e-4);
  EXPECT_LT(max_diff(ember::mean(g, IntArrayRef{-1}, false, std::nullopt), ember::mean(x, IntArrayRef{-1}, false, std::nullopt)), 1e-6);
  // Leading dims of a contiguous tensor are summed down the columns, in chunks of rows.
  EXPECT_LT(max_diff(ember::sum(g, IntArrayRef{0}, false, std::nullopt), ember::sum(x, IntArrayRef{0}, false, std::nullopt)), 1e-5);
  EXPECT_LT(max_diff(ember::sum(g, IntArrayRef{0, 1}, true, std::nullopt), ember::sum(x, IntArrayRef{0, 1}, true, std::nullopt)), 1e-4);
  const Tensor tall = ember::randn({5000, 7});
  EXPECT_LT(max_diff(ember::sum(tall.to(kCUDA), IntArrayRef{0}, false, std::nullopt), ember::sum(tall, IntArrayRef{0}, false, std::nullopt)), 1e-3);
  EXPECT_EQ(max_diff(ember::sum(ints.view({10, 100}).to(kCUDA), IntArrayRef{0}, false, std::nullopt), ember::sum(ints.view({10, 100}), IntArrayRef{0}, false, std::nullopt)), 0);
  // A long row is summed in pieces and then again.
  const Tensor big = ember::rand({3, 100000}, std::nullopt, ScalarType::Double);
  EXPECT_LT(max_diff(ember::sum(big.to(kCUDA), IntArrayRef{1}, false, std::nullopt), ember::sum(big, IntArrayRef{1}, false, std::nullopt)), 1e-8);
  EXPECT_EQ(max_diff(ints.to(kCUDA).sum(), ints.sum()), 0);  // int32 sums to int64
  EXPECT_EQ(max_diff(ember::zeros({0, 3}, ScalarType::Float, kCUDA).sum(), ember::zeros({}, ScalarType::Float)), 0);
}

TEST(Cuda, MatrixProductsThroughCublas) {
  REQUIRE_GPU();
  const Tensor a = ember::randn({37, 19}), b = ember::randn({19, 23}), c = ember::randn({23});
  const Tensor ga = a.to(kCUDA), gb = b.to(kCUDA), gc = c.to(kCUDA);
  EXPECT_LT(max_diff(ga.mm(gb), a.mm(b)), 1e-4);
  // Transposed operands go to cuBLAS as transposes, without copies.
  EXPECT_LT(max_diff(gb.t().mm(ga.t()), b.t().mm(a.t())), 1e-4);
  EXPECT_LT(max_diff(ember::addmm(gc, ga, gb, 0.5, 2.0), ember::addmm(c, a, b, 0.5, 2.0)), 1e-4);
  const Tensor ad = a.to(ScalarType::Double), bd = b.to(ScalarType::Double);
  EXPECT_LT(max_diff(ad.to(kCUDA).mm(bd.to(kCUDA)), ad.mm(bd)), 1e-10);
  EXPECT_LT(max_diff(ga.matmul(gb), a.matmul(b)), 1e-4);
}

TEST(Cuda, AutogradThroughAnMlp) {
  REQUIRE_GPU();
  const Tensor x = ember::randn({16, 8}), w1 = ember::randn({8, 32}), w2 = ember::randn({32, 1});
  auto loss_and_grads = [&](Device d) {
    const Tensor W1 = w1.clone().to(d).set_requires_grad(true), W2 = w2.clone().to(d).set_requires_grad(true);
    const Tensor h = x.to(d).mm(W1).relu();
    const Tensor y = h.mm(W2).sigmoid();
    const Tensor loss = (y - 0.5).pow(2).mean();
    loss.backward();
    return std::make_tuple(loss, W1.grad(), W2.grad());
  };
  const auto [gl, gw1, gw2] = loss_and_grads(kCUDA);
  const auto [cl, cw1, cw2] = loss_and_grads(kCPU);
  EXPECT_LT(max_diff(gl, cl), 1e-5);
  EXPECT_LT(max_diff(gw1, cw1), 1e-4);
  EXPECT_LT(max_diff(gw2, cw2), 1e-4);
}

TEST(Cuda, SoftmaxAndNllLossMatchTheCpu) {
  REQUIRE_GPU();
  const Tensor x = ember::randn({37, 300}).mul(3);
  const Tensor g = x.to(kCUDA);
  EXPECT_LT(max_diff(g.softmax(1), x.softmax(1)), 1e-6);
  EXPECT_LT(max_diff(g.log_softmax(1), x.log_softmax(1)), 1e-5);
  EXPECT_LT(max_diff(g.softmax(0), x.softmax(0)), 1e-6);  // along a non-last dim
  const Tensor masked = ember::full({2, 5}, -INFINITY);
  EXPECT_EQ(max_diff(ember::_safe_softmax(masked.to(kCUDA), 1, std::nullopt), ember::_safe_softmax(masked, 1, std::nullopt)), 0);
  // Backward of log_softmax + nll_loss, each reduction, with ignored targets and weights.
  const Tensor target = ember::randint(0, 300, {37});
  target.select(0, 3).fill_(-100);  // ignored rows
  target.select(0, 5).fill_(-100);
  const Tensor weight = ember::rand({300});
  for (int64_t reduction : {0, 1, 2}) {
    auto run = [&](Device d) {
      // A fresh leaf on each device (x.to(kCPU) would be x itself).
      const Tensor logits = x.clone().to(d).set_requires_grad(true);
      const Tensor loss = ember::nll_loss(logits.log_softmax(1), target.to(d), weight.to(d), reduction, -100);
      (reduction == 0 ? loss.sum() : loss).backward();
      return std::make_pair(loss, logits.grad());
    };
    const auto [gl, gg] = run(kCUDA);
    const auto [cl, cg] = run(kCPU);
    EXPECT_LT(max_diff(gl, cl), 1e-4) << reduction;
    EXPECT_LT(max_diff(gg, cg), 1e-6) << reduction;
  }
  const Tensor bad = ember::full({2}, 300, ScalarType::Long, kCUDA);
  const std::string err = error_of([&] { (void)ember::nll_loss(g.log_softmax(1).narrow(0, 0, 2), bad, std::nullopt, 1, -100); });
  EXPECT_NE(err.find("is out of bounds: must be in"), std::string::npos) << err;
}

TEST(Cuda, FusedAdamStepMatchesTheCpu) {
  REQUIRE_GPU();
  const Tensor p = ember::randn({1000}), g = ember::randn({1000}), m = ember::randn({1000}), v = ember::rand({1000});
  const Tensor gp = p.to(kCUDA), gm = m.to(kCUDA), gv = v.to(kCUDA);
  for (bool decoupled : {false, true}) {
    Tensor cp = p.clone(), cm = m.clone(), cv = v.clone();
    Tensor dp = gp.clone(), dm = gm.clone(), dv = gv.clone();
    ember::_adam_step_(cp, g, cm, cv, 3, 1e-2, 0.9, 0.999, 0.01, 1e-8, false, decoupled);
    ember::_adam_step_(dp, g.to(kCUDA), dm, dv, 3, 1e-2, 0.9, 0.999, 0.01, 1e-8, false, decoupled);
    EXPECT_LT(max_diff(dp, cp), 1e-6);
    EXPECT_LT(max_diff(dm, cm), 1e-6);
    EXPECT_LT(max_diff(dv, cv), 1e-6);
  }
}

TEST(Cuda, AllocatorCachesAndReportsOutOfMemory) {
  REQUIRE_GPU();
  const c10::DeviceHooks* hooks = c10::GetDeviceHooks(DeviceType::CUDA);
  const int64_t before = hooks->memory_stats(0).at("allocated_bytes.all.current");
  {
    const Tensor t = ember::empty({1 << 20}, ScalarType::Float, kCUDA);
    EXPECT_EQ(hooks->memory_stats(0).at("allocated_bytes.all.current") - before, 4 << 20);
  }
  EXPECT_EQ(hooks->memory_stats(0).at("allocated_bytes.all.current"), before);
  const std::string err = error_of([] { ember::empty({int64_t{1} << 48}, ScalarType::Float, kCUDA); });
  EXPECT_NE(err.find("CUDA out of memory. Tried to allocate"), std::string::npos) << err;
  hooks->empty_cache();
}

TEST(Cuda, ClearErrorsForWhatIsMissing) {
  REQUIRE_GPU();
  const Tensor g = ember::ones({3}, ScalarType::Float, kCUDA);
  const std::string mixed = error_of([&] { (void)(g + ember::ones({3})); });
  EXPECT_NE(mixed.find("Expected all tensors to be on the same device"), std::string::npos) << mixed;
  const std::string missing = error_of([&] { (void)ember::cumsum(g, 0, std::nullopt); });
  EXPECT_NE(missing.find("'CUDA' backend"), std::string::npos) << missing;
  // A host tensor handed to a CUDA kernel is an error, not a crash.
  const std::string target_on_host = error_of([&] {
    (void)ember::nll_loss(ember::ones({3, 4}, ScalarType::Float, kCUDA), ember::zeros({3}, ScalarType::Long), std::nullopt, 1, -100);
  });
  EXPECT_NE(target_on_host.find("Expected all tensors to be on the same device"), std::string::npos) << target_on_host;
  const std::string half = error_of([&] { (void)g.to(ScalarType::Half); });
  EXPECT_NE(half.find("on CUDA yet"), std::string::npos) << half;
  const std::string ordinal = error_of([] { ember::empty({1}, ScalarType::Float, Device(DeviceType::CUDA, 99)); });
  EXPECT_NE(ordinal.find("invalid device ordinal"), std::string::npos) << ordinal;
}

}  // namespace
}  // namespace ember
