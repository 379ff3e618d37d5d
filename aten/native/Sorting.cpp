// sort, argsort, topk and the selection kthvalue/median read: stable orders along one dim, NaN largest as in torch.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/TensorIterator.h>
#include <c10/util/TypeCast.h>
#include <c10/util/bit_cast.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace ember::native {

using c10::maybe_wrap_dim;

namespace {

// Puts the first k of items[0, n) in the strict order `before` (which breaks
// ties by position, so any sort is the stable one) sorted in items[0, k): a
// sort for all, one insertion scan for a few of many (on random data all but
// about k log(n / k) items take one comparison), else a selection and a sort
// of the selected (n + k log k).
constexpr int64_t kScanLimit = 64;

template <typename Item, typename Before>
void first_k(Item* items, int64_t n, int64_t k, Before before) {
  if (k == n) {
    std::sort(items, items + n, before);
  } else if (k <= kScanLimit && k * 8 <= n) {
    std::sort(items, items + k, before);
    for (int64_t i = k; i < n; ++i) {
      const Item item = items[i];
      if (!before(item, items[k - 1])) continue;
      int64_t q = k - 1;
      for (; q > 0 && before(item, items[q - 1]); --q) items[q] = items[q - 1];
      items[q] = item;
    }
  } else {
    std::nth_element(items, items + (k - 1), items + n, before);
    std::sort(items, items + k, before);
  }
}

// A float's place in the order as an unsigned integer (NaN largest, -0 equal
// to 0; reversed for descending), packed above its position: one integer
// comparison orders (value, position).
uint64_t packed_float_key(float v, uint32_t position, bool descending) {
  uint32_t bits = c10::bit_cast<uint32_t>(v == 0.0f ? 0.0f : v);
  bits = std::isnan(v) ? 0xffffffffu : bits ^ ((bits >> 31) ? 0xffffffffu : 0x80000000u);
  return (static_cast<uint64_t>(descending ? ~bits : bits) << 32) | position;
}

// Calls order(items, n, before, index_of) for each of the `rows` contiguous
// rows of n values of x: items[0, n) stand for the row's elements, `before`
// orders them stably ascending or descending (NaN largest, as in torch) and
// index_of(item) is the element's position in the row. Floats are packed
// integer keys (one integer comparison each), other types positions.
template <typename Order>
void order_rows(const Tensor& x, int64_t rows, int64_t n, bool descending, Order order) {
  c10::visit_scalar_type(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!c10::is_complex_v<T>) {
      const T* in = static_cast<const T*>(x.data_ptr());
      parallel_for(0, rows, 1, [&](int64_t b, int64_t e) {
        std::vector<int64_t> perm;
        std::vector<uint64_t> keys;
        for (int64_t r = b; r < e; ++r) {
          const T* row = in + r * n;
          if constexpr (std::is_same_v<T, float>) {
            if (n <= std::numeric_limits<uint32_t>::max()) {
              keys.resize(n);
              for (int64_t i = 0; i < n; ++i) keys[i] = packed_float_key(row[i], static_cast<uint32_t>(i), descending);
              order(r, row, keys.data(), std::less<uint64_t>(),
                    [](uint64_t key) { return static_cast<int64_t>(key & 0xffffffffu); });
              continue;
            }
          }
          auto is_nan = [](T v) {
            if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
              return std::isnan(static_cast<float>(v));
            } else {
              return false;
            }
          };
          auto key_less = [&](int64_t i, int64_t j) {
            if (is_nan(row[i]) || is_nan(row[j])) return !is_nan(row[i]) && is_nan(row[j]);
            return row[i] < row[j];
          };
          auto before = [&](int64_t i, int64_t j) { return descending ? key_less(j, i) : key_less(i, j); };
          perm.resize(n);
          std::iota(perm.begin(), perm.end(), 0);
          order(r, row, perm.data(), [&](int64_t i, int64_t j) { return before(i, j) || (!before(j, i) && i < j); },
                [](int64_t i) { return i; });
        }
      });
    }
  });
}

// self with dim moved last and made contiguous (a 0-dim tensor as one
// element), as rows for order_rows.
Tensor as_rows(const Tensor& self, int64_t dim) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  return (self.dim() == 0 ? self.reshape({1}) : self).transpose(dim, nd - 1).contiguous();
}

