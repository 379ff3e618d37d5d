// Joining and splitting (cat, stack, split, chunk), selection by index
// (index_select, gather, scatter, masked_fill, nonzero) and advanced
// indexing (index, index_put_). Sorting is in Sorting.cpp.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/core/ExpandUtils.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/Copy.h>
#include <aten/native/SameDevice.h>
#include <aten/native/Resize.h>
#include <aten/native/TensorIterator.h>
#include <c10/util/TypeCast.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <numeric>

namespace ember::native {

using c10::maybe_wrap_dim;
using c10::str_sizes;

namespace {

// How scatter and index_put_ write each value into its slot: assigned, or
// folded in by one of scatter_reduce's reductions (Sum: index_put_'s and
// scatter_add's accumulation, a logical or for bools).
enum class ScatterReduce { Assign, Sum, Prod, Mean, Amax, Amin };

template <typename T>
bool is_nan_value(T v) {
  if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
    return v != v;
  } else {
    return false;
  }
}

// The value a reduction starts from where self is left out (include_self=False).
template <typename T>
T reduce_identity(ScatterReduce r) {
  if constexpr (c10::is_complex_v<T>) {
    return r == ScatterReduce::Prod ? T(1) : T(0);
  } else if constexpr (std::is_same_v<T, bool>) {
    return r == ScatterReduce::Prod || r == ScatterReduce::Amin;
  } else if constexpr (std::is_floating_point_v<T> || c10::is_reduced_float_v<T>) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    return r == ScatterReduce::Prod ? T(1.0f) : r == ScatterReduce::Amax ? T(-inf) : r == ScatterReduce::Amin ? T(inf)
                                                                                                          : T(0.0f);
  } else {
    return r == ScatterReduce::Prod   ? T(1)
           : r == ScatterReduce::Amax ? std::numeric_limits<T>::lowest()
           : r == ScatterReduce::Amin ? std::numeric_limits<T>::max()
                                      : T(0);
  }
}

// slot folded with v; amax/amin keep a NaN once one arrives, as torch does.
template <typename T>
void fold(T& slot, T v, ScatterReduce r) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (r) {
      case ScatterReduce::Assign: slot = v; break;
      case ScatterReduce::Prod: case ScatterReduce::Amin: slot = slot && v; break;
      default: slot = slot || v; break;
    }
  } else {
    switch (r) {
      case ScatterReduce::Assign: slot = v; break;
      case ScatterReduce::Sum: case ScatterReduce::Mean: slot = static_cast<T>(slot + v); break;
      case ScatterReduce::Prod: slot = static_cast<T>(slot * v); break;
      case ScatterReduce::Amax:
      case ScatterReduce::Amin:
        if constexpr (!c10::is_complex_v<T>) {
          if (is_nan_value(slot)) break;
          if (is_nan_value(v) || (r == ScatterReduce::Amax ? v > slot : v < slot)) slot = v;
        }
        break;
    }
  }
}

int64_t checked_index(int64_t i, int64_t size, int64_t dim) {
  EMBER_CHECK_INDEX(i >= -size && i < size, "index {} is out of bounds for dimension {} with size {}", i, dim, size);
  return i < 0 ? i + size : i;
}

Tensor long_contiguous(const Tensor& index, const char* name) {
  EMBER_CHECK(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int,
              "{}(): Expected dtype int64 for index", name);
  return index.to(ScalarType::Long).contiguous();
}

}  // namespace

// ---- cat / stack / split / chunk ---------------------------------------------------

Tensor cat_out(c10::ArrayRef<Tensor> tensors, int64_t dim, const Tensor& out) {
  EMBER_CHECK_VALUE(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  // Legacy rule kept by torch: 1-D empty tensors are skipped.
  const Tensor* ref = nullptr;
  for (const Tensor& t : tensors)
    if (!(t.dim() == 1 && t.numel() == 0)) ref = ref ? ref : &t;
  if (!ref) ref = &tensors[0];
  EMBER_CHECK(ref->dim() > 0, "zero-dimensional tensor (at position 0) cannot be concatenated");
  dim = maybe_wrap_dim(dim, ref->dim());
  std::vector<int64_t> shape = ref->sizes().vec();
  shape[dim] = 0;
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() == 1 && t.numel() == 0 && ref->dim() != 1) continue;
    EMBER_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got {} and {}", ref->dim(),
                t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) {
      EMBER_CHECK(d == dim || t.size(d) == ref->size(d),
                  "Sizes of tensors must match except in dimension {}. Expected size {} but got size {} for tensor "
                  "number {} in the list.",
                  dim, ref->size(d), t.size(d), i);
    }
    shape[dim] += t.size(dim);
    parts.push_back(t);
  }
  const ScalarType dtype = result_type(tensors);
  Tensor result = out.defined() ? out : ember::empty(shape, dtype, ref->device());
  if (result.sizes() != IntArrayRef(shape)) result.resize_(shape);
  int64_t offset = 0;
  for (const Tensor& t : parts) {
    result.narrow(dim, offset, t.size(dim)).copy_(t);
    offset += t.size(dim);
  }
  return result;
}

Tensor cat(c10::ArrayRef<Tensor> tensors, int64_t dim) { return ember::cat_outf(tensors, dim, Tensor()); }

Tensor concat(c10::ArrayRef<Tensor> tensors, int64_t dim) { return ember::cat(tensors, dim); }

Tensor concatenate(c10::ArrayRef<Tensor> tensors, int64_t dim) { return ember::cat(tensors, dim); }

// atleast_Nd: size-1 dims added as NumPy adds them (a 1-D (n) is (1, n) as
// 2-D and (1, n, 1) as 3-D; a 2-D (m, n) is (m, n, 1) as 3-D).
Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self; }

Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  return self.dim() == 1 ? self.unsqueeze(0) : self;
}

Tensor atleast_3d(const Tensor& self) {
  switch (self.dim()) {
    case 0: return self.reshape({1, 1, 1});
    case 1: return self.unsqueeze(0).unsqueeze(-1);
    case 2: return self.unsqueeze(-1);
    default: return self;
  }
}

