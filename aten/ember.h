#pragma once
// The one header a C++ program includes to use Ember: the tensor API and the
// autograd library behind requires_grad.

#include <aten/Functions.h>
#include <aten/core/ExpandUtils.h>
#include <aten/core/Generator.h>
#include <aten/core/Tensor.h>
#include <aten/serialize/Serialization.h>
#include <autograd/Autograd.h>
#include <autograd/AutogradMeta.h>
#include <autograd/CustomFunction.h>
#include <c10/core/GradMode.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
