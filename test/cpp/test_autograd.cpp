// The C++ autograd API: backward and grad, grad modes, hooks, saved-tensor
// version checks, views modified in place, and custom Function<T>.

#include <aten/ember.h>

#include <gtest/gtest.h>

#include "error_of.h"

#include <algorithm>
#include <cmath>

namespace ember {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

std::vector<double> values(const Tensor& t) {
  const Tensor flat = t.detach().contiguous().to(ScalarType::Double).reshape({-1});
  const double* p = flat.data_ptr<double>();
  return std::vector<double>(p, p + flat.numel());
}

using ember::testing::error_of;

Tensor leaf(std::vector<double> v) {
  Tensor t = ember::empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(ScalarType::Double));
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  t.set_requires_grad(true);
  return t;
}

TEST(Autograd, BackwardAccumulatesIntoLeaves) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = (x * x * 3 + x).sum();
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");
  y.backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{7, 13, 19}));  // 6x + 1
  (x * 2).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{9, 15, 21}));
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(y.is_leaf());
}

TEST(Autograd, GradWithCreateGraphGivesSecondDerivatives) {
  Tensor x = leaf({0.5, 2.0});
  Tensor y = (x * x * x).sum();
  variable_list g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_EQ(values(g[0]), (std::vector<double>{0.75, 12.0}));  // 3x^2
  variable_list gg = autograd::grad({g[0].sum()}, {x});
  EXPECT_EQ(values(gg[0]), (std::vector<double>{3.0, 12.0}));  // 6x
  EXPECT_FALSE(x.grad().defined());  // grad() does not accumulate
}

TEST(Autograd, SecondBackwardNeedsRetainGraph) {
  Tensor x = leaf({1, 2});
  Tensor y = x.exp().sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_NEAR(values(x.grad())[0], 2 * std::exp(1.0), 1e-12);
  EXPECT_NE(error_of([&] { y.backward(); }).find("Trying to backward through the graph a second time"),
            std::string::npos);
}

TEST(Autograd, NoGradRecordsNothing) {
  Tensor x = leaf({1, 2});
  {
    c10::NoGradGuard no_grad;
    EXPECT_FALSE((x * 2).requires_grad());
  }
  EXPECT_TRUE((x * 2).requires_grad());
  {
    c10::InferenceMode inference;
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(y.is_inference());
  }
}

TEST(Autograd, InPlaceChangeOfASavedTensorIsAnError) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 1;
  Tensor z = y.exp();  // saves its result
  z.mul_(2);
  const std::string message = error_of([&] { z.sum().backward(); });
  EXPECT_NE(message.find("modified by an inplace operation"), std::string::npos) << message;
  EXPECT_NE(message.find("ember.DoubleTensor [2]"), std::string::npos) << message;
  EXPECT_NE(error_of([&] { x.add_(1); }).find("a leaf Variable that requires grad"), std::string::npos);
}

TEST(Autograd, InPlaceOnAViewRebasesTheBase) {
  Tensor x = leaf({1, 2, 3, 4});
  Tensor base = x.clone();
  base.slice(0, 1, 3).mul_(10);
  EXPECT_EQ(base.grad_fn()->name(), "CopySlices");
  base.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 10, 10, 1}));

  // Writing a tensor that requires grad into a slice of one that does not.
  Tensor target = ember::zeros({4}, TensorOptions().dtype(ScalarType::Double));
  Tensor w = leaf({5, 6});
  target.slice(0, 0, 2).copy_(w * 2);
  EXPECT_TRUE(target.requires_grad());
  (target * target).sum().backward();
  EXPECT_EQ(values(w.grad()), (std::vector<double>{40, 48}));  // d/dw (2w)^2 = 8w
}

TEST(Autograd, TensorHooksSeeAndReplaceGradients) {
  Tensor x = leaf({1, 2});
  std::vector<double> seen;
  x.register_hook([&](const Tensor& g) {
    seen = values(g);
    return g * 2;
  });
  Tensor y = x * 3;
  const uint64_t id = y.register_hook([](const Tensor& g) { return g + 1; });
  y.sum().backward();
  EXPECT_EQ(seen, (std::vector<double>{6, 6}));  // (1 + 1) * 3
  EXPECT_EQ(values(x.grad()), (std::vector<double>{12, 12}));
  y.remove_hook(id);
}

TEST(Autograd, RetainGradKeepsANonLeafGradient) {
  Tensor x = leaf({1, 2});
  Tensor y = x * x;
  y.retain_grad();
  (y * 3).sum().backward();
  EXPECT_EQ(values(y.grad()), (std::vector<double>{3, 3}));
}

struct MulAdd : autograd::Function<MulAdd> {
  static Tensor forward(AutogradContext* ctx, const Tensor& a, const Tensor& b, double c) {
    ctx->save_for_backward({a, b});
    ctx->saved_data["c"] = c;
    return a * b + c;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list saved = ctx->get_saved_variables();
    EXPECT_DOUBLE_EQ(ctx->saved_data["c"].toDouble(), 0.5);
    return {grads[0] * saved[1], grads[0] * saved[0]};
  }
};

TEST(Autograd, CustomFunction) {
  Tensor a = leaf({1, 2});
  Tensor b = leaf({3, 4});
  Tensor y = MulAdd::apply(a, b, 0.5);
  EXPECT_EQ(values(y), (std::vector<double>{3.5, 8.5}));
  EXPECT_EQ(y.grad_fn()->name(), "MulAddBackward");
  y.sum().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{3, 4}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{1, 2}));
}

TEST(Autograd, OutVariantsRefuseInputsThatRequireGrad) {
  Tensor x = leaf({1, 2});
  Tensor out = ember::empty({2}, TensorOptions().dtype(ScalarType::Double));
  EXPECT_NE(error_of([&] { ember::exp_out(out, x); }).find("functions with out=... arguments don't support"),
            std::string::npos);
}

}  // namespace
}  // namespace ember
