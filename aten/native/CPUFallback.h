#pragma once
// A boxed fallback that a backend may register for its dispatch key, so that
// operators it has no kernel for still run: tensor arguments on the device
// are copied to the CPU, the CPU kernel runs, results are copied back to the
// device and arguments the operator writes are updated in place. Each
// operator warns once. The copies go through the core's copy_, so the
// backend needs its allocator, its device hooks' byte copies and its
// copy_stub registered. View operators cannot fall back (a view on
// the CPU cannot share the device's memory) and say so.
//
//   EMBER_LIBRARY_IMPL(_, PrivateUse1, m) {
//     m.fallback(ember::KernelFunction::makeFromBoxed(&ember::native::cpu_fallback));
//   }

#include <aten/core/dispatch/Dispatcher.h>

namespace ember::native {

void cpu_fallback(const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack);

}  // namespace ember::native
