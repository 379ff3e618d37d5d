// Autocast from C++: a region turns the CPU's autocast key on for this
// thread, ops follow the policy table, weight casts are cached, and the
// state is restored as a region would restore it.
#include <aten/autocast/AutocastMode.h>
#include <aten/autocast/AutocastPolicies.h>
#include <aten/ember.h>
#include <gtest/gtest.h>

#include "error_of.h"

#include <thread>

namespace ember {
namespace {

using c10::DeviceType;

// What ember.autocast("cpu") does on entry and exit.
struct CpuRegion {
  CpuRegion() {
    autocast::set_autocast_enabled(DeviceType::CPU, true);
    autocast::increment_nesting();
  }
  ~CpuRegion() {
    if (autocast::decrement_nesting() == 0) autocast::clear_cache();
    autocast::set_autocast_enabled(DeviceType::CPU, false);
  }
};

TEST(Autocast, OpsFollowThePolicyTable) {
  const Tensor a = ember::ones({4, 4}), b = ember::ones({4, 4}, TensorOptions().dtype(ScalarType::BFloat16));
  {
    CpuRegion region;
    EXPECT_TRUE(autocast::is_autocast_enabled(DeviceType::CPU));
    EXPECT_EQ(ember::mm(a, a).dtype(), ScalarType::BFloat16);                  // lower precision
    EXPECT_EQ(ember::mse_loss(b, b).dtype(), ScalarType::Float);               // float32
    EXPECT_EQ(ember::cat({a, b}).dtype(), ScalarType::Float);                  // promote
    EXPECT_EQ(ember::add(b, b).dtype(), ScalarType::BFloat16);                 // not in the table
    EXPECT_EQ(ember::mm(a.to(ScalarType::Double), a.to(ScalarType::Double)).dtype(), ScalarType::Double);
  }
  EXPECT_FALSE(autocast::is_autocast_enabled(DeviceType::CPU));
  EXPECT_EQ(ember::mm(a, a).dtype(), ScalarType::Float);
}

TEST(Autocast, WeightCastsAreCachedForTheRegion) {
  Tensor weight = ember::ones({3, 3});
  weight.set_requires_grad(true);
  const Tensor x = ember::ones({2, 3});
  {
    CpuRegion region;
    ember::mm(x, weight);
    ember::mm(x, weight);
    EXPECT_EQ(autocast::cache_size(), 1u);
    EXPECT_EQ(autocast::cache_hits(), 1u);
  }
  EXPECT_EQ(autocast::cache_size(), 0u);
}

TEST(Autocast, StateIsPerThreadAndPoliciesArePerDevice) {
  CpuRegion region;
  bool other_thread_sees_it = true;
  std::thread([&] { other_thread_sees_it = autocast::is_autocast_enabled(DeviceType::CPU); }).join();
  EXPECT_FALSE(other_thread_sees_it);
  EXPECT_EQ(autocast::policy_for("exp", DeviceType::CPU), autocast::CastPolicy::None);
  EXPECT_EQ(autocast::policy_for("exp", DeviceType::CUDA), autocast::CastPolicy::Float32);
  EXPECT_NE(testing::error_of([] { autocast::check_not_banned("binary_cross_entropy", DeviceType::CUDA); })
                .find("unsafe to autocast"),
            std::string::npos);
  EXPECT_NE(testing::error_of([] { autocast::set_autocast_enabled(DeviceType::Meta, true); })
                .find("unsupported autocast device_type 'meta'"),
            std::string::npos);
}

}  // namespace
}  // namespace ember
