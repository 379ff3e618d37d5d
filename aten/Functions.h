#pragma once
// The public C++ operator API: one function per operator in
// native_functions.yaml, generated into aten/generated/Functions.h.

#include <aten/generated/Functions.h>
#include <aten/core/TensorOperators.h>
