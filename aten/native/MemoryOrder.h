#pragma once
// The order in which a tensor's dims lie in memory.

#include <aten/core/Tensor.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace ember::native {

// t's dims, largest stride first (the outermost in memory first); a size-1
// dim's stride says nothing about the order, so it sorts first. Ties keep
// the dims' order. t.permute(order) is contiguous when t is dense.
inline std::vector<int64_t> dims_in_memory_order(const Tensor& t) {
  std::vector<int64_t> order(static_cast<size_t>(t.dim()));
  std::iota(order.begin(), order.end(), 0);
  const auto key = [&](int64_t d) { return t.size(d) == 1 ? INT64_MAX : t.stride(d); };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return key(a) > key(b); });
  return order;
}

}  // namespace ember::native
