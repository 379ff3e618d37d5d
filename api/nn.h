#pragma once
// The C++ frontend in one header: tensors and autograd (aten/ember.h), the
// nn modules, nn::functional, nn::init, optim (and lr schedules), data
// (datasets, DataLoader) and module serialization.

#include <api/data/dataloader.h>
#include <api/nn/Module.h>
#include <api/nn/ModuleHolder.h>
#include <api/nn/functional.h>
#include <api/nn/init.h>
#include <api/nn/modules/activation.h>
#include <api/nn/modules/container.h>
#include <api/nn/modules/conv.h>
#include <api/nn/modules/linear.h>
#include <api/nn/modules/normalization.h>
#include <api/nn/modules/transformer.h>
#include <api/optim/adam.h>
#include <api/optim/schedulers.h>
#include <api/optim/sgd.h>
#include <api/serialize.h>
#include <api/tensor.h>
#include <aten/ember.h>
