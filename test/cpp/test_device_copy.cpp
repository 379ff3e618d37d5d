// copy_ between the host and a device is the core's: a backend gives only
// its allocator, its hooks' byte copies and its elementwise copy loop. A
// fake device whose memory is host memory checks that path on any machine.

#include <aten/ember.h>
#include <aten/native/DeviceKernels.h>
#include <c10/core/Allocator.h>
#include <c10/core/DeviceHooks.h>
#include <c10/core/StorageImpl.h>

#include <gtest/gtest.h>

#include <cstring>

#include "error_of.h"

namespace ember {
namespace {

using ember::testing::error_of;

const Device kFake0(DeviceType::PrivateUse1, 0), kFake1(DeviceType::PrivateUse1, 1);

struct Counts {
  int to_host = 0, from_host = 0, device_loops = 0;
} counts;

int current_device = 0;

struct FakeAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) override {
    void* data = ::operator new(nbytes + 1);
    return c10::DataPtr(data, data, [](void* p) { ::operator delete(p); },
                        Device(DeviceType::PrivateUse1, static_cast<int8_t>(current_device)));
  }
};

struct FakeHooks final : c10::DeviceHooks {
  int device_count() const override { return 2; }
  std::string unavailable_reason() const override { return ""; }
  void check_device(int) const override {}
  int current_device() const override { return ember::current_device; }
  void set_device(int index) const override { ember::current_device = index; }
  void synchronize(int) const override {}
  c10::DeviceProperties device_properties(int) const override { return {"fake"}; }
  std::pair<size_t, size_t> mem_get_info(int) const override { return {0, 0}; }
  std::map<std::string, int64_t> memory_stats(int) const override { return {}; }
  void reset_peak_memory_stats(int) const override {}
  void empty_cache() const override {}
  void copy_to_host(void* host, const void* device_data, size_t nbytes, int) const override {
    ++counts.to_host;
    std::memcpy(host, device_data, nbytes);
  }
  void copy_from_host(void* device_data, const void* host, size_t nbytes, int) const override {
    ++counts.from_host;
    std::memcpy(device_data, host, nbytes);
  }
};

// A CPU tensor over a fake tensor's memory, keeping that memory alive.
Tensor host_view(const Tensor& t) {
  const c10::TensorImpl& impl = *t.unsafeGetTensorImpl();
  auto* keep = new c10::intrusive_ptr<c10::StorageImpl>(impl.storage().impl());
  c10::DataPtr alias((*keep)->data(), keep,
                     [](void* p) { delete static_cast<c10::intrusive_ptr<c10::StorageImpl>*>(p); },
                     Device(DeviceType::CPU));
  auto storage = c10::make_intrusive<c10::StorageImpl>(std::move(alias), (*keep)->nbytes());
  return Tensor(c10::make_intrusive<c10::TensorImpl>(c10::Storage(storage), t.scalar_type(), t.sizes(), t.strides(),
                                                     t.storage_offset(), impl.version_counter()));
}

void fake_loop(const Tensor& self, const Tensor& src) {
  ++counts.device_loops;
  native::copy_stub(DeviceType::CPU, host_view(self), host_view(src));
}

class DeviceCopy : public ::testing::Test {
 protected:
  void SetUp() override {
    c10::SetAllocator(DeviceType::PrivateUse1, &allocator_);
    c10::SetDeviceHooks(DeviceType::PrivateUse1, &hooks_);
    native::copy_stub.set(DeviceType::PrivateUse1, &fake_loop);
    counts = Counts{};
  }
  void TearDown() override {
    native::copy_stub.set(DeviceType::PrivateUse1, nullptr);
    c10::SetDeviceHooks(DeviceType::PrivateUse1, nullptr);
    c10::SetAllocator(DeviceType::PrivateUse1, nullptr);
  }
  FakeAllocator allocator_;
  FakeHooks hooks_;
};

TEST_F(DeviceCopy, DenseUploadAndDownloadMoveOneBufferEach) {
  const Tensor x = arange(0.0, 6.0).reshape({2, 3});
  const Tensor on_device = x.to(kFake0);
  EXPECT_EQ(on_device.device(), kFake0);
  EXPECT_EQ(on_device.unsafeGetTensorImpl()->version(), 0);  // a fresh copy is not a modification
  EXPECT_TRUE(equal(on_device.to(Device(DeviceType::CPU)), x));
  EXPECT_EQ(counts.from_host, 1);
  EXPECT_EQ(counts.to_host, 1);
  EXPECT_EQ(counts.device_loops, 0);
}

TEST_F(DeviceCopy, LayoutAndDtypeChangeOnTheSideThatHasKernels) {
  const Tensor x = arange(0.0, 12.0).reshape({3, 4});
  // A transposed tensor keeps its layout: one move each way, no loops.
  EXPECT_TRUE(equal(x.t().to(kFake0).to(Device(DeviceType::CPU)), x.t()));
  EXPECT_EQ(counts.device_loops, 0);
  // A strided source into a dense destination: laid out on the host first.
  const Tensor dst = empty({4, 3}, TensorOptions().device(kFake0));
  dst.copy_(x.t());
  EXPECT_EQ(counts.device_loops, 0);
  EXPECT_EQ(dst.unsafeGetTensorImpl()->version(), 1);
  // A destination with gaps: uploaded to staging, then the device loop.
  const Tensor gaps = empty({4, 6}, TensorOptions().device(kFake0)).slice(1, 0, 6, 2);
  gaps.copy_(x.t());
  EXPECT_EQ(counts.device_loops, 1);
  // Download with a dtype change: converted on the device first.
  const Tensor ints = empty({4, 3}, TensorOptions().dtype(ScalarType::Int));
  ints.copy_(gaps);
  EXPECT_EQ(counts.device_loops, 2);
  EXPECT_TRUE(equal(ints, x.t().to(ScalarType::Int)));
  // Broadcast from a host scalar.
  const Tensor filled = empty({2, 2}, TensorOptions().device(kFake0)).copy_(scalar_tensor(5.0));
  EXPECT_TRUE(equal(filled.to(Device(DeviceType::CPU)), full({2, 2}, 5.0)));
}

TEST_F(DeviceCopy, TwoDevicesGoThroughTheHost) {
  const Tensor a = arange(0.0, 4.0).to(kFake0);
  const Tensor b = empty({4}, TensorOptions().device(kFake1));
  counts = Counts{};
  b.copy_(a);
  EXPECT_EQ(counts.to_host, 1);
  EXPECT_EQ(counts.from_host, 1);
  EXPECT_TRUE(equal(b.to(Device(DeviceType::CPU)), arange(0.0, 4.0)));
}

TEST_F(DeviceCopy, WithoutHooksTheErrorNamesTheDeviceType) {
  const Tensor on_device = empty({2}, TensorOptions().device(kFake0));
  c10::SetDeviceHooks(DeviceType::PrivateUse1, nullptr);
  EXPECT_EQ(error_of([&] { on_device.copy_(ones({2})); }),
            "copy_(): no backend is registered for device type privateuseone");
}

}  // namespace
}  // namespace ember
