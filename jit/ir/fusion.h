#pragma once
// The elementwise fusion pass: a chain of float32 pointwise ops on the CPU
// (add, mul, tanh, gelu, ...) becomes one aten::_fused_elementwise call that
// runs the whole chain in one TensorIterator loop, block by block in cache
// (aten/native/FusedElementwise.cpp). For inference: the fused op has no
// derivative.

#include <jit/ir/ir.h>

namespace ember::jit {

// Returns how many chains it fused. `device`: the device type of the values
// that run on the CPU (the lazy device's, when its graphs run there).
int fuse_elementwise(Graph& graph, DeviceType device = DeviceType::CPU);

}  // namespace ember::jit
