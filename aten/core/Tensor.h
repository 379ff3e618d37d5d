#pragma once
// ember::Tensor. The class is generated (operator methods come from
// native_functions.yaml); its template is aten/templates/TensorBody.h.

#include <aten/generated/TensorBody.h>
