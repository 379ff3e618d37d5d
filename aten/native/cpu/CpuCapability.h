#pragma once
// The widest vector instruction set Ember's own kernels use: what the CPU
// has, lowered by the environment variable EMBER_CPU_CAPABILITY ("avx2",
// "default") to run a machine as a smaller one would (as torch's
// ATEN_CPU_CAPABILITY). Read once, when first asked. It picks the copy of
// the vector math (VecMath.cpp), the sgemm library threshold and Winograd;
// TensorIterator's contiguous loops (Loops.h) are still GCC clones for AVX2
// and baseline chosen by the CPU alone, so "avx2" is faithful and "default"
// leaves those loops on AVX2.

namespace ember::native::cpu {

enum class CpuCapability { Default, AVX2, AVX512 };

CpuCapability cpu_capability();
const char* to_string(CpuCapability capability);  // "DEFAULT", "AVX2", "AVX512"

}  // namespace ember::native::cpu
