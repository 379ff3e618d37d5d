// TensorIterator's geometry and type decisions, seen from C++.

#include <aten/ember.h>
#include <aten/Parallel.h>
#include <aten/native/TensorIterator.h>

#include <gtest/gtest.h>

#include "expect/expect_inline.h"

using ember::testing::expect_inline;

namespace ember {
namespace {

TEST(TensorIterator, CoalescesContiguousOperandsToOneDim) {
  Tensor a = zeros({4, 5, 6}), b = zeros({4, 5, 6});
  auto iter = TensorIterator::binary_op(Tensor(), a, b, "add");
  EXPECT_EQ(iter.ndim(), 1);
  EXPECT_EQ(iter.shape()[0], 120);
  EXPECT_TRUE(iter.is_contiguous());
}

TEST(TensorIterator, BroadcastsAndKeepsTheInputLayout) {
  Tensor a = zeros({3, 4}).t();  // column-major [4, 3]
  auto iter = TensorIterator::binary_op(Tensor(), a, zeros({3}), "add");
  EXPECT_EQ(iter.output().sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(iter.output().strides(), IntArrayRef({1, 4}));  // follows `a`, as torch does
  EXPECT_FALSE(iter.is_scalar(1));
  auto scalar = TensorIterator::binary_op(Tensor(), zeros({5}), wrapped_scalar_tensor(2), "add");
  EXPECT_TRUE(scalar.is_scalar(2));
}

TEST(TensorIterator, PromotesLikePyTorch) {
  const auto rt = [](std::initializer_list<Tensor> ts) { return result_type(std::vector<Tensor>(ts)); };
  EXPECT_EQ(rt({zeros({2}, ScalarType::Half), wrapped_scalar_tensor(1.5)}), ScalarType::Half);
  EXPECT_EQ(rt({zeros({2}, ScalarType::Int), wrapped_scalar_tensor(1.5)}), ScalarType::Float);
  EXPECT_EQ(rt({zeros({2}, ScalarType::Int), zeros({}, ScalarType::Double)}), ScalarType::Double);
  EXPECT_EQ(rt({zeros({2}, ScalarType::Float), zeros({}, ScalarType::Double)}), ScalarType::Float);
  EXPECT_EQ(rt({zeros({2}, ScalarType::Byte), zeros({2}, ScalarType::Char)}), ScalarType::Short);
  EXPECT_EQ(rt({zeros({2}, ScalarType::Float), wrapped_scalar_tensor(c10::complex<double>(0, 1))}),
            ScalarType::ComplexFloat);
  EXPECT_EQ(rt({zeros({2}, ScalarType::Bool), wrapped_scalar_tensor(3)}), ScalarType::Long);
  EXPECT_TRUE(can_cast(ScalarType::Int, ScalarType::Float));
  EXPECT_FALSE(can_cast(ScalarType::Float, ScalarType::Long));
  EXPECT_FALSE(can_cast(ScalarType::ComplexFloat, ScalarType::Double));
}

TEST(TensorIterator, RefusesUnsafeOutputsAndWrongShapes) {
  try {
    Tensor out = zeros({2}, ScalarType::Long);
    add_out(out, zeros({2}), full({2}, 1.5));
    FAIL();
  } catch (const c10::Error& e) {
    expect_inline(e.what(), R"(add: result type Float can't be cast to the desired output type Long)");
  }
  try {
    Tensor x = zeros({2, 3});
    x.add_(zeros({4, 2, 3}));
    FAIL();
  } catch (const c10::Error& e) {
    expect_inline(e.what(), R"(add: output with shape [2, 3] doesn't match the broadcast shape [4, 2, 3])");
  }
}

TEST(TensorIterator, MetaTensorsGetShapesWithoutLoops) {
  Tensor m = empty({1000, 1000}, Device(DeviceType::Meta));
  Tensor r = exp(m.t());
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.strides(), IntArrayRef({1, 1000}));
}

TEST(TensorIterator, RunsInParallelChunksWithTheSameResult) {
  set_num_threads(2);
  Tensor a = arange(1 << 20, ScalarType::Double);
  const double total = sum(mul(a, 2)).item<double>();
  EXPECT_EQ(total, static_cast<double>(1 << 20) * ((1 << 20) - 1));
}

}  // namespace
}  // namespace ember