namespace {
// Each tensor through `shape`, then joined along `dim`; `op` names the caller in errors.
template <typename Shape>
Tensor join_shaped(c10::ArrayRef<Tensor> tensors, const char* op, Shape&& shape, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "{} expects a non-empty TensorList", op);
  std::vector<Tensor> shaped;
  for (const Tensor& t : tensors) shaped.push_back(shape(t));
  return ember::cat(shaped, dim);
}
}  // namespace

Tensor hstack(c10::ArrayRef<Tensor> tensors) {
  EMBER_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  const int64_t dim = ember::atleast_1d(tensors[0]).dim() == 1 ? 0 : 1;
  return join_shaped(tensors, "hstack", [](const Tensor& t) { return ember::atleast_1d(t); }, dim);
}

Tensor vstack(c10::ArrayRef<Tensor> tensors) {
  return join_shaped(tensors, "vstack", [](const Tensor& t) { return ember::atleast_2d(t); }, 0);
}

Tensor row_stack(c10::ArrayRef<Tensor> tensors) { return ember::vstack(tensors); }

Tensor dstack(c10::ArrayRef<Tensor> tensors) {
  return join_shaped(tensors, "dstack", [](const Tensor& t) { return ember::atleast_3d(t); }, 2);
}

// 0-d and 1-D tensors become columns; others join along dim 1 as they are.
Tensor column_stack(c10::ArrayRef<Tensor> tensors) {
  return join_shaped(tensors, "column_stack",
                     [](const Tensor& t) { return t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t; }, 1);
}

Tensor stack(c10::ArrayRef<Tensor> tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  dim = maybe_wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> expanded;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {}",
                str_sizes(tensors[0].sizes()), str_sizes(tensors[i].sizes()), i);
    expanded.push_back(tensors[i].unsqueeze(dim));
  }
  return ember::cat(expanded, dim);
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size={}", split_size);
  dim = maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.size(dim);
  EMBER_CHECK(split_size > 0 || size == 0, "split_size can only be 0 if dimension size is 0, but got dimension size of {}",
              size);
  std::vector<Tensor> out;
  if (size == 0) return {self};
  for (int64_t start = 0; start < size; start += split_size) out.push_back(self.narrow(dim, start, std::min(split_size, size - start)));
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t total = 0;
  bool overflow = false;  // sizes that overflow cannot sum to the dim's size
  for (int64_t s : split_sizes) overflow |= __builtin_add_overflow(total, s, &total);
  EMBER_CHECK(!overflow && total == self.size(dim),
              "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension {}), but "
              "got split_sizes={}",
              self.size(dim), dim, str_sizes(split_sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(self.narrow(dim, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: {}", chunks);
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.size(d);
  if (size == 0) {
    // One empty piece per chunk, as torch; a count no vector can hold is refused before allocating.
    EMBER_CHECK(chunks <= (int64_t{1} << 32), "chunk: cannot return {} empty chunks", chunks);
    return std::vector<Tensor>(static_cast<size_t>(chunks), self.narrow(d, 0, 0));
  }
  return ember::split(self, size / chunks + (size % chunks != 0), d);  // ceil, without overflowing
}

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.size(dim); ++i) out.push_back(self.select(dim, i));
  return out;
}

// tensor_split: views of self between the given indices along dim, or
// `sections` nearly equal parts (the first size % sections one longer).
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.size(dim);
  std::vector<Tensor> parts;
  int64_t start = 0;
  for (int64_t index : indices) {
    // Python slicing: a cut before the previous one gives an empty part, and the next starts there.
    const int64_t end = std::clamp<int64_t>(index < 0 ? index + size : index, 0, size);
    parts.push_back(self.slice(dim, start, std::max(start, end)));
    start = end;
  }
  parts.push_back(self.slice(dim, start, size));
  return parts;
}
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  EMBER_CHECK(sections > 0, "number of sections must be larger than 0, got {}", sections);
  const int64_t size = self.size(c10::maybe_wrap_dim(dim, self.dim()));
  std::vector<int64_t> indices;
  const int64_t base = size / sections, longer = size % sections;
  int64_t at = 0;
  for (int64_t i = 0; i + 1 < sections; ++i) indices.push_back(at += base + (i < longer ? 1 : 0));
  return ember::tensor_split(self, IntArrayRef(indices), dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim) {
  const Tensor& t = tensor_indices_or_sections;
  EMBER_CHECK(t.device().is_cpu(), "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {}",
              t.device().str());
  EMBER_CHECK(t.scalar_type() == ScalarType::Long,
              "tensor_split expected tensor_indices_or_sections to have dtype of long, but got {}",
              c10::toString(t.scalar_type()));
  EMBER_CHECK(t.dim() <= 1, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
              "one-dimensional tensor, but got a tensor with {} dims", t.dim());
  if (t.dim() == 0) return ember::tensor_split(self, t.item().toLong(), dim);
  const Tensor values = t.contiguous();
  const int64_t* data = values.data_ptr<int64_t>();
  return ember::tensor_split(self, IntArrayRef(data, static_cast<size_t>(values.numel())), dim);
}

namespace {
// hsplit, vsplit and dsplit: tensor_split along a fixed dim, with torch's checks.
int64_t split_dim(const Tensor& self, const char* name, int64_t min_dims, int64_t dim) {
  EMBER_CHECK(self.dim() >= min_dims, "torch.{} requires a tensor with at least {} dimension, but got a tensor with "
              "{} dimensions!", name, min_dims, self.dim());
  return dim;
}
std::vector<Tensor> split_in_sections(const Tensor& self, int64_t sections, const char* name, int64_t min_dims,
                                      int64_t dim) {
  dim = split_dim(self, name, min_dims, dim);
  EMBER_CHECK(sections != 0 && self.size(dim) % sections == 0, "torch.{} attempted to split along dimension {}, but "
              "the size of the dimension {} is not divisible by the split_size {}!", name, dim, self.size(dim),
              sections);
  return ember::tensor_split(self, sections, dim);
}
}  // namespace

