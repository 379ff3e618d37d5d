#pragma once
// Argument and result handling shared by the reductions of every device.

#include <aten/core/Tensor.h>
#include <aten/native/Resize.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace ember::native {

inline std::vector<bool> reduced_mask(const Tensor& self, std::optional<IntArrayRef> dims, const char* name) {
  const int64_t nd = self.dim();
  std::vector<bool> mask(std::max<int64_t>(nd, 0), false);
  if (!dims || dims->empty()) {
    std::fill(mask.begin(), mask.end(), true);
    return mask;
  }
  for (int64_t d : *dims) {
    const int64_t w = c10::maybe_wrap_dim(d, nd);
    if (nd == 0) continue;
    EMBER_CHECK(!mask[w], "dim {} appears multiple times in the list of dims", w);
    mask[w] = true;
  }
  return mask;
}

// sum and prod of integers (and bools) accumulate in int64, as torch.
inline ScalarType integer_to_long(ScalarType t) { return c10::isIntegralType(t, true) ? ScalarType::Long : t; }

// A result computed into a fresh tensor, then written to out= (resized to it) where one was given.
inline Tensor into_out(const Tensor& result, const Tensor& out) { return out.defined() ? resize_out(out, result) : result; }

}  // namespace ember::native
