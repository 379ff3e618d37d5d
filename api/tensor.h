#pragma once
// ember::tensor({1.0, 2.0}): a 1-d tensor of the given values (float32
// unless told), as torch::tensor; reshape it with view().

#include <aten/core/Tensor.h>

#include <initializer_list>

namespace ember {

Tensor tensor(std::initializer_list<double> values, ScalarType dtype = ScalarType::Float);

}  // namespace ember