std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  return split_in_sections(self, sections, "hsplit", 1, self.dim() == 1 ? 0 : 1);
}
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) {
  return ember::tensor_split(self, indices, split_dim(self, "hsplit", 1, self.dim() == 1 ? 0 : 1));
}
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) { return split_in_sections(self, sections, "vsplit", 2, 0); }
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) {
  return ember::tensor_split(self, indices, split_dim(self, "vsplit", 2, 0));
}
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) { return split_in_sections(self, sections, "dsplit", 3, 2); }
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) {
  return ember::tensor_split(self, indices, split_dim(self, "dsplit", 3, 2));
}

// The elements at flat (row-major) positions; negative positions count from the end.
Tensor take(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(index.scalar_type() == ScalarType::Long, "take(): Expected a long tensor for index, but got {}",
              c10::toString(index.scalar_type()));
  check_same_device("take", self, index);
  const int64_t n = self.numel();
  const Tensor flat_index = index.reshape({-1});
  if (flat_index.numel() > 0 && !self.is_meta()) {
    const int64_t lowest = flat_index.min().item().toLong(), highest = flat_index.max().item().toLong();
    EMBER_CHECK_INDEX(lowest >= -n && highest < n, "take(): index {} out of range for tensor of size {}.",
                      lowest < -n ? lowest : highest, c10::str_sizes(self.sizes()));
  }
  const Tensor wrapped = ember::where(flat_index.lt(0), flat_index + n, flat_index);
  return self.reshape({-1}).index_select(0, wrapped).reshape(index.sizes());
}

// Writes source at flat (row-major) positions of self, as take reads them;
// with accumulate, repeated positions add up.
Tensor put_(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  EMBER_CHECK(index.scalar_type() == ScalarType::Long, "put_(): Expected a long tensor for index, but got {}",
              c10::toString(index.scalar_type()));
  EMBER_CHECK(self.scalar_type() == source.scalar_type(),
              "put_(): self and source expected to have the same dtype, but got self.dtype = {} and source.dtype = {}",
              c10::toString(self.scalar_type()), c10::toString(source.scalar_type()));
  check_same_device("put_", self, index);
  check_same_device("put_", self, source);
  EMBER_CHECK_INDEX(source.numel() == index.numel(),
                    "put_(): Expected source and index to have the same number of elements, but got source.numel() = "
                    "{}, index.numel() = {}", source.numel(), index.numel());
  EMBER_CHECK_INDEX(self.numel() > 0 || index.numel() == 0, "put_(): Tried to put elements into an empty tensor");
  check_no_internal_overlap(self);
  if (index.numel() == 0) return self;
  const int64_t n = self.numel();
  const Tensor flat_index = index.reshape({-1});
  if (!self.is_meta() && !index.is_meta()) {
    const int64_t lowest = flat_index.min().item().toLong(), highest = flat_index.max().item().toLong();
    EMBER_CHECK_INDEX(lowest >= -n && highest < n, "put_(): out of range: tried to access index {} on a tensor of {} "
                      "elements.", lowest < -n ? lowest : highest, n);
  }
  const std::vector<std::optional<Tensor>> positions = {ember::where(flat_index.lt(0), flat_index + n, flat_index)};
  // A flat view where self's strides allow one, else a flat copy written back.
  const Tensor flat = self.reshape({-1});
  flat.index_put_(positions, source.reshape({-1}), accumulate);
  if (!flat.is_alias_of(self)) self.copy_(flat.view(self.sizes()));
  return self;
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  return self.clone().put_(index, source, accumulate);
}

// The positions of the nonzero elements, one row each (nonzero's result).
Tensor argwhere(const Tensor& self) { return ember::nonzero(self); }

std::vector<Tensor> split(const Tensor& self, IntArrayRef split_size, int64_t dim) {
  return ember::split_with_sizes(self, split_size, dim);
}

// ---- index_select / gather / scatter ----------------------------------------------

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  EMBER_CHECK(self.dim() > 0 || index.numel() <= 1,
              "index_select(): Index to scalar can have only 1 value, got {} value(s)", index.numel());
  dim = maybe_wrap_dim(dim, self.dim());
  const Tensor idx = long_contiguous(index.reshape({-1}), "index_select");
  std::vector<int64_t> shape = self.sizes().vec();
  if (self.dim() > 0) shape[dim] = idx.numel();
  Tensor out = ember::empty(shape, self.dtype(), self.device());
  if (self.is_meta() || out.numel() == 0) return out;
  const Tensor src = self.contiguous().resolve_conj().resolve_neg();
  const int64_t size = self.dim() > 0 ? self.size(dim) : 1;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.size(d);
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  const int64_t* ip = idx.data_ptr<int64_t>();
  const int64_t n = idx.numel();
  for (int64_t j = 0; j < n; ++j) EMBER_CHECK_INDEX(ip[j] >= 0 && ip[j] < size, "index out of range in self");
  const size_t row_bytes = static_cast<size_t>(inner) * self.element_size();
  const char* s = static_cast<const char*>(src.data_ptr());
  char* o = static_cast<char*>(out.data_ptr());
  parallel_for(0, outer * n, std::max<int64_t>(1, 65536 / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t i = k / n, j = k % n;
      const int64_t row = ip[j] < 0 ? ip[j] + size : ip[j];
      std::memcpy(o + static_cast<size_t>(k) * row_bytes, s + static_cast<size_t>(i * size + row) * row_bytes,
                  row_bytes);
    }
  });
  return out;
}

namespace {

// Walks every position of `index` (any strides), calling f(position in
// index order, offset of the same coordinates in `other` except along
// `dim`, value of index there).
template <typename F>
void for_each_index(const Tensor& index, const Tensor& other, int64_t dim, F f) {
  const Tensor idx = index.to(ScalarType::Long).contiguous();  // check_gather_arguments checked the dtype
  const int64_t nd = index.dim();
  std::vector<int64_t> counter(nd, 0);
  const int64_t* ip = idx.data_ptr<int64_t>();
  const int64_t n = idx.numel();
  for (int64_t pos = 0; pos < n; ++pos) {
    int64_t offset = 0;
    for (int64_t d = 0; d < nd; ++d)
      if (d != dim) offset += counter[d] * other.stride(d);
    f(pos, offset, ip[pos], counter);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++counter[d] < index.size(d)) break;
      counter[d] = 0;
    }
  }
}

