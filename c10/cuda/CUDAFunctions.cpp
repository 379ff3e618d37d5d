#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>

#include <cuda_runtime_api.h>

#include <mutex>

namespace c10::cuda {

void raise_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  // Clear the sticky "last error" so the next call does not report it again.
  (void)cudaGetLastError();
  if (err == cudaErrorMemoryAllocation) {
    throw c10::Error(fmt::format("CUDA out of memory in {}: {}", call, cudaGetErrorString(err)), file, line);
  }
  throw c10::Error(fmt::format("CUDA error: {} ({}) in {}", cudaGetErrorString(err), cudaGetErrorName(err), call),
                   file, line);
}

namespace {

struct Availability {
  int count = 0;
  std::string reason;
};

const Availability& availability() {
  static const Availability a = [] {
    Availability r;
    const cudaError_t err = cudaGetDeviceCount(&r.count);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      r.count = 0;
      r.reason = fmt::format("{} ({}: cudaGetDeviceCount)", cudaGetErrorString(err), cudaGetErrorName(err));
    } else if (r.count == 0) {
      r.reason = "no CUDA-capable device was found";
    }
    return r;
  }();
  return a;
}

}  // namespace

int device_count() noexcept { return availability().count; }

std::string unavailable_reason() { return availability().reason; }

void check_device(int index) {
  const int n = device_count();
  EMBER_CHECK(n > 0, "CUDA is not available: {}", unavailable_reason());
  EMBER_CHECK(index >= 0 && index < n, "CUDA error: invalid device ordinal: device cuda:{} requested, but {} {} visible",
              index, n, n == 1 ? "device is" : "devices are");
}

int current_device() {
  check_device(0);
  int device = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

void set_device(int index) {
  check_device(index);
  EMBER_CUDA_CHECK(cudaSetDevice(index));
}

void device_synchronize() {
  check_device(0);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
}

c10::DeviceProperties device_properties(int index) {
  check_device(index);
  cudaDeviceProp prop{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  return {prop.name, static_cast<int64_t>(prop.totalGlobalMem), prop.major, prop.minor, prop.multiProcessorCount};
}

std::pair<size_t, size_t> mem_get_info() {
  size_t free_bytes = 0, total = 0;
  EMBER_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return {free_bytes, total};
}

}  // namespace c10::cuda
