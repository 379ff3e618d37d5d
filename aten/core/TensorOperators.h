#pragma once
// C++ arithmetic operators on Tensor, as in ATen: `a * b + 1` calls the
// same operators as ember::add(ember::mul(a, b), 1).

#include <aten/generated/Functions.h>

namespace ember {

inline Tensor operator-(const Tensor& t) { return t.neg(); }

inline Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }

inline Tensor operator+(const Tensor& a, const Scalar& b) { return a.add(b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return a.sub(b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return a.mul(b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return a.div(b); }

inline Tensor operator+(const Scalar& a, const Tensor& b) { return b.add(a); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return ember::rsub(b, a); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return b.mul(a); }
inline Tensor operator/(const Scalar& a, const Tensor& b) { return b.reciprocal().mul(a); }

}  // namespace ember
