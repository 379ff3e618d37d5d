// The out-of-place forms of writing into a view: self with one of its views
// (a diagonal, a selected index, a slice, any strided window) replaced by src. Compositions of
// clone and copy_, so autograd sends src's gradient through the view.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/SameDevice.h>

namespace ember::native {

namespace {

template <typename View>
Tensor scatter_into_view(const Tensor& self, const Tensor& src, const char* name, View view) {
  check_same_device(name, self, src);
  Tensor result = self.clone();
  Tensor target = view(result);
  EMBER_CHECK(target.sizes() == src.sizes(), "{}: expected src to have a size equal to the slice of self. src size "
              "= {}, slice size = {}", name, c10::str_sizes(src.sizes()), c10::str_sizes(target.sizes()));
  target.copy_(src);
  return result;
}

}  // namespace

Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  return scatter_into_view(self, src, "diagonal_scatter",
                           [&](const Tensor& t) { return t.diagonal(offset, dim1, dim2); });
}

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return scatter_into_view(self, src, "select_scatter", [&](const Tensor& t) { return t.select(dim, index); });
}

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  return scatter_into_view(self, src, "slice_scatter",
                           [&](const Tensor& t) { return t.slice(dim, start, end, step); });
}

Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) {
  // The window addresses the clone's memory laid out as self's is (torch's
  // meaning); the lazy device passes a contiguous self, so row-major.
  check_same_device("as_strided_scatter", self, src);
  EMBER_CHECK(size.size() == stride.size(), "as_strided_scatter: {} sizes but {} strides", size.size(), stride.size());
  const int64_t offset = storage_offset.value_or(0);
  const size_t needed = c10::TensorImpl::storage_nbytes_for(size, stride, offset, 1);
  EMBER_CHECK(offset >= 0 && needed <= static_cast<size_t>(self.numel()),
              "as_strided_scatter: the window (sizes {}, strides {}, storage offset {}) reaches {} elements, but self "
              "has {}", c10::str_sizes(size), c10::str_sizes(stride), offset, needed, self.numel());
  Tensor result = self.clone();
  Tensor target = result.as_strided(size, stride, result.storage_offset() + offset);
  EMBER_CHECK(target.sizes() == src.sizes(), "as_strided_scatter: expected src to have a size equal to the slice of "
              "self. src size = {}, slice size = {}", c10::str_sizes(src.sizes()), c10::str_sizes(target.sizes()));
  target.copy_(src);
  return result;
}

}  // namespace ember::native
