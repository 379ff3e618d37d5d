#pragma once
// The CUDA runtime as Ember uses it: how many devices there are (0 when no
// driver is installed, never an error), which one is current, and plain
// synchronization. The driver is loaded lazily by the static CUDA runtime,
// so a process that never asks keeps working on machines without a GPU.

#include <c10/core/DeviceHooks.h>

#include <cstdint>
#include <string>

namespace c10::cuda {

// 0 when CUDA cannot be used here; unavailable_reason() then says why.
int device_count() noexcept;
std::string unavailable_reason();
// Throws a clear error when CUDA is unusable or `index` is out of range.
void check_device(int index);

int current_device();
void set_device(int index);
void device_synchronize();
c10::DeviceProperties device_properties(int index);
// Bytes free and total on the current device.
std::pair<size_t, size_t> mem_get_info();

}  // namespace c10::cuda
