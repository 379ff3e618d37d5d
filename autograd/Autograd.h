#pragma once
// The autograd entry points of the C++ API (torch::autograd::backward/grad).

#include <autograd/Node.h>

#include <optional>

namespace ember::autograd {

// Accumulates d(tensors)/d(leaf) into every leaf's .grad (or only into
// `inputs`). `grad_tensors` may hold undefined entries for scalar outputs.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const variable_list& inputs = {});

// The gradients of `outputs` with respect to `inputs`, returned rather than
// accumulated.
variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                   bool allow_unused = false);

}  // namespace ember::autograd
