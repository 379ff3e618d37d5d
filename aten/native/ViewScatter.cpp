// The out-of-place forms of writing into a view: self with one of its views
// (a diagonal, a selected index, a slice) replaced by src. Compositions of
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

}  // namespace ember::native
