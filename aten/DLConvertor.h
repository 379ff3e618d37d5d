#pragma once
// Zero-copy exchange with other array libraries through DLPack.

#include <aten/core/Tensor.h>

struct DLManagedTensor;

namespace ember {

// A DLManagedTensor that keeps `src` alive until its deleter runs. Tensors
// with the conj or neg bit set must be resolved first.
DLManagedTensor* toDLPack(const Tensor& src);
// Wraps the producer's memory; its deleter runs when the last Ember tensor
// using it goes away. Takes ownership of `src` (even when throwing).
Tensor fromDLPack(DLManagedTensor* src);

}  // namespace ember