// Before the Meta early return, so that meta tensors are checked the same way.
void check_gather_arguments(const Tensor& self, int64_t dim, const Tensor& index, const char* name) {
  EMBER_CHECK(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int,
              "{}(): Expected dtype int64 for index", name);
  EMBER_CHECK(index.dim() == self.dim() || (self.dim() == 0 && index.dim() <= 1),
              "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t d = 0; d < index.dim(); ++d) {
    EMBER_CHECK(d == dim || index.size(d) <= self.size(d),
                "Size does not match at dimension {} expected index {} to be smaller than self {} apart from "
                "dimension {}",
                d, str_sizes(index.sizes()), str_sizes(self.sizes()), dim);
  }
}

}  // namespace

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  dim = maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  check_gather_arguments(self, dim, index, "gather");
  Tensor out = ember::empty(index.sizes(), self.dtype(), self.device());
  if (self.is_meta() || out.numel() == 0) return out;
  const Tensor src = self.resolve_conj().resolve_neg();
  const int64_t size = self.dim() > 0 ? self.size(dim) : 1;
  const int64_t dim_stride = self.dim() > 0 ? src.stride(dim) : 0;
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = static_cast<const T*>(src.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    for_each_index(index, src, dim, [&](int64_t pos, int64_t offset, int64_t i, const std::vector<int64_t>&) {
      EMBER_CHECK(i >= 0 && i < size, "index {} is out of bounds for dimension {} with size {}", i, dim, size);
      o[pos] = s[offset + i * dim_stride];
    });
  });
  return out;
}

namespace {

// torch's names, with its undocumented "max"/"min" for amax/amin.
ScatterReduce parse_scatter_reduce(std::string_view reduce, const char* op) {
  if (reduce == "sum") return ScatterReduce::Sum;
  if (reduce == "prod") return ScatterReduce::Prod;
  if (reduce == "mean") return ScatterReduce::Mean;
  if (reduce == "amax" || reduce == "max") return ScatterReduce::Amax;
  if (reduce == "amin" || reduce == "min") return ScatterReduce::Amin;
  EMBER_CHECK(false, "{}(): reduce argument must be either sum, prod, mean, amax or amin, got {}", op, reduce);
  return ScatterReduce::Assign;
}

// scatter(reduce=...)'s older names: "add" and "multiply".
ScatterReduce parse_legacy_scatter_reduce(std::string_view reduce) {
  if (reduce == "add") return ScatterReduce::Sum;
  if (reduce == "multiply") return ScatterReduce::Prod;
  EMBER_CHECK(false, "scatter(): reduce argument must be either add or multiply, got {}", reduce);
  return ScatterReduce::Assign;
}

const char* scatter_reduce_dtype_error(ScatterReduce r, ScalarType t) {
  if (r == ScatterReduce::Mean && t == ScalarType::Bool) return "mean";
  if ((r == ScatterReduce::Amax || r == ScatterReduce::Amin) && c10::isComplexType(t))
    return r == ScatterReduce::Amax ? "amax" : "amin";
  return nullptr;
}

Tensor scatter_impl(const char* name, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    ScatterReduce reduce, bool include_self, bool inplace) {
  dim = maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  check_gather_arguments(self, dim, index, name);
  const bool scalar_src = src.unsafeGetTensorImpl()->is_wrapped_number();
  if (!scalar_src) {
    EMBER_CHECK(src.dtype() == self.dtype(), "{}(): Expected self.dtype to be equal to src.dtype", name);
    EMBER_CHECK(src.dim() == index.dim(), "Index tensor must have the same number of dimensions as src tensor");
    for (int64_t d = 0; d < index.dim(); ++d) {
      EMBER_CHECK(index.size(d) <= src.size(d),
                  "Expected index {} to be no larger than self {} apart from dimension {} and to be no larger size "
                  "than src {}",
                  str_sizes(index.sizes()), str_sizes(self.sizes()), dim, str_sizes(src.sizes()));
    }
  }
  if (const char* what = scatter_reduce_dtype_error(reduce, self.scalar_type())) {
    EMBER_CHECK_NOT_IMPLEMENTED(false, "{}(): reduce '{}' is not implemented for '{}'", name, what,
                                c10::toString(self.scalar_type()));
  }
  Tensor out = inplace ? self : self.clone();
  if (self.is_meta() || index.numel() == 0) return out;
  const Tensor values = src.to(self.dtype()).contiguous();
  const int64_t size = self.dim() > 0 ? self.size(dim) : 1;
  const Tensor target = out.is_contiguous() ? out : out.contiguous();
  const int64_t dim_stride = self.dim() > 0 ? target.stride(dim) : 0;
  // Every index is checked before anything is written, so a bad one leaves self as it was.
  for_each_index(index, target, dim, [&](int64_t, int64_t, int64_t i, const std::vector<int64_t>&) {
    EMBER_CHECK(i >= 0 && i < size, "{}(): index {} is out of bounds for dimension {} with size {}", name, i,
                dim, size);
  });
  const bool mean = reduce == ScatterReduce::Mean;
  // mean: the values per slot, counted as they are folded in (target is contiguous, as counts).
  const Tensor counts = mean ? ember::full(target.sizes(), include_self ? 1 : 0, ScalarType::Long, target.device())
                             : Tensor();
  int64_t* count = mean ? counts.data_ptr<int64_t>() : nullptr;
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* t = static_cast<T*>(target.data_ptr());
    const T* v = static_cast<const T*>(values.data_ptr());
    if (!include_self && reduce != ScatterReduce::Assign) {
      const T start = reduce_identity<T>(reduce);
      for_each_index(index, target, dim, [&](int64_t, int64_t offset, int64_t i, const std::vector<int64_t>&) {
        t[offset + i * dim_stride] = start;
      });
    }
    for_each_index(index, target, dim, [&](int64_t, int64_t offset, int64_t i, const std::vector<int64_t>& coord) {
      int64_t vpos = 0;
      if (!scalar_src) {
        for (size_t d = 0; d < coord.size(); ++d) vpos += coord[d] * values.stride(static_cast<int64_t>(d));
      }
      fold(t[offset + i * dim_stride], v[vpos], reduce);
      if (mean) ++count[offset + i * dim_stride];
    });
  });
  if (mean) {
    // Slots nothing reached keep their value; integers divide with floor, as torch's mean does.
    counts.clamp_min_(1);
    if (c10::isIntegralType(self.scalar_type(), false)) {
      target.div_(counts, "floor");
    } else {
      target.div_(counts);
    }
  }
  if (!target.is_same(out)) out.copy_(target);
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}

}  // namespace

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter", self, dim, index, src, ScatterReduce::Assign, true, false);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_", self, dim, index, src, ScatterReduce::Assign, true, true);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_impl("scatter", self, dim, index, wrapped_scalar_tensor(value), ScatterReduce::Assign, true, false);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_impl("scatter_", self, dim, index, wrapped_scalar_tensor(value), ScatterReduce::Assign, true, true);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_add", self, dim, index, src, ScatterReduce::Sum, true, false);
}
Tensor scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_add_", self, dim, index, src, ScatterReduce::Sum, true, true);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return scatter_impl("scatter", self, dim, index, src, parse_legacy_scatter_reduce(reduce), true, false);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return scatter_impl("scatter_", self, dim, index, src, parse_legacy_scatter_reduce(reduce), true, true);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return scatter_impl("scatter", self, dim, index, wrapped_scalar_tensor(value), parse_legacy_scatter_reduce(reduce),
                      true, false);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return scatter_impl("scatter_", self, dim, index, wrapped_scalar_tensor(value), parse_legacy_scatter_reduce(reduce),
                      true, true);
}
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  return scatter_impl("scatter_reduce", self, dim, index, src, parse_scatter_reduce(reduce, "scatter_reduce"),
                      include_self, false);
}
Tensor scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       std::string_view reduce, bool include_self) {
  return scatter_impl("scatter_reduce_", self, dim, index, src, parse_scatter_reduce(reduce, "scatter_reduce_"),
                      include_self, true);
}
Tensor scatter_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self, const Tensor& out) {
  return resize_out(out, ember::scatter_reduce(self, dim, index, src, reduce, include_self));
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_fill_ only supports boolean masks, but got mask with dtype {}",
              c10::toString(mask.dtype()));
  return ember::where(mask, ember::full({}, value, self.dtype(), self.device()), self);
}
Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  EMBER_CHECK(infer_size(self.sizes(), mask.sizes(), "masked_fill_") == self.sizes().vec(),
              "masked_fill_: mask of shape {} cannot be broadcast to the tensor of shape {}", str_sizes(mask.sizes()),
              str_sizes(self.sizes()));
  return self.copy_(ember::masked_fill(self, mask, value));
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
              value.dim());
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_fill_ only supports boolean masks, but got mask with dtype {}",
              c10::toString(mask.dtype()));
  // Through where() with the tensor itself (not value.item()), so that the
  // value gets its gradient.
  return ember::where(mask, value.to(self.dtype()), self);
}
Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return self.copy_(ember::masked_fill(self, mask, value));
}

