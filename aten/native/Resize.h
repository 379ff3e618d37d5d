#pragma once
#include <aten/core/Tensor.h>

namespace ember::native {
// Writes `result` into `out` (resizing it when the shapes differ) and returns
// `out`: the common tail of out= kernels computed through their functional form.
Tensor resize_out(const Tensor& out, const Tensor& result);
}  // namespace ember::native
