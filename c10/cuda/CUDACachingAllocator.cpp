#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>

#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <vector>

namespace c10::cuda::CUDACachingAllocator {

namespace {

// cudaMalloc/cudaFree on one device, made current for the call.
class CudaDeviceMemory final : public DeviceMemory {
 public:
  explicit CudaDeviceMemory(int device) : device_(device) {}

  void* malloc(size_t nbytes) override {
    Guard guard(device_);
    void* ptr = nullptr;
    const cudaError_t err = cudaMalloc(&ptr, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // clear it: the caller retries or raises its own error
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return ptr;
  }
  void free(void* ptr) override {
    Guard guard(device_);
    EMBER_CUDA_CHECK(cudaFree(ptr));
  }
  std::pair<size_t, size_t> mem_info() override {
    Guard guard(device_);
    return mem_get_info();
  }
  void synchronize() override {
    Guard guard(device_);
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  }

 private:
  // Makes `device` current for one call and restores the previous one.
  struct Guard {
    explicit Guard(int device) {
      EMBER_CUDA_CHECK(cudaGetDevice(&previous));
      if (previous != device) EMBER_CUDA_CHECK(cudaSetDevice(device));
      changed = previous != device;
    }
    ~Guard() {
      if (changed) (void)cudaSetDevice(previous);
    }
    int previous = 0;
    bool changed = false;
  };
  int device_;
};

// What a DataPtr's deleter needs to hand the block back.
struct BlockContext {
  void* ptr;
  CachingAllocatorCore* core;
};

class CudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    const int device = current_device();
    if (nbytes == 0) return DataPtr(nullptr, Device(DeviceType::CUDA, static_cast<int8_t>(device)));
    CachingAllocatorCore& c = core(device);
    void* ptr = c.malloc(nbytes, /*stream=*/0);
    auto* ctx = new BlockContext{ptr, &c};
    return DataPtr(ptr, ctx, &release, Device(DeviceType::CUDA, static_cast<int8_t>(device)));
  }

  void copy_data(void* dst, const void* src, size_t nbytes) const override {
    EMBER_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToDevice));
  }

  CachingAllocatorCore& core(int device) {
    check_device(device);
    std::lock_guard<std::mutex> lock(mutex_);
    if (cores_.empty()) cores_.resize(static_cast<size_t>(device_count()));
    auto& slot = cores_[static_cast<size_t>(device)];
    if (!slot) {
      slot = std::make_unique<CachingAllocatorCore>(std::make_unique<CudaDeviceMemory>(device),
                                                    fmt::format("cuda:{}", device));
    }
    return *slot;
  }

  void for_each_core(void (*f)(CachingAllocatorCore&)) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& c : cores_)
      if (c) f(*c);
  }

 private:
  static void release(void* ctx) {
    auto* block = static_cast<BlockContext*>(ctx);
    block->core->free(block->ptr);
    delete block;
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<CachingAllocatorCore>> cores_;
};

// Leaked on purpose: tensors may be freed during static destruction.
CudaAllocator& instance() {
  static auto* a = new CudaAllocator();
  return *a;
}

}  // namespace

Allocator* get() { return &instance(); }

MemoryStats stats(int device) { return instance().core(device).stats(); }

void reset_peak_stats(int device) { instance().core(device).reset_peak_stats(); }

void empty_cache() {
  instance().for_each_core([](CachingAllocatorCore& c) { c.empty_cache(); });
}

}  // namespace c10::cuda::CUDACachingAllocator