// The first k of each slice along dim in sorted order (NaN largest, equal
// keys in their original order), with their indices.
std::tuple<Tensor, Tensor> sorted_prefix(const Tensor& self, int64_t dim, bool descending, int64_t k) {
  EMBER_CHECK(!self.is_complex(), "sort(): complex tensors are not supported");
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  dim = maybe_wrap_dim(dim, nd);
  std::vector<int64_t> out_shape = self.dim() == 0 ? std::vector<int64_t>{1} : self.sizes().vec();
  out_shape[dim] = k;
  // Results are contiguous in the input's dim order, as the CPU loop writes them.
  if (self.is_meta() || self.numel() == 0 || k == 0) {
    const std::vector<int64_t> shape = self.dim() == 0 ? std::vector<int64_t>{} : out_shape;
    return {ember::empty(shape, self.dtype(), self.device()), ember::empty(shape, ScalarType::Long, self.device())};
  }
  const Tensor x = as_rows(self, dim);
  std::vector<int64_t> rows_shape = x.sizes().vec();
  rows_shape.back() = k;
  Tensor values = ember::empty(rows_shape, self.dtype(), self.device());
  Tensor indices = ember::empty(rows_shape, ScalarType::Long, self.device());
  const int64_t n = x.size(-1), rows = x.numel() / n;
  int64_t* io = indices.data_ptr<int64_t>();
  order_rows(x, rows, n, descending, [&](int64_t r, const auto* row, auto* items, auto before, auto index_of) {
    auto* vo = static_cast<std::remove_cv_t<std::remove_reference_t<decltype(*row)>>*>(values.data_ptr());
    first_k(items, n, k, before);
    for (int64_t q = 0; q < k; ++q) {
      const int64_t i = index_of(items[q]);
      vo[r * k + q] = row[i];
      io[r * k + q] = i;
    }
  });
  values = values.transpose(dim, nd - 1);
  indices = indices.transpose(dim, nd - 1);
  if (self.dim() == 0) return {values.reshape({}), indices.reshape({})};
  return {values.contiguous(), indices.contiguous()};
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  const int64_t size = self.dim() == 0 ? 1 : self.size(maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1)));
  return sorted_prefix(self, dim, descending, size);
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) { return std::get<1>(ember::sort(self, dim, descending)); }

// Ember's sort is always stable (equal keys keep their order): stable=True
// asks for what every sort gives.
Tensor argsort(const Tensor& self, bool /*stable*/, int64_t dim, bool descending) {
  return ember::argsort(self, dim, descending);
}
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> /*stable*/, int64_t dim, bool descending) {
  return ember::sort(self, dim, descending);
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  dim = maybe_wrap_dim(dim, nd);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  EMBER_CHECK(k >= 0 && k <= size, "selected index k out of range");
  (void)sorted;  // sorted output is always produced
  return sorted_prefix(self, dim, largest, k);
}

Tensor sorted_index_at(const Tensor& self, int64_t dim, const Tensor& position) {
  EMBER_CHECK(!self.is_complex(), "sort(): complex tensors are not supported");
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  dim = maybe_wrap_dim(dim, nd);
  std::vector<int64_t> slices = self.dim() == 0 ? std::vector<int64_t>{1} : self.sizes().vec();
  const int64_t n = slices[dim];
  slices[dim] = 1;
  EMBER_CHECK(position.scalar_type() == ScalarType::Long && position.sizes() == IntArrayRef(slices),
              "_sorted_index_at(): position must be a long tensor of shape {}, got {} of shape {}",
              IntArrayRef(slices), c10::toString(position.scalar_type()), position.sizes());
  if (self.is_meta()) return ember::empty(position.sizes(), ScalarType::Long, self.device());
  const Tensor wanted = as_rows(position, dim);
  const int64_t* at = wanted.data_ptr<int64_t>();
  for (int64_t r = 0; r < wanted.numel(); ++r) {
    EMBER_CHECK_INDEX(at[r] >= 0 && at[r] < n, "_sorted_index_at(): position {} out of range for a slice of {}",
                      at[r], n);
  }
  Tensor indices = ember::empty(wanted.sizes(), ScalarType::Long, self.device());
  if (wanted.numel() > 0) {
    const Tensor x = as_rows(self, dim);
    int64_t* io = indices.data_ptr<int64_t>();
    order_rows(x, x.numel() / n, n, false, [&](int64_t r, const auto*, auto* items, auto before, auto index_of) {
      std::nth_element(items, items + at[r], items + n, before);
      io[r] = index_of(items[at[r]]);
    });
  }
  return indices.transpose(dim, nd - 1).reshape(position.sizes()).contiguous();
}

