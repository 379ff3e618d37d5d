#pragma once
// CPU loops behind copy_, fill_ and friends. Callers have already checked
// shapes and devices; these only move and convert elements.

#include <aten/core/Tensor.h>

namespace ember::native::cpu {

// dst[i] = convert(src[i]); `src` has dst's shape (broadcast with 0 strides).
void copy_kernel(const Tensor& dst, const Tensor& src);
// Applies conj (complex only) and/or negation to `self` in place.
void conj_neg_kernel(const Tensor& self, bool conj, bool neg);
void fill_kernel(const Tensor& self, const Scalar& value);
Scalar item_kernel(const Tensor& self);
// Same-dtype, same-shape elementwise equality of the stored values.
bool equal_kernel(const Tensor& a, const Tensor& b);

}  // namespace ember::native::cpu