Tensor nonzero(const Tensor& self) {
  EMBER_CHECK(!self.is_meta(), "nonzero is not supported for meta tensors: its output size depends on the data");
  const Tensor x = self.contiguous().resolve_conj().resolve_neg();
  std::vector<int64_t> hits;
  c10::visit_scalar_type(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(x.data_ptr());
    for (int64_t i = 0; i < x.numel(); ++i)
      if (c10::convert<bool>(p[i])) hits.push_back(i);
  });
  const int64_t nd = self.dim();
  Tensor out = ember::empty({static_cast<int64_t>(hits.size()), nd}, ScalarType::Long);
  int64_t* o = out.data_ptr<int64_t>();
  for (size_t h = 0; h < hits.size(); ++h) {
    int64_t rest = hits[h];
    for (int64_t d = nd - 1; d >= 0; --d) {
      o[h * nd + d] = rest % self.size(d);
      rest /= self.size(d);
    }
  }
  return out;
}

// take_along_dim: gather with self and indices broadcast against each other
// everywhere but along dim (or both flattened without a dim).
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.scalar_type() == ScalarType::Long,
              "torch.take_along_dim(): dtype of indices should be Long but got {}",
              c10::toString(indices.scalar_type()));
  EMBER_CHECK(self.device() == indices.device(), "torch.take_along_dim(): expected input and indices on the same "
              "device, got {} and {}", self.device().str(), indices.device().str());
  if (!dim) return self.reshape({-1}).gather(0, indices.reshape({-1}));
  const int64_t d = maybe_wrap_dim(*dim, std::max<int64_t>(self.dim(), 1));
  EMBER_CHECK(self.dim() == indices.dim(), "torch.take_along_dim(): input and indices should have the same number "
              "of dimensions, but got {} dimensions for input, and {} dimensions for indices", self.dim(),
              indices.dim());
  if (self.dim() == 0) return self.reshape({1}).gather(0, indices.reshape({1})).reshape({});
  std::vector<int64_t> self_sizes = self.sizes().vec();
  self_sizes[d] = indices.size(d);
  std::vector<int64_t> shape = infer_size(self_sizes, indices.sizes(), "take_along_dim");
  const Tensor index = indices.expand(shape);
  shape[d] = self.size(d);
  return self.expand(shape).gather(d, index);
}

Tensor take_along_dim_out(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim, const Tensor& out) {
  return resize_out(out, ember::take_along_dim(self, indices, dim));
}

// ---- advanced indexing ----------------------------------------------------------------

