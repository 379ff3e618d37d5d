// "foo": a toy out-of-tree backend for Ember, built only against Ember's
// installed headers and libraries. Its device memory is host memory from its
// own counting allocator, so its kernels can run Ember's CPU kernels on CPU
// views of that memory. It plugs in the way any backend does:
//   - names the PrivateUse1 device type "foo",
//   - registers its allocator and device hooks (which move bytes to and
//     from the host) for PrivateUse1, and its elementwise copy loop,
//   - registers a generator factory for its device type,
//   - registers kernels for a few operators at the PrivateUse1 key,
//   - and the CPU fallback for every other operator.

#include <aten/Functions.h>
#include <aten/core/dispatch/Library.h>
#include <aten/native/CPUFallback.h>
#include <aten/native/DeviceKernels.h>
#include <c10/core/Allocator.h>
#include <c10/core/DeviceHooks.h>
#include <c10/core/StorageImpl.h>
#include <c10/core/TensorImpl.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace {

using ember::Tensor;
using c10::Device;
using c10::DeviceType;

const Device kFoo(DeviceType::PrivateUse1, 0);
std::atomic<int64_t> allocated_bytes{0}, allocations{0};

// What the deleter needs back: the block and its size (to count it down).
struct Block {
  void* data;
  size_t nbytes;
};

struct FooAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) override {
    // aligned_alloc wants a multiple of the alignment, and a non-zero size.
    void* data = std::aligned_alloc(64, (nbytes / 64 + 1) * 64);
    EMBER_CHECK(data != nullptr, "foo: out of memory allocating {} bytes", nbytes);
    allocated_bytes += static_cast<int64_t>(nbytes);
    allocations += 1;
    return c10::DataPtr(data, new Block{data, nbytes}, [](void* ctx) {
      auto* block = static_cast<Block*>(ctx);
      allocated_bytes -= static_cast<int64_t>(block->nbytes);
      std::free(block->data);
      delete block;
    }, kFoo);
  }
};

struct FooHooks final : c10::DeviceHooks {
  int device_count() const override { return 1; }
  std::string unavailable_reason() const override { return ""; }
  void check_device(int index) const override {
    EMBER_CHECK(index <= 0, "foo: device index {} is out of range (one foo device)", index);
  }
  int current_device() const override { return 0; }
  void set_device(int index) const override { check_device(index); }
  void synchronize(int) const override {}
  c10::DeviceProperties device_properties(int) const override { return {"Foo toy device (host memory)"}; }
  std::pair<size_t, size_t> mem_get_info(int) const override { return {0, 0}; }
  std::map<std::string, int64_t> memory_stats(int) const override {
    return {{"allocated_bytes.all.current", allocated_bytes.load()}, {"num_alloc_retries", 0},
            {"allocation.all.allocated", allocations.load()}};
  }
  void reset_peak_memory_stats(int) const override {}
  void empty_cache() const override {}
  // Device memory is host memory here; a real device would DMA.
  void copy_to_host(void* host, const void* device_data, size_t nbytes, int) const override {
    std::memcpy(host, device_data, nbytes);
  }
  void copy_from_host(void* device_data, const void* host, size_t nbytes, int) const override {
    std::memcpy(device_data, host, nbytes);
  }
};

FooAllocator allocator;
FooHooks hooks;

bool on_foo(const Tensor& t) { return t.defined() && t.device().type == DeviceType::PrivateUse1; }

// A CPU tensor over a foo tensor's memory (a CPU tensor as it is): the
// view keeps the foo storage alive and shares its version counter.
Tensor host(const Tensor& t) {
  if (!on_foo(t)) return t;
  const c10::TensorImpl& impl = *t.unsafeGetTensorImpl();
  c10::StorageImpl* storage = impl.storage().unsafeGetStorageImpl();
  auto* keep = new c10::intrusive_ptr<c10::StorageImpl>(impl.storage().impl());
  c10::DataPtr alias(storage->data(), keep,
                     [](void* p) { delete static_cast<c10::intrusive_ptr<c10::StorageImpl>*>(p); },
                     Device(DeviceType::CPU));
  auto cpu_storage = c10::make_intrusive<c10::StorageImpl>(std::move(alias), storage->nbytes());
  return Tensor(c10::make_intrusive<c10::TensorImpl>(c10::Storage(cpu_storage), t.scalar_type(), t.sizes(),
                                                     t.strides(), t.storage_offset(), impl.version_counter()));
}

// A CPU result moved into fresh foo memory.
Tensor to_foo(const Tensor& cpu) {
  Tensor out = ember::empty(cpu.sizes(), cpu.scalar_type(), kFoo);
  host(out).copy_(cpu);
  return out;
}

// ---- kernels: Ember's CPU kernels on host views --------------------------------------------

// Elementwise copies on the device (with dtype conversion); copy_'s checks
// and copies to and from the host are the core's.
void copy_on_foo(const Tensor& self, const Tensor& src) { ember::native::copy_stub(DeviceType::CPU, host(self), host(src)); }

Tensor fill_(const Tensor& self, const c10::Scalar& value) {
  host(self).fill_(value);
  return self;
}

Tensor add(const Tensor& self, const Tensor& other, const c10::Scalar& alpha) {
  return to_foo(ember::add(host(self), host(other), alpha));
}

Tensor mul(const Tensor& self, const Tensor& other) { return to_foo(ember::mul(host(self), host(other))); }

Tensor mm(const Tensor& self, const Tensor& mat2) { return to_foo(ember::mm(host(self), host(mat2))); }

Tensor sum(const Tensor& self, std::optional<c10::ScalarType> dtype) { return to_foo(ember::sum(host(self), dtype)); }

Tensor relu(const Tensor& self) { return to_foo(ember::relu(host(self))); }

Tensor threshold_backward(const Tensor& grad, const Tensor& self, const c10::Scalar& threshold) {
  return to_foo(ember::threshold_backward(host(grad), host(self), threshold));
}

// Random numbers are drawn on the host (by the CPU kernels the fallback
// runs), so foo's generators are the host engine, tagged with their device.
ember::Generator make_generator(Device device) {
  return ember::Generator(c10::make_intrusive<ember::CPUGeneratorImpl>(ember::Generator::kDefaultSeed, device));
}

// Load-time registration: naming, memory, hooks, generators, kernels, fallback.
const bool registered = [] {
  c10::rename_privateuse1_backend("foo");
  c10::SetAllocator(DeviceType::PrivateUse1, &allocator);
  c10::SetDeviceHooks(DeviceType::PrivateUse1, &hooks);
  ember::native::copy_stub.set(DeviceType::PrivateUse1, &copy_on_foo);
  ember::RegisterGeneratorFactory(DeviceType::PrivateUse1, &make_generator);
  return true;
}();

}  // namespace

EMBER_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("fill_.Scalar", &fill_);
  m.impl("add.Tensor", &add);
  m.impl("mul.Tensor", &mul);
  m.impl("mm", &mm);
  m.impl("sum", &sum);
  m.impl("relu", &relu);
  m.impl("threshold_backward", &threshold_backward);
}

EMBER_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(ember::KernelFunction::makeFromBoxed(&ember::native::cpu_fallback));
}

// For the example's checks (ctypes): bytes the allocator holds now, allocations made so far.
extern "C" int64_t foo_allocated_bytes() { return allocated_bytes.load(); }
extern "C" int64_t foo_allocations() { return allocations.load(); }
