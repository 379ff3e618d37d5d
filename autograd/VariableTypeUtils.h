#pragma once
// What the generated autograd kernels (VariableType.cpp) share.

#include <autograd/SavedVariable.h>
#include <autograd/Variable.h>
#include <autograd/functions/Basic.h>

#include <c10/core/LocalDispatchKeySet.h>

namespace ember::autograd {

// The keys a kernel at the Autograd key passes the call on with.
inline c10::DispatchKeySet below_autograd(c10::DispatchKeySet ks) {
  return ks.below(c10::DispatchKey::Autograd);
}

inline bool is_differentiable_type(const Tensor& t) {
  return t.defined() && (c10::isFloatingType(t.scalar_type()) || c10::isComplexType(t.scalar_type()));
}

inline void check_no_requires_grad_for_out(const char* op, bool requires_grad) {
  EMBER_CHECK(!requires_grad,
              "{}(): functions with out=... arguments don't support automatic differentiation, but one of the "
              "arguments requires grad.",
              op);
}

}  // namespace ember::autograd