namespace {

// The shared front of index and index_put_: bool masks become long
// indices, the index tensors broadcast to one shape, and the indexed dims
// are moved to the front of `self`.
struct AdvancedIndex {
  Tensor src;                        // self with indexed dims first (a view)
  std::vector<Tensor> indices;       // broadcast long indices, one per indexed dim
  std::vector<int64_t> index_shape;  // their common shape
  int64_t nindexed = 0;
  bool adjacent = true;              // indexed dims contiguous: result dims go where they were
  int64_t first = 0;                 // first indexed dim of self
};

AdvancedIndex prepare(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  EMBER_CHECK_INDEX(static_cast<int64_t>(indices.size()) <= self.dim(),
                    "too many indices for tensor of dimension {} (got {})", self.dim(), indices.size());
  // Expand bool masks: one mask over k dims becomes k long index tensors.
  std::vector<std::optional<Tensor>> expanded;
  for (const auto& idx : indices) {
    if (idx && idx->defined() && (idx->dtype() == ScalarType::Bool || idx->dtype() == ScalarType::Byte)) {
      const int64_t d0 = static_cast<int64_t>(expanded.size());
      for (int64_t k = 0; k < idx->dim(); ++k) {
        EMBER_CHECK_INDEX(idx->size(k) == self.size(d0 + k),
                          "The shape of the mask {} at index {} does not match the shape of the indexed tensor {} at "
                          "index {}",
                          str_sizes(idx->sizes()), k, str_sizes(self.sizes()), d0 + k);
      }
      const Tensor nz = ember::nonzero(*idx);
      for (int64_t k = 0; k < idx->dim(); ++k) expanded.push_back(nz.select(1, k));
    } else if (idx && idx->defined()) {
      EMBER_CHECK_INDEX(c10::isIntegralType(idx->dtype(), false),
                        "tensors used as indices must be long, int, byte or bool tensors");
      expanded.push_back(idx->to(ScalarType::Long));
    } else {
      expanded.push_back(std::nullopt);
    }
  }
  AdvancedIndex a;
  std::vector<int64_t> order, rest;
  int64_t last = -2;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const bool has = d < static_cast<int64_t>(expanded.size()) && expanded[d];
    if (has) {
      if (a.nindexed == 0) a.first = d;
      if (last >= 0 && d != last + 1) a.adjacent = false;
      last = d;
      ++a.nindexed;
      order.push_back(d);
      a.index_shape = a.indices.empty() ? expanded[d]->sizes().vec()
                                        : infer_size(a.index_shape, expanded[d]->sizes(), "index");
      a.indices.push_back(*expanded[d]);
    } else {
      rest.push_back(d);
    }
  }
  for (Tensor& t : a.indices) t = t.expand(a.index_shape).contiguous();
  for (size_t k = 0; k < a.indices.size(); ++k) {
    const int64_t size = self.size(order[k]);
    const int64_t* p = a.indices[k].data_ptr<int64_t>();
    for (int64_t i = 0; i < a.indices[k].numel(); ++i) checked_index(p[i], size, order[k]);
  }
  order.insert(order.end(), rest.begin(), rest.end());
  a.src = self.permute(order);
  return a;
}

// Row-major linear position of each index tuple within the indexed dims.
Tensor linear_positions(const AdvancedIndex& a) {
  const int64_t n = c10::checked_numel(a.index_shape);
  Tensor flat = ember::zeros({n}, ScalarType::Long);
  int64_t* f = flat.data_ptr<int64_t>();
  int64_t scale = 1;
  for (int64_t k = a.nindexed - 1; k >= 0; --k) {
    const int64_t size = a.src.size(k);
    const int64_t* p = a.indices[k].data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) f[i] += (p[i] < 0 ? p[i] + size : p[i]) * scale;
    scale *= size;
  }
  return flat;
}

}  // namespace

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const AdvancedIndex a = prepare(self, indices);
  if (a.nindexed == 0) return self;
  std::vector<int64_t> rest_shape(a.src.sizes().begin() + a.nindexed, a.src.sizes().end());
  int64_t indexed_numel = 1;
  for (int64_t k = 0; k < a.nindexed; ++k) indexed_numel *= a.src.size(k);
  std::vector<int64_t> merged{indexed_numel};
  merged.insert(merged.end(), rest_shape.begin(), rest_shape.end());
  Tensor gathered = ember::index_select(a.src.reshape(merged), 0, linear_positions(a));
  std::vector<int64_t> shape = a.index_shape;
  shape.insert(shape.end(), rest_shape.begin(), rest_shape.end());
  Tensor result = gathered.view(shape);
  if (a.adjacent && a.first > 0) {
    // The index dims replace the indexed dims in place: move them after the leading dims.
    const int64_t nb = static_cast<int64_t>(a.index_shape.size());
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < a.first; ++d) perm.push_back(nb + d);
    for (int64_t d = 0; d < nb; ++d) perm.push_back(d);
    for (int64_t d = nb + a.first; d < result.dim(); ++d) perm.push_back(d);
    result = result.permute(perm).contiguous();
  }
  return result;
}

