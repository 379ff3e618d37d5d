#pragma once
// The per-device inner kernels of ops whose checks are shared by every
// device (see DispatchStub.h). The CPU fills each slot in aten; other
// backends fill theirs when they load.

#include <aten/core/Tensor.h>
#include <aten/native/DispatchStub.h>

namespace ember::native {

// Writes `value` (already conj/neg-adjusted) into every element of `self`.
using FillFn = void(const Tensor& self, const Scalar& value);
extern DispatchStub<FillFn> fill_stub;

// c = beta * c + alpha * a @ b for 2-D a [m, k], b [k, n] and c [m, n] with
// unit column stride; m, n, k > 0.
using GemmFn = void(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta);
extern DispatchStub<GemmFn> gemm_stub;

}  // namespace ember::native
