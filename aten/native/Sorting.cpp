// sort, argsort and topk: stable sorts along one dim, NaN largest as in torch.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <c10/util/TypeCast.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ember::native {

using c10::maybe_wrap_dim;

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  EMBER_CHECK(!self.is_complex(), "sort(): complex tensors are not supported");
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  dim = maybe_wrap_dim(dim, nd);
  // Results are contiguous in the input's dim order, as the CPU loop writes them.
  if (self.is_meta() || self.numel() == 0) {
    return {ember::empty(self.sizes(), self.dtype(), self.device()),
            ember::empty(self.sizes(), ScalarType::Long, self.device())};
  }
  const Tensor x = (self.dim() == 0 ? self.reshape({1}) : self).transpose(dim, nd - 1).contiguous();
  Tensor values = ember::empty_like(x), indices = ember::empty(x.sizes(), ScalarType::Long);
  const int64_t n = x.dim() == 0 ? 1 : x.size(-1), rows = n == 0 ? 0 : x.numel() / n;
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!c10::is_complex_v<T>) {
      const T* in = static_cast<const T*>(x.data_ptr());
      T* vo = static_cast<T*>(values.data_ptr());
      int64_t* io = indices.data_ptr<int64_t>();
      parallel_for(0, rows, 1, [&](int64_t b, int64_t e) {
        std::vector<int64_t> perm(n);
        for (int64_t r = b; r < e; ++r) {
          const T* row = in + r * n;
          std::iota(perm.begin(), perm.end(), 0);
          // NaN sorts as the largest value, as in torch; equal keys keep their order.
          auto key_less = [&](int64_t i, int64_t j) {
            const float a = static_cast<float>(row[i]), c = static_cast<float>(row[j]);
            if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
              if (std::isnan(a) || std::isnan(c)) return !std::isnan(a) && std::isnan(c);
            }
            return row[i] < row[j];
          };
          if (descending) {
            std::stable_sort(perm.begin(), perm.end(), [&](int64_t i, int64_t j) { return key_less(j, i); });
          } else {
            std::stable_sort(perm.begin(), perm.end(), key_less);
          }
          for (int64_t k = 0; k < n; ++k) {
            vo[r * n + k] = row[perm[k]];
            io[r * n + k] = perm[k];
          }
        }
      });
    }
  });
  values = values.transpose(dim, nd - 1);
  indices = indices.transpose(dim, nd - 1);
  if (self.dim() == 0) return {values.reshape({}), indices.reshape({})};
  return {values.contiguous(), indices.contiguous()};
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) { return std::get<1>(ember::sort(self, dim, descending)); }

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  dim = maybe_wrap_dim(dim, nd);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  EMBER_CHECK(k >= 0 && k <= size, "selected index k out of range");
  auto [values, indices] = ember::sort(self, dim, largest);
  (void)sorted;  // sorted output is always produced
  if (self.dim() == 0) return {values, indices};
  return {values.narrow(dim, 0, k), indices.narrow(dim, 0, k)};
}

}  // namespace ember::native
