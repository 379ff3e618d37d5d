#pragma once
// The discrete Fourier transform primitives ember.fft is built on, as in
// ATen: _fft_c2c, _fft_r2c, _fft_c2r over any set of dims, with the
// normalization below. Each backend supplies one kernel (fft_stub) that
// transforms `input` into a freshly allocated `output` (strides of both
// arbitrary), unnormalized.

#include <aten/core/Tensor.h>
#include <aten/native/DispatchStub.h>

namespace ember::native {

// torch's fft_norm_mode: what the result is multiplied by.
enum class FftNorm : int64_t { None = 0, ByRootN = 1, ByN = 2 };

enum class FftKind { C2C, R2C, C2R };

// R2C: the last transform dim of `output` has n/2+1 entries for `input`'s
// n; C2R: `input` holds n/2+1 entries of the Hermitian half and `output`'s
// last transform dim is n (the input may be overwritten: pass a copy).
using FftFn = void(FftKind kind, bool forward, const Tensor& input, const Tensor& output, IntArrayRef dims);
extern DispatchStub<FftFn> fft_stub;

}  // namespace ember::native
