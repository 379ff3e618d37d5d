#pragma once
// The allocator for CUDA tensors: one CachingAllocatorCore per device over
// cudaMalloc/cudaFree, installed as c10's allocator for DeviceType::CUDA
// when the CUDA backend loads.

#include <c10/core/Allocator.h>
#include <c10/cuda/CachingAllocatorCore.h>

namespace c10::cuda::CUDACachingAllocator {

Allocator* get();
MemoryStats stats(int device);
void reset_peak_stats(int device);
// Releases the cached, unused memory of every device.
void empty_cache();

}  // namespace c10::cuda::CUDACachingAllocator