Tensor index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                  bool accumulate) {
  const AdvancedIndex a = prepare(self, indices);
  if (a.nindexed == 0) return accumulate ? self.add_(values) : self.copy_(values);
  std::vector<int64_t> rest_shape(a.src.sizes().begin() + a.nindexed, a.src.sizes().end());
  // The values as the result of index() would be shaped, then one row per index tuple.
  std::vector<int64_t> target_shape = a.index_shape;
  if (a.adjacent && a.first > 0) {
    std::vector<int64_t> lead(a.src.sizes().begin() + a.nindexed, a.src.sizes().begin() + a.nindexed + a.first);
    target_shape.insert(target_shape.begin(), lead.begin(), lead.end());
    target_shape.insert(target_shape.end(), a.src.sizes().begin() + a.nindexed + a.first, a.src.sizes().end());
  } else {
    target_shape.insert(target_shape.end(), rest_shape.begin(), rest_shape.end());
  }
  Tensor v = values.to(self.dtype()).expand(target_shape);
  if (a.adjacent && a.first > 0) {
    const int64_t nb = static_cast<int64_t>(a.index_shape.size());
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < nb; ++d) perm.push_back(a.first + d);
    for (int64_t d = 0; d < a.first; ++d) perm.push_back(d);
    for (int64_t d = a.first + nb; d < v.dim(); ++d) perm.push_back(d);
    v = v.permute(perm);
  }
  std::vector<int64_t> rows{c10::checked_numel(a.index_shape)};
  rows.insert(rows.end(), rest_shape.begin(), rest_shape.end());
  const Tensor v_rows = v.contiguous().reshape(rows);
  const Tensor flat = linear_positions(a);
  const int64_t* f = flat.data_ptr<int64_t>();
  // Offsets of each indexed position in self's storage, for the row writes.
  std::vector<int64_t> strides(a.src.strides().begin(), a.src.strides().begin() + a.nindexed);
  std::vector<int64_t> sizes(a.src.sizes().begin(), a.src.sizes().begin() + a.nindexed);
  auto offset_of = [&](int64_t linear) {
    int64_t off = 0;
    for (int64_t k = a.nindexed - 1; k >= 0; --k) {
      off += (linear % sizes[k]) * strides[k];
      linear /= sizes[k];
    }
    return off;
  };
  std::vector<int64_t> rest_strides(a.src.strides().begin() + a.nindexed, a.src.strides().end());
  // Rows that are one dense block of self (always so for scalars) are written
  // by a plain loop; strided rows go through a view per row.
  const int64_t row_numel = c10::checked_numel(rest_shape);
  if (IntArrayRef(rest_strides) == IntArrayRef(c10::contiguous_strides(rest_shape)) && !self.is_conj() && !self.is_neg()) {
    c10::visit_scalar_type(self.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* base = static_cast<T*>(self.data_ptr());
      const T* src = static_cast<const T*>(v_rows.data_ptr());
      for (int64_t i = 0; i < flat.numel(); ++i) {
        T* row = base + offset_of(f[i]);
        const T* values_row = src + i * row_numel;
        for (int64_t j = 0; j < row_numel; ++j) fold(row[j], values_row[j], accumulate ? ScatterReduce::Sum : ScatterReduce::Assign);
      }
    });
    self.unsafeGetTensorImpl()->bump_version();
    return self;
  }
  for (int64_t i = 0; i < flat.numel(); ++i) {
    Tensor row = ember::as_strided(self, rest_shape, rest_strides, self.storage_offset() + offset_of(f[i]));
    if (accumulate) {
      row.add_(v_rows.select(0, i));
    } else {
      row.copy_(v_rows.select(0, i));
    }
  }
  return self;
}

// ---- advanced indexing on meta tensors ------------------------------------------------

namespace {

// Where index()'s result dims come from, computed from the index tensors'
// shapes alone: what the meta kernels (and so the lazy device) need. A
// boolean mask's result size depends on its values: an error naming `op`.
struct IndexGeometry {
  std::vector<int64_t> index_shape;  // the index tensors' broadcast shape
  int64_t nindexed = 0;
  int64_t first = 0;     // first indexed dim
  bool adjacent = true;  // indexed dims contiguous: the result's index dims go where they were
};

IndexGeometry index_geometry(const char* op, const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  EMBER_CHECK_INDEX(static_cast<int64_t>(indices.size()) <= self.dim(),
                    "too many indices for tensor of dimension {} (got {})", self.dim(), indices.size());
  IndexGeometry g;
  int64_t last = -2;
  for (int64_t d = 0; d < static_cast<int64_t>(indices.size()); ++d) {
    const auto& idx = indices[d];
    if (!idx || !idx->defined()) continue;
    EMBER_CHECK_NOT_IMPLEMENTED(idx->dtype() != ScalarType::Bool && idx->dtype() != ScalarType::Byte,
                                "{}: a boolean mask index on a meta tensor: the result's size depends on the mask's "
                                "values", op);
    EMBER_CHECK_INDEX(c10::isIntegralType(idx->dtype(), false),
                      "tensors used as indices must be long, int, byte or bool tensors");
    if (g.nindexed == 0) g.first = d;
    if (last >= 0 && d != last + 1) g.adjacent = false;
    last = d;
    g.index_shape = g.nindexed == 0 ? idx->sizes().vec() : infer_size(g.index_shape, idx->sizes(), "index");
    ++g.nindexed;
  }
  return g;
}

// index()'s result shape for `self` indexed so.
std::vector<int64_t> indexed_shape(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                                   const IndexGeometry& g) {
  std::vector<int64_t> shape;
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const bool indexed = d < static_cast<int64_t>(indices.size()) && indices[d] && indices[d]->defined();
    if (!indexed) rest.push_back(self.size(d));
  }
  if (g.adjacent) {
    shape.assign(self.sizes().begin(), self.sizes().begin() + g.first);
    shape.insert(shape.end(), g.index_shape.begin(), g.index_shape.end());
    shape.insert(shape.end(), rest.begin() + g.first, rest.end());
  } else {
    shape = g.index_shape;
    shape.insert(shape.end(), rest.begin(), rest.end());
  }
  return shape;
}

}  // namespace

Tensor index_meta(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const IndexGeometry g = index_geometry("index", self, indices);
  if (g.nindexed == 0) return ember::empty_like(self);
  return ember::empty(indexed_shape(self, indices, g), self.scalar_type(), self.device());
}

Tensor index_put_meta_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                       bool /*accumulate*/) {
  const IndexGeometry g = index_geometry("index_put_", self, indices);
  const std::vector<int64_t> target = g.nindexed == 0 ? self.sizes().vec() : indexed_shape(self, indices, g);
  values.expand(target);  // the error the CPU kernel gives for values that do not broadcast
  return self;
}

// The mask and self broadcast together; the selection is boolean indexing.
Tensor masked_select(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask, got {}",
              c10::toString(mask.dtype()));
  EMBER_CHECK(self.device() == mask.device(), "masked_select: expected self and mask on the same device, got {} and {}",
              self.device().str(), mask.device().str());
  std::vector<Tensor> both = ember::broadcast_tensors({self, mask});
  if (both[0].dim() == 0) both = {both[0].reshape({1}), both[1].reshape({1})};  // 0-d: 0 or 1 element
  return ember::index(both[0], {std::optional<Tensor>(both[1])});
}