// ---- order statistics and unique, from sort ---------------------------------------------

namespace {

// The values and indices at `position` (one per slice, shaped like the
// slices with dim kept) of self sorted along dim: a selection per slice.
std::tuple<Tensor, Tensor> pick_sorted(const Tensor& self, int64_t dim, const Tensor& position, bool keepdim) {
  const Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  std::vector<int64_t> slices = x.sizes().vec();
  slices[dim] = 1;
  Tensor i = ember::_sorted_index_at(x, dim, position.reshape(slices));
  Tensor v = x.gather(dim, i);
  if (self.dim() == 0) return {v.reshape({}), i.reshape({})};
  if (!keepdim) v = v.squeeze(dim), i = i.squeeze(dim);
  return {v, i};
}

Tensor slice_position(const Tensor& self, int64_t dim, int64_t k) {
  std::vector<int64_t> shape = self.sizes().vec();
  if (!shape.empty()) shape[dim] = 1;
  return ember::full(shape, Scalar(k), ScalarType::Long, self.device());
}

}  // namespace

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  EMBER_CHECK(k >= 1 && k <= size, "kthvalue(): selected number k out of range for dimension {}", dim);
  return pick_sorted(self, dim, slice_position(self, dim, k - 1), keepdim);
}

std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  EMBER_CHECK_INDEX(size > 0, "median(): Expected reduction dim {} to have non-zero size.", dim);
  Tensor position = slice_position(self, dim, (size - 1) / 2);
  // A slice with NaN has median NaN: the first NaN, which sorts right after
  // the numbers. Only a tensor whose sums are NaN somewhere (NaN, or inf -
  // inf) can hold one: a sum is 10x cheaper than counting NaNs. (A tensor
  // whose values are not in memory yet, lazy, counts them in its graph.)
  const auto may_hold_nan = [&] {
    return !self.unsafeGetTensorImpl()->has_storage_data() ||
           self.sum(IntArrayRef({dim})).isnan().any().item<bool>();
  };
  if (self.is_floating_point() && !self.is_meta() && may_hold_nan()) {
    const Tensor nans = self.isnan().sum(IntArrayRef({dim}), /*keepdim=*/true);
    position = ember::where(ember::gt(nans, Scalar(0)), ember::rsub(nans, Scalar(size)), position);
  }
  return pick_sorted(self, dim, position, keepdim);
}

Tensor median(const Tensor& self) {
  if (self.numel() == 0) {
    EMBER_CHECK(self.is_floating_point(), "median() of an empty tensor is undefined for dtype {}",
                c10::toString(self.scalar_type()));
    return ember::full({}, Scalar(std::nan("")), self.scalar_type(), self.device());
  }
  return std::get<0>(ember::median(self.reshape({-1}), 0, false));
}

// The lower median of the values that are not NaN (NaN where all are).
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  if (!self.is_floating_point()) return ember::median(self, dim, keepdim);
  dim = maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  EMBER_CHECK_INDEX(size > 0, "nanmedian(): Expected reduction dim {} to have non-zero size.", dim);
  const Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  const Tensor valid = x.isnan().logical_not().sum(IntArrayRef({dim}), /*keepdim=*/true);
  // NaN sorts after the numbers: the lower middle of the first `valid` ones.
  const Tensor position = ember::div((valid - 1).clamp_min(0), wrapped_scalar_tensor(2), "floor");
  auto [values, indices] = pick_sorted(x, dim, position, keepdim || self.dim() == 0);
  if (self.dim() == 0) return {values.reshape({}), indices.reshape({})};
  return {values, indices};
}

Tensor nanmedian(const Tensor& self) {
  if (self.numel() == 0) {
    EMBER_CHECK(self.is_floating_point(), "nanmedian() of an empty tensor is undefined for dtype {}",
                c10::toString(self.scalar_type()));
    return ember::full({}, Scalar(std::nan("")), self.scalar_type(), self.device());
  }
  return std::get<0>(ember::nanmedian(self.reshape({-1}), 0, false));
}

