// The C++ tensor API: factories, views, copies and the errors on bad input.

#include <aten/DLConvertor.h>
#include <aten/ember.h>

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <numeric>

#include "error_of.h"
#include "expect/expect_inline.h"

using ember::testing::expect_inline;

namespace ember {
namespace {

std::vector<double> values(const Tensor& t) {
  const Tensor flat = t.contiguous().to(ScalarType::Double).reshape({-1});
  const double* p = flat.data_ptr<double>();
  return std::vector<double>(p, p + flat.numel());
}

using ember::testing::error_of;

TEST(Factories, FillAndInferDtypes) {
  EXPECT_EQ(values(zeros({2, 2})), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(values(ones({3}, ScalarType::Int)), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(full({2}, 7).dtype(), ScalarType::Long);
  EXPECT_EQ(full({2}, 7.5).dtype(), ScalarType::Float);
  EXPECT_EQ(full({2}, true).dtype(), ScalarType::Bool);
  EXPECT_EQ(values(arange(0, 10, 3)), (std::vector<double>{0, 3, 6, 9}));
  EXPECT_EQ(arange(5).dtype(), ScalarType::Long);
  EXPECT_EQ(arange(0.0, 1.0, 0.25).numel(), 4);
  EXPECT_EQ(values(arange(5, 0, -2)), (std::vector<double>{5, 3, 1}));
  EXPECT_EQ(values(linspace(0, 1, 5)), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(values(eye(2, 3)), (std::vector<double>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(scalar_tensor(3).dim(), 0);
}

TEST(Factories, RejectBadArguments) {
  expect_inline(error_of([] { empty({2, -1}); }), R"(Trying to create tensor with negative dimension -1: [2, -1])");
  expect_inline(error_of([] { arange(0, 5, 0); }), R"(step must be nonzero)");
  expect_inline(error_of([] { arange(5, 0, 1); }), R"(upper bound and larger bound inconsistent with step sign)");
  expect_inline(error_of([] { eye(-2); }), R"(n must be greater or equal to 0, got -2)");
  expect_inline(error_of([] { randint(3, 3, {2}); }),
                R"(random_ expects 'from' to be less than 'to', but got from=3 >= to=3)");
  expect_inline(error_of([] { empty({2}, Device(DeviceType::CUDA)); }),
                R"(Device cuda is not available: no cuda backend is registered (Ember was built without it, or the backend's library is not loaded))");
  EXPECT_THROW(empty({-1}), c10::Error);  // RuntimeError in Python, as in torch
}

// The reference generator's known outputs (the C++ standard fixes the
// 10000th draw of a default-seeded mt19937), and a corrupt state refused.
TEST(Random, EngineIsTheReferenceMersenneTwister) {
  MT19937 engine;
  EXPECT_EQ(engine(), 3499211612U);
  for (int i = 2; i < 10000; ++i) engine();
  EXPECT_EQ(engine(), 4123659995U);
  Generator g(0);
  std::vector<uint8_t> state = g.get_state();
  ASSERT_EQ(state.size(), CPUGeneratorImpl::kStateBytes);
  state[8] = 0;  // left = 0: reading would run past the state
  EXPECT_EQ(error_of([&] { g.set_state(state); }), "Invalid mt19937 state");
}

TEST(Random, SeededGeneratorsAreReproducible) {
  Generator g1(42), g2(42);
  EXPECT_TRUE(equal(randn({100}, g1), randn({100}, g2)));
  EXPECT_FALSE(equal(randn({100}, g1), randn({100}, Generator(43))));
  const std::vector<uint8_t> state = g1.get_state();
  const Tensor first = rand({10}, g1);
  g1.set_state(state);
  EXPECT_TRUE(equal(first, rand({10}, g1)));
  for (double v : values(rand({1000}, g1))) {
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1.0);
  }
  for (double v : values(randint(-3, 4, {1000}, g1))) {
    EXPECT_GE(v, -3);
    EXPECT_LT(v, 4);
  }
}

// A backend gives its device type generators through a factory; one whose
// kernels draw on the host hands out the host engine, tagged with its device.
Generator make_host_drawn_generator(Device device) {
  return Generator(c10::make_intrusive<CPUGeneratorImpl>(Generator::kDefaultSeed, device));
}

// An engine that is not the host's: kernels drawing on the host refuse it.
struct OtherEngine final : GeneratorImpl {
  using GeneratorImpl::GeneratorImpl;
  void set_seed(uint64_t) override {}
  uint64_t seed() const override { return 0; }
  std::vector<uint8_t> get_state() const override { return {}; }
  void set_state(const std::vector<uint8_t>&) override {}
};

TEST(Random, GeneratorsComeFromEachDeviceTypesFactory) {
  const Device device(DeviceType::PrivateUse1, 1);
  EXPECT_EQ(error_of([&] { make_generator(device); }),
            "Generator: the privateuseone backend does not provide random number generators");
  RegisterGeneratorFactory(DeviceType::PrivateUse1, &make_host_drawn_generator);
  Generator g = make_generator(device);
  EXPECT_EQ(g.device(), device);
  EXPECT_TRUE(equal(randn({5}, g.manual_seed(3)), randn({5}, Generator(3))));  // the host engine draws alike
  EXPECT_TRUE(default_generator(device).is_same(default_generator(device)));
  EXPECT_FALSE(default_generator(device).is_same(default_generator(Device(DeviceType::PrivateUse1, 0))));
  EXPECT_TRUE(default_generator(Device(DeviceType::CPU)).is_same(default_cpu_generator()));
  RegisterGeneratorFactory(DeviceType::PrivateUse1, nullptr);

  const Generator other(c10::make_intrusive<OtherEngine>(device));
  EXPECT_EQ(error_of([&] { randn({2}, other); }), "Expected a 'cpu' device type for generator but found 'privateuseone'");
}

TEST(Views, ShareStorageAndVersion) {
  Tensor a = arange(12, ScalarType::Float).view({3, 4});
  Tensor v = a.transpose(0, 1);
  EXPECT_EQ(v.strides(), IntArrayRef({1, 4}));
  EXPECT_FALSE(v.is_contiguous());
  EXPECT_TRUE(v.is_alias_of(a));
  const uint32_t before = a._version();
  Tensor col = a.select(1, 2);
  col.fill_(-1);
  EXPECT_EQ(a._version(), before + 1);  // one counter for the base and its views
  EXPECT_EQ(values(a.select(0, 1)), (std::vector<double>{4, 5, -1, 7}));
  EXPECT_EQ(values(a.slice(1, 1, std::nullopt, 2).select(0, 2)), (std::vector<double>{9, 11}));
  EXPECT_EQ(a.unsqueeze(1).sizes(), IntArrayRef({3, 1, 4}));
  EXPECT_EQ(a.unsqueeze(1).squeeze().sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(a.expand({2, 3, 4}).strides(), IntArrayRef({0, 4, 1}));
  EXPECT_EQ(a.permute({1, 0}).sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(a.flatten().sizes(), IntArrayRef({12}));
  EXPECT_EQ(a.unfold(1, 2, 2).sizes(), IntArrayRef({3, 2, 2}));
}

TEST(Views, ViewNeedsCompatibleStridesButReshapeCopies) {
  Tensor a = arange(6).view({2, 3});
  Tensor t = a.t();
  expect_inline(error_of([&] { t.view({6}); }),
                R"(view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.)");
  Tensor r = t.reshape({6});
  EXPECT_FALSE(r.is_alias_of(a));
  EXPECT_EQ(values(r), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  // Splitting one dim of a transposed tensor is still a view.
  Tensor split = arange(24).view({4, 6}).t().view({2, 3, 4});
  EXPECT_EQ(split.strides(), IntArrayRef({3, 1, 6}));
}

TEST(Views, RejectBadArguments) {
  Tensor a = zeros({2, 3});
  expect_inline(error_of([&] { a.view({4, 2}); }), R"(shape '[4, 2]' is invalid for input of size 6)");
  expect_inline(error_of([&] { a.view({-1, -1}); }), R"(only one dimension can be inferred)");
  expect_inline(error_of([&] { a.select(0, 2); }),
                R"(select(): index 2 out of range for tensor of size [2, 3] at dimension 0)");
  expect_inline(error_of([&] { a.transpose(0, 2); }),
                R"(Dimension out of range (expected to be in range of [-2, 1], but got 2))");
  expect_inline(error_of([&] { a.expand({2, 4}); }),
                R"(The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3])");
  expect_inline(error_of([&] { a.permute({0, 0}); }), R"(permute(): duplicate dims are not allowed.)");
  expect_inline(error_of([&] { a.narrow(1, 2, 2); }), R"(start (2) + length (2) exceeds dimension size (3).)");
  expect_inline(error_of([&] { a.as_strided({3, 3}, {3, 1}); }),
                R"(setStorage: sizes [3, 3], strides [3, 1], storage offset 0, and itemsize 4 requiring a storage size of 36 are out of bounds for storage of size 24)");
  EXPECT_THROW(a.select(0, 5), c10::IndexError);
}

TEST(Copy, ConvertsBroadcastsAndHandlesOverlap) {
  Tensor dst = zeros({2, 3}, ScalarType::Int);
  dst.copy_(full({3}, 2.75));
  EXPECT_EQ(values(dst), (std::vector<double>{2, 2, 2, 2, 2, 2}));
  expect_inline(error_of([&] { dst.copy_(zeros({2, 2})); }),
                R"(copy_: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1)");
  expect_inline(error_of([&] { zeros({3}).copy_(zeros({2, 3})); }),
                R"(output with shape [3] doesn't match the broadcast shape [2, 3])");
  expect_inline(error_of([&] { zeros({1}).expand({3}).fill_(1); }),
                R"(unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.)");

  // A shifted copy within one buffer reads the source before writing.
  Tensor a = arange(5, ScalarType::Double);
  Tensor tail = a.slice(0, 1, std::nullopt);
  tail.copy_(a.slice(0, 0, 4));
  EXPECT_EQ(values(a), (std::vector<double>{0, 0, 1, 2, 3}));

  Tensor half = full({4}, 1.5, ScalarType::Half).to(ScalarType::BFloat16).to(ScalarType::Double);
  EXPECT_EQ(values(half), (std::vector<double>{1.5, 1.5, 1.5, 1.5}));
}

TEST(Copy, ClonePreservesDenseLayouts) {
  Tensor t = arange(6).view({2, 3}).t();
  EXPECT_EQ(t.clone().strides(), t.strides());
  EXPECT_EQ(t.contiguous().strides(), IntArrayRef({2, 1}));
}

TEST(Conj, IsLazyAndResolvedByCopies) {
  Tensor z = full({2}, Scalar(c10::complex<double>(1, 2)), ScalarType::ComplexFloat);
  Tensor c = z.conj();
  EXPECT_TRUE(c.is_conj());
  EXPECT_TRUE(c.is_alias_of(z));
  EXPECT_EQ(c[0].item().toComplexDouble(), c10::complex<double>(1, -2));
  Tensor r = c.resolve_conj();
  EXPECT_FALSE(r.is_conj());
  EXPECT_EQ(r.data_ptr<c10::complex<float>>()[1], c10::complex<float>(1, -2));
  c.fill_(Scalar(c10::complex<double>(3, 4)));  // through the conj view
  EXPECT_EQ(z[0].item().toComplexDouble(), c10::complex<double>(3, -4));
}

TEST(Item, NeedsOneElement) {
  EXPECT_EQ(full({1, 1}, 4).item<int>(), 4);
  expect_inline(error_of([] { zeros({2, 3}).item(); }), R"(a Tensor with 6 elements cannot be converted to Scalar)");
}

TEST(RequiresGrad, OnlyForFloatingAndComplex) {
  Tensor t = zeros({2});
  t.set_requires_grad(true);
  EXPECT_TRUE(t.requires_grad());
  expect_inline(error_of([] { zeros({2}, ScalarType::Long).set_requires_grad(true); }),
                R"(Only Tensors of floating point and complex dtype can require gradients)");
}

TEST(Meta, HasShapesWithoutData) {
  Tensor m = empty({1000, 1000}, Device(DeviceType::Meta));
  EXPECT_EQ(m.numel(), 1000000);
  EXPECT_EQ(m.data_ptr(), nullptr);
  EXPECT_EQ(m.t().sizes(), IntArrayRef({1000, 1000}));
  expect_inline(error_of([&] { m.item(); }), R"(a Tensor with 1000000 elements cannot be converted to Scalar)");
}

TEST(DLPack, RoundTripSharesMemory) {
  Tensor a = arange(6, ScalarType::Float).view({2, 3}).t();
  DLManagedTensor* managed = toDLPack(a);
  EXPECT_EQ(managed->dl_tensor.ndim, 2);
  EXPECT_EQ(managed->dl_tensor.strides[0], 1);
  Tensor b = fromDLPack(managed);
  EXPECT_EQ(b.data_ptr(), a.data_ptr());
  EXPECT_EQ(b.strides(), a.strides());
  EXPECT_TRUE(equal(a, b));
  const uint32_t owners = a.use_count();
  b = Tensor();  // releasing the import runs the export's deleter
  EXPECT_EQ(a.use_count(), owners - 1);
}

}  // namespace
}  // namespace ember