// ---- index_add / index_copy / index_fill -----------------------------------------------
// self[..., index[i], ...] along dim takes source[..., i, ...] (added, copied)
// or a value: a scatter with the index spread over the other dims.

namespace {

struct IndexAlongDim {
  int64_t dim;
  Tensor index;  // int64, 1-d, every entry in range
  Tensor dst;    // self, 1-d where self is 0-d
};

IndexAlongDim check_index_along_dim(const char* op, const Tensor& self, int64_t dim, const Tensor& index) {
  dim = maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  EMBER_CHECK_INDEX(index.dim() <= 1, "{}(): Index is supposed to be a vector", op);
  const Tensor idx = long_contiguous(index.reshape({-1}), op);
  EMBER_CHECK(self.device() == idx.device(), "{}(): expected self and index on the same device, got {} and {}", op,
              self.device().str(), idx.device().str());
  const Tensor dst = self.dim() == 0 ? self.reshape({1}) : self;
  if (idx.is_cpu() && idx.numel() > 0) {  // values on the host only (not meta, lazy or device memory)
    const int64_t* ip = idx.data_ptr<int64_t>();
    for (int64_t j = 0; j < idx.numel(); ++j) {
      EMBER_CHECK_INDEX(ip[j] >= 0 && ip[j] < dst.size(dim), "{}(): index {} is out of bounds for dimension {} with "
                                                             "size {}", op, ip[j], dim, dst.size(dim));
    }
  }
  return {dim, idx, dst};
}

// source as the scatter's src: same dtype and device as self, and self's shape
// except along dim, where it has one slice per index.
Tensor check_source_along_dim(const char* op, const IndexAlongDim& a, const Tensor& source) {
  EMBER_CHECK(a.dst.scalar_type() == source.scalar_type(), "{}(): self ({}) and source ({}) must have the same "
              "scalar type", op, c10::toString(a.dst.scalar_type()), c10::toString(source.scalar_type()));
  EMBER_CHECK(a.dst.device() == source.device(), "{}(): expected self and source on the same device, got {} and {}",
              op, a.dst.device().str(), source.device().str());
  const Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  EMBER_CHECK(src.dim() == a.dst.dim(), "{}(): source and self must have the same number of dimensions, got {} and {}",
              op, source.dim(), a.dst.dim());
  EMBER_CHECK(a.index.numel() == src.size(a.dim), "{}(): Number of indices ({}) should be equal to source.size(dim) "
              "({})", op, a.index.numel(), src.size(a.dim));
  for (int64_t d = 0; d < a.dst.dim(); ++d) {
    EMBER_CHECK(d == a.dim || src.size(d) == a.dst.size(d), "{}(): source and self must match in dimension {} "
                "(except along dim {}), got {} and {}", op, d, a.dim, src.size(d), a.dst.size(d));
  }
  return src;
}

// The index spread to a scatter index: index[i] at every position of slice i.
Tensor spread_index(const IndexAlongDim& a) {
  std::vector<int64_t> spread(a.dst.dim(), 1), sizes = a.dst.sizes().vec();
  spread[a.dim] = sizes[a.dim] = a.index.numel();
  return a.index.reshape(spread).expand(sizes);
}

}  // namespace

Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  const IndexAlongDim a = check_index_along_dim("index_add_", self, dim, index);
  const Tensor src = check_source_along_dim("index_add_", a, source);
  const bool unit = alpha.isIntegral(false) ? alpha.toLong() == 1 : alpha.toDouble() == 1.0;
  a.dst.scatter_add_(a.dim, spread_index(a), unit ? src : ember::mul(src, alpha));
  return self;
}

Tensor index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const IndexAlongDim a = check_index_along_dim("index_copy_", self, dim, index);
  a.dst.scatter_(a.dim, spread_index(a), check_source_along_dim("index_copy_", a, source));
  return self;
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return self.clone().index_copy_(dim, index, source);
}

Tensor index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Tensor& out) {
  return resize_out(out, ember::index_copy(self, dim, index, source));
}

Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const IndexAlongDim a = check_index_along_dim("index_fill_", self, dim, index);
  a.dst.scatter_(a.dim, spread_index(a), value);
  return self;
}

// A 0-d tensor value: scattered as an expanded source, so that it gets the sum
// of the filled positions' gradients.
Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "index_fill_(): only supports a 0-dimensional value tensor, but got tensor with {} "
              "dimension(s).", value.dim());
  const IndexAlongDim a = check_index_along_dim("index_fill_", self, dim, index);
  const Tensor positions = spread_index(a);
  a.dst.scatter_(a.dim, positions, value.to(self.scalar_type()).expand(positions.sizes()));
  return self;
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.clone().index_fill_(dim, index, value);
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return self.clone().index_fill_(dim, index, value);
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return self.clone().index_add_(dim, index, source, alpha);
}

Tensor index_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                     const Tensor& out) {
  return resize_out(out, ember::index_add(self, dim, index, source, alpha));
}

Tensor index_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                     std::string_view reduce, bool include_self) {
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {}.", reduce);
  // Complex has products and means but no order (amax/amin), as in torch.
  const bool complex = c10::isComplexType(self.scalar_type());
  EMBER_CHECK_NOT_IMPLEMENTED(self.scalar_type() != ScalarType::Bool && (!complex || reduce == "prod" || reduce == "mean"),
                              "index_reduce(): {} is not implemented for '{}'", std::string(reduce),
                              c10::toString(self.scalar_type()));
  const IndexAlongDim a = check_index_along_dim("index_reduce_", self, dim, index);
  a.dst.scatter_reduce_(a.dim, spread_index(a), check_source_along_dim("index_reduce_", a, source), reduce,
                        include_self);
  return self;
}

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self) {
  return self.clone().index_reduce_(dim, index, source, reduce, include_self);
}

Tensor index_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                        std::string_view reduce, bool include_self, const Tensor& out) {
  return resize_out(out, ember::index_reduce(self, dim, index, source, reduce, include_self));
}

}  // namespace ember::native