namespace {

// quantile and nanquantile: self sorted along dim (NaN last), the q-th
// positions of each slice's (non-NaN) values, read with the interpolation.
Tensor quantile_of(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation, bool ignore_nan, const char* name) {
  EMBER_CHECK(self.numel() > 0, "{}() input tensor must be non-empty", name);
  EMBER_CHECK(q.dim() <= 1, "{}() q must be a scalar or 1D tensor", name);
  EMBER_CHECK(self.scalar_type() == ScalarType::Float || self.scalar_type() == ScalarType::Double,
              "{}() input tensor must be either float or double dtype", name);
  EMBER_CHECK(q.scalar_type() == self.scalar_type(), "{}() q tensor must be same dtype as the input tensor", name);
  EMBER_CHECK(q.device() == self.device(), "{}() q tensor must be on the same device as the input tensor", name);
  const bool linear = interpolation == "linear", lower = interpolation == "lower", higher = interpolation == "higher",
             midpoint = interpolation == "midpoint", nearest = interpolation == "nearest";
  EMBER_CHECK(linear || lower || higher || midpoint || nearest,
              "{}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got {}", name,
              interpolation);
  if (!q.is_meta() && q.numel() > 0) {
    EMBER_CHECK(q.ge(0).logical_and(q.le(1)).all().item().toBool(), "{}() q values must be in the range [0, 1]",
                name);
  }
  Tensor x = dim ? self : self.reshape({-1});
  if (x.dim() == 0) x = x.reshape({1});
  const int64_t d = dim ? maybe_wrap_dim(*dim, x.dim()) : 0;
  const Tensor sorted = std::get<0>(ember::sort(x, d, false)).movedim(d, -1);  // (..., n)
  const int64_t n = sorted.size(-1);
  std::vector<int64_t> batch(sorted.sizes().begin(), sorted.sizes().end() - 1);
  const Tensor qs = q.reshape({-1});
  std::vector<int64_t> ranked = batch;
  ranked.push_back(qs.numel());
  const Tensor nans = sorted.isnan();
  Tensor last;  // the highest position holding a value, per slice
  if (ignore_nan) {
    last = nans.logical_not().sum(IntArrayRef({-1}), true).to(self.scalar_type()) - 1;
  } else {
    last = ember::full({1}, Scalar(n - 1), self.scalar_type(), self.device());
  }
  Tensor ranks = (qs * last).expand(ranked);
  if (lower) ranks = ranks.floor();
  if (higher) ranks = ranks.ceil();
  if (nearest) ranks = ranks.round();
  const Tensor below = ranks.floor(), above = ranks.ceil();
  auto read = [&](const Tensor& at) { return sorted.gather(-1, at.to(ScalarType::Long).clamp(0, n - 1)); };
  const Tensor low_values = read(below), high_values = read(above);
  Tensor result = midpoint ? ember::lerp(low_values, high_values, Scalar(0.5))
                           : ember::lerp(low_values, high_values, ranks - below);
  const Tensor undefined = ignore_nan ? last.lt(0) : nans.any(-1, true);
  result = result.masked_fill(undefined, Scalar(std::nan("")));
  result = result.movedim(-1, 0);  // (k, ...)
  if (keepdim) {
    if (dim) {
      result = result.unsqueeze(d + 1);
    } else {
      std::vector<int64_t> shape{result.size(0)};
      shape.insert(shape.end(), self.dim(), 1);
      result = result.reshape(shape);
    }
  }
  return q.dim() == 0 ? result.squeeze(0) : result;
}

}  // namespace

Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return quantile_of(self, q, dim, keepdim, interpolation, false, "quantile");
}
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return quantile_of(self, ember::full({}, Scalar(q), self.scalar_type(), self.device()), dim, keepdim, interpolation,
                     false, "quantile");
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_of(self, q, dim, keepdim, interpolation, true, "nanquantile");
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_of(self, ember::full({}, Scalar(q), self.scalar_type(), self.device()), dim, keepdim, interpolation,
                     true, "nanquantile");
}

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted, bool return_inverse,
                                            bool return_counts) {
  (void)sorted;  // the result is always sorted (torch allows either when not asked for)
  EMBER_CHECK(!self.is_meta(), "unique (_unique2): not supported for meta tensors: the output size depends on the data");
  const Tensor flat = self.reshape({-1});
  const int64_t n = flat.numel();
  const auto long_options = TensorOptions().dtype(ScalarType::Long).device(self.device());
  if (n == 0) {
    return {ember::empty({0}, self.options()),
            return_inverse ? ember::empty(self.sizes(), long_options) : ember::empty({0}, long_options),
            ember::empty({0}, long_options)};
  }
  auto [values, order] = ember::sort(flat, 0, false);
  // first[i]: values[i] starts a run of equal values (each NaN is its own run).
  const Tensor first = ember::cat({ember::ones({1}, ScalarType::Bool, self.device()),
                                   ember::ne(values.narrow(0, 1, n - 1), values.narrow(0, 0, n - 1))}, 0);
  const Tensor output = values.masked_select(first);
  Tensor inverse = ember::empty({0}, long_options), counts = ember::empty({0}, long_options);
  if (return_inverse) {
    const Tensor group = ember::sub(first.to(ScalarType::Long).cumsum(0), Scalar(1));
    inverse = ember::empty({n}, long_options).scatter_(0, order, group).reshape(self.sizes());
  }
  if (return_counts) {
    const Tensor starts = first.nonzero().reshape({-1});
    const Tensor ends = ember::cat({starts.narrow(0, 1, starts.numel() - 1), ember::full({1}, Scalar(n), long_options)},
                                   0);
    counts = ember::sub(ends, starts);
  }
  return {output, inverse, counts};
}

