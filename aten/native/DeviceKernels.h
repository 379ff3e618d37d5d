#pragma once
// The per-device inner kernels of ops whose checks are shared by every
// device (see DispatchStub.h). The CPU fills each slot in aten; other
// backends fill theirs when they load.

#include <aten/core/Tensor.h>
#include <aten/native/DispatchStub.h>

namespace ember::native {

// Writes the logical values of `src` (same device, same shape, no overlap)
// into `self`, converting the dtype and honoring both tensors' conj/neg
// bits. copy_ does the checks around it and copies between devices.
using CopyFn = void(const Tensor& self, const Tensor& src);
extern DispatchStub<CopyFn> copy_stub;

// Writes `value` (already conj/neg-adjusted) into every element of `self`.
using FillFn = void(const Tensor& self, const Scalar& value);
extern DispatchStub<FillFn> fill_stub;

// c = beta * s + alpha * a @ b for 2-D a [m, k], b [k, n] and c [m, n] with
// unit column stride; m, n, k > 0. s is `start` broadcast to [m, n] when it is
// defined (a kernel may fuse a bias row into the product), else c's own values.
using GemmFn = void(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta,
                    const Tensor& start);
extern DispatchStub<GemmFn> gemm_stub;

// Softmax (log: log_softmax; safe: rows of -inf give zeros) of each row of
// a contiguous [rows, n] `in` into `out` of the same shape and dtype.
using SoftmaxRowsFn = void(const Tensor& in, const Tensor& out, bool log, bool safe);
extern DispatchStub<SoftmaxRowsFn> softmax_rows_stub;
// The gradient of (log_)softmax for each row, from the forward's output `y`.
using SoftmaxBackwardRowsFn = void(const Tensor& grad, const Tensor& y, const Tensor& out, bool log);
extern DispatchStub<SoftmaxBackwardRowsFn> softmax_backward_rows_stub;

// nll_loss over contiguous [rows, classes] log-probabilities and [rows] int64
// targets (each stub raises IndexError for a target out of range that is
// not ignore_index); `weight` is undefined or [classes]. Writes `output` ([rows] for reduction
// none, else 0-d) and the 0-d `total_weight`.
using NllForwardFn = void(const Tensor& logp, const Tensor& target, const Tensor& weight, const Tensor& output,
                          const Tensor& total_weight, int64_t reduction, int64_t ignore_index);
extern DispatchStub<NllForwardFn> nll_forward_stub;
// Writes -weight * grad (scaled by 1 / total_weight for the mean) at each
// row's target into the zeroed [rows, classes] `grad_rows`.
using NllBackwardFn = void(const Tensor& grad_output, const Tensor& target, const Tensor& weight,
                           const Tensor& grad_rows, const Tensor& total_weight, int64_t reduction,
                           int64_t ignore_index);
extern DispatchStub<NllBackwardFn> nll_backward_stub;

// One Adam/AdamW update of contiguous param, grad and moments of one float dtype.
struct AdamHyper {
  double step, lr, beta1, beta2, weight_decay, eps;
  bool maximize, decoupled_weight_decay;
};
using AdamStepFn = void(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                        const AdamHyper& h);
extern DispatchStub<AdamStepFn> adam_step_stub;

}  // namespace ember::native
