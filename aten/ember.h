#pragma once
// The one header a C++ program includes to use Ember.

#include <aten/Functions.h>
#include <aten/core/ExpandUtils.h>
#include <aten/core/Generator.h>
#include <aten/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