// The most frequent value of each slice along dim: the longest run of equal
// values in the sorted slice (the first, so the smallest value, among equally
// long ones; NaNs count as equal), and the last place it held in the slice,
// which the stable sort leaves at the end of its run.
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CHECK(!self.is_complex(), "mode(): complex tensors are not supported");
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  dim = maybe_wrap_dim(dim, nd);
  const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
  EMBER_CHECK_INDEX(n > 0, "mode(): Expected reduction dim {} to have non-zero size.", dim);
  std::vector<int64_t> result_shape = self.sizes().vec();
  if (self.dim() > 0) {
    if (keepdim) {
      result_shape[dim] = 1;
    } else {
      result_shape.erase(result_shape.begin() + dim);
    }
  }
  Tensor value = ember::empty(result_shape, self.dtype(), self.device());
  Tensor index = ember::empty(result_shape, ScalarType::Long, self.device());
  if (self.is_meta()) return {value, index};
  auto [sorted, order] = ember::sort(self, dim, false);
  const Tensor values = (self.dim() == 0 ? sorted.reshape({1}) : sorted).transpose(dim, nd - 1).contiguous();
  const Tensor places = (self.dim() == 0 ? order.reshape({1}) : order).transpose(dim, nd - 1).contiguous();
  std::vector<int64_t> shape = values.sizes().vec();
  shape.back() = 1;
  Tensor run_ends = ember::empty(shape, ScalarType::Long);
  const int64_t rows = values.numel() / n;
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!c10::is_complex_v<T>) {
      const T* v = static_cast<const T*>(values.data_ptr());
      int64_t* ends = run_ends.data_ptr<int64_t>();
      auto same = [](T a, T b) {
        if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
          if (std::isnan(static_cast<float>(a))) return std::isnan(static_cast<float>(b));
        }
        return a == b;
      };
      parallel_for(0, rows, 1, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const T* row = v + r * n;
          int64_t best_length = 0, best_end = 0;
          for (int64_t start = 0; start < n;) {
            int64_t end = start;
            while (end + 1 < n && same(row[end + 1], row[start])) ++end;
            if (end - start + 1 > best_length) best_length = end - start + 1, best_end = end;
            start = end + 1;
          }
          ends[r] = best_end;
        }
      });
    }
  });
  // [..., 1] with dim last -> the result's shape, through a view that puts dim back.
  auto place = [&](const Tensor& rows) {
    const Tensor back = rows.transpose(dim, nd - 1);
    return keepdim || self.dim() == 0 ? back.reshape(result_shape) : back.squeeze(dim);
  };
  value.copy_(place(values.gather(-1, run_ends)));
  index.copy_(place(places.gather(-1, run_ends)));
  return {value, index};
}

Tensor msort(const Tensor& self) { return std::get<0>(ember::sort(self, 0, false)); }

}  // namespace ember::native

