#include <aten/core/ExpandUtils.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <numeric>

namespace ember {

std::vector<int64_t> infer_size(c10::IntArrayRef a, c10::IntArrayRef b, std::string_view op) {
  return infer_size_dimvector(a, b, op).vec();
}

c10::DimVector infer_size_dimvector(c10::IntArrayRef a, c10::IntArrayRef b, std::string_view op) {
  const size_t ndim = std::max(a.size(), b.size());
  c10::DimVector out(ndim);
  // From the last dim, so the first mismatch reported is the innermost one, as in torch.
  for (size_t i = ndim; i-- > 0;) {
    const size_t offset = ndim - 1 - i;
    const int64_t sa = offset < a.size() ? a[a.size() - 1 - offset] : 1;
    const int64_t sb = offset < b.size() ? b[b.size() - 1 - offset] : 1;
    EMBER_CHECK(sa == sb || sa == 1 || sb == 1,
                "{}{}The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}", op,
                op.empty() ? "" : ": ", sa, sb, i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

bool is_non_overlapping_and_dense(c10::IntArrayRef sizes, c10::IntArrayRef strides) {
  const size_t n = sizes.size();
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  // Innermost first; size-1 dims can go anywhere, so push them outward.
  std::sort(perm.begin(), perm.end(), [&](size_t x, size_t y) {
    if (sizes[x] < 2) return false;
    if (sizes[y] < 2) return true;
    return strides[x] < strides[y];
  });
  int64_t expected = 1;
  for (size_t d : perm) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

std::vector<int64_t> infer_dense_strides(c10::IntArrayRef sizes, c10::IntArrayRef strides) {
  const size_t n = sizes.size();
  // Innermost first. A stable insertion sort as in torch: a 0 stride says
  // nothing about the order, so such a dim stays where it is.
  std::vector<size_t> perm(n);
  std::iota(perm.rbegin(), perm.rend(), 0);
  const auto should_swap = [&](size_t d0, size_t d1) {
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] != strides[d1]) return strides[d0] < strides[d1] ? -1 : 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (size_t i = 1; i < n; ++i) {
    size_t d1 = i;
    for (size_t d0 = i; d0-- > 0;) {
      const int comparison = should_swap(perm[d0], perm[d1]);
      if (comparison > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  std::vector<int64_t> out(n);
  int64_t running = 1;
  for (size_t d : perm) {
    out[d] = running;
    running *= std::max<int64_t>(sizes[d], 1);
  }
  return out;
}

}  // namespace ember
