// View operations: each result aliases `self`'s storage with new geometry.

#include <aten/Functions.h>
#include <aten/core/ExpandUtils.h>
#include <aten/generated/NativeFunctions.h>

#include <algorithm>
#include <numeric>

namespace ember::native {

using c10::maybe_wrap_dim;
using c10::str_sizes;

namespace {

Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(self.storage(), self.dtype(), sizes, strides, storage_offset,
                                                   self.unsafeGetTensorImpl()->version_counter());
  impl->set_conj(self.is_conj());
  impl->set_neg(self.is_neg());
  return Tensor(std::move(impl));
}

// A view reading self's bytes as `dtype` (the conj bit belongs to complex
// values and does not carry over; the neg bit does).
Tensor make_dtype_view(const Tensor& self, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(self.storage(), dtype, sizes, strides, storage_offset,
                                                   self.unsafeGetTensorImpl()->version_counter());
  impl->set_neg(self.is_neg());
  return Tensor(std::move(impl));
}

// Replaces a single -1 in `shape` so that it holds `numel` elements.
c10::DimVector infer_size(IntArrayRef shape, int64_t numel) {
  c10::DimVector result(shape);
  int64_t known = 1;
  bool overflow = false;  // then no numel can match: the shape is invalid
  std::optional<size_t> infer_dim;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(!infer_dim, "only one dimension can be inferred");
      infer_dim = i;
    } else {
      EMBER_CHECK(shape[i] >= 0, "invalid shape dimension {}", shape[i]);
      overflow |= __builtin_mul_overflow(known, shape[i], &known);
    }
  }
  const bool ok = !overflow && (infer_dim ? (known > 0 && numel % known == 0) : numel == known);
  EMBER_CHECK(ok, "shape '{}' is invalid for input of size {}", str_sizes(shape), numel);
  if (infer_dim) result[*infer_dim] = numel / known;
  return result;
}

// Strides that let `new_shape` view memory laid out as (old_shape, old_strides),
// or nullopt when some new dim would span two non-mergeable old dims.
std::optional<c10::DimVector> compute_view_strides(IntArrayRef old_shape, IntArrayRef old_strides,
                                                   IntArrayRef new_shape) {
  c10::DimVector new_strides(new_shape.size(), 1);
  if (old_shape.empty()) return new_strides;  // 0-d: every new dim has size 1
  const int64_t numel = c10::checked_numel(old_shape);
  if (numel == 0) {
    if (old_shape == new_shape) return c10::DimVector(old_strides);
    return c10::contiguous_strides(new_shape);
  }
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  // Walk old dims from the innermost, grouping runs that are contiguous with
  // each other ("chunks"); each chunk must be covered exactly by new dims.
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_shape[tensor_d];
    const bool chunk_ends = tensor_d == 0 || (old_shape[tensor_d - 1] != 1 &&
                                              old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
      new_strides[view_d] = view_numel * chunk_base_stride;
      view_numel *= new_shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (tensor_d > 0) {
      chunk_base_stride = old_strides[tensor_d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

}  // namespace

Tensor view(const Tensor& self, IntArrayRef sizes) {
  const c10::DimVector shape = infer_size(sizes, self.numel());
  const auto strides = compute_view_strides(self.sizes(), self.strides(), shape);
  EMBER_CHECK(strides.has_value(),
              "view size is not compatible with input tensor's size and stride (at least one dimension spans "
              "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, *strides, self.storage_offset());
}

// The bytes of self read as `dtype`: between sizes, the contiguous last
// dimension is split or merged by the ratio, so every element keeps its bytes.
Tensor view(const Tensor& self, ScalarType dtype) {
  if (dtype == self.scalar_type()) return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  EMBER_CHECK(!self.is_conj(), "torch.Tensor.view is not supported for conjugate view tensors when converting to a "
              "different dtype.");
  const int64_t from = static_cast<int64_t>(self.element_size());
  const int64_t to = static_cast<int64_t>(c10::elementSize(dtype));
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  int64_t offset = self.storage_offset();
  if (from != to) {
    const auto why = [&] { return fmt::format("to view {} as {} (different element sizes)",
                                              c10::toString(self.scalar_type()), c10::toString(dtype)); };
    EMBER_CHECK(self.dim() > 0, "self.dim() cannot be 0 {}", why());
    EMBER_CHECK(self.stride(-1) == 1, "self.stride(-1) must be 1 {}, but got {}", why(), self.stride(-1));
    const size_t last = sizes.size() - 1;
    if (from > to) {
      const int64_t ratio = from / to;
      sizes[last] *= ratio;
      for (size_t d = 0; d < last; ++d) strides[d] *= ratio;
      offset *= ratio;
    } else {
      const int64_t ratio = to / from;
      EMBER_CHECK(sizes[last] % ratio == 0, "self.size(-1) must be divisible by {} {}, but got {}", ratio, why(),
                  sizes[last]);
      EMBER_CHECK(offset % ratio == 0, "self.storage_offset() must be divisible by {} {}, but got {}", ratio, why(),
                  offset);
      for (size_t d = 0; d < last; ++d) {
        EMBER_CHECK(strides[d] % ratio == 0, "self.stride({}) must be divisible by {} {}, but got {}", d, ratio,
                    why(), strides[d]);
        strides[d] /= ratio;
      }
      sizes[last] /= ratio;
      offset /= ratio;
    }
  }
  return make_dtype_view(self, dtype, sizes, strides, offset);
}

Tensor view_as_real(const Tensor& self) {
  EMBER_CHECK(self.is_complex(), "view_as_real: view_as_real is only supported for complex tensors");
  EMBER_CHECK(!self.is_conj(), "view_as_real: view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
              "tensor so you can view it as real, use self.resolve_conj()");
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  for (int64_t& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  return make_dtype_view(self, c10::toRealValueType(self.scalar_type()), sizes, strides, self.storage_offset() * 2);
}

Tensor view_as_complex(const Tensor& self) {
  const ScalarType t = self.scalar_type();
  // Half would need complex32, which Ember does not have.
  EMBER_CHECK(t == ScalarType::Float || t == ScalarType::Double,
              "view_as_complex: view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: {}",
              c10::toString(t));
  EMBER_CHECK(self.dim() != 0, "view_as_complex: Input tensor must have one or more dimensions");
  EMBER_CHECK(self.size(-1) == 2, "view_as_complex: Tensor must have a last dimension of size 2");
  EMBER_CHECK(self.stride(-1) == 1, "view_as_complex: Tensor must have a last dimension with stride 1");
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 1);
  std::vector<int64_t> strides(self.strides().begin(), self.strides().end() - 1);
  for (int64_t& s : strides) {
    EMBER_CHECK(s % 2 == 0, "view_as_complex: Tensor must have a stride divisible by 2 for all but last dimension");
    s /= 2;
  }
  EMBER_CHECK(self.storage_offset() % 2 == 0, "view_as_complex: Tensor must have a storage_offset divisible by 2");
  return make_dtype_view(self, c10::toComplexType(t), sizes, strides, self.storage_offset() / 2);
}

Tensor _neg_view(const Tensor& self) {
  Tensor result = make_view(self, self.sizes(), self.strides(), self.storage_offset());
  result.unsafeGetTensorImpl()->set_neg(!self.is_neg());
  return result;
}

Tensor reshape(const Tensor& self, IntArrayRef sizes) {
  const c10::DimVector shape = infer_size(sizes, self.numel());
  // Through the view operator (not make_view): reshape is a composite, so
  // the view must be recorded by autograd like any other.
  if (compute_view_strides(self.sizes(), self.strides(), shape)) return ember::view(self, shape);
  // Not viewable, so `self` is not contiguous: contiguous() copies.
  return ember::view(ember::contiguous(self), shape);
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t n = self.dim();
  dim0 = maybe_wrap_dim(dim0, n);
  dim1 = maybe_wrap_dim(dim1, n);
  if (n == 0) return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  std::swap(sizes[dim0], sizes[dim1]);
  std::swap(strides[dim0], strides[dim1]);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor t(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is {}D", self.dim());
  return self.dim() < 2 ? ember::alias(self) : ember::transpose(self, 0, 1);
}


Tensor view_as(const Tensor& self, const Tensor& other) { return ember::view(self, other.sizes()); }

Tensor reshape_as(const Tensor& self, const Tensor& other) { return ember::reshape(self, other.sizes()); }

Tensor expand_as(const Tensor& self, const Tensor& other) { return ember::expand(self, other.sizes()); }

Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return ember::expand(self, size); }

std::vector<Tensor> broadcast_tensors(c10::ArrayRef<Tensor> tensors) {
  std::vector<int64_t> shape;
  for (size_t i = 0; i < tensors.size(); ++i) {
    shape = i == 0 ? tensors[i].sizes().vec() : ember::infer_size(shape, tensors[i].sizes(), "broadcast_tensors");
  }
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(ember::expand(t, shape));  // views, as torch returns
  return out;
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  const int64_t n = self.dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == n,
              "permute(): number of dimensions in the tensor input does not match the length of the desired "
              "ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
              n, dims.size());
  std::vector<int64_t> sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = maybe_wrap_dim(dims[i], n);
    EMBER_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self.size(d);
    strides[i] = self.stride(d);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor expand(const Tensor& self, IntArrayRef sizes, bool /*implicit*/) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  const int64_t tensor_dim = self.dim();
  EMBER_CHECK(ndim >= tensor_dim,
              "expand(size={}): the number of sizes provided ({}) must be greater or equal to the number of "
              "dimensions in the tensor ({})",
              str_sizes(sizes), ndim, tensor_dim);
  std::vector<int64_t> new_sizes(ndim), new_strides(ndim);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t offset = ndim - 1 - i;
    const int64_t d = tensor_dim - 1 - offset;
    const int64_t size = d >= 0 ? self.size(d) : 1;
    const int64_t stride = d >= 0 ? self.stride(d) : (i + 1 < ndim ? new_sizes[i + 1] * new_strides[i + 1] : 1);
    int64_t target = sizes[i];
    if (target == -1) {
      EMBER_CHECK(d >= 0, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {}",
                  i);
      target = size;
    }
    EMBER_CHECK(target >= 0, "Trying to create tensor with negative dimension {}: {}", target, str_sizes(sizes));
    if (size == target) {
      new_sizes[i] = size;
      new_strides[i] = stride;
    } else {
      EMBER_CHECK(size == 1,
                  "The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton dimension "
                  "{}.  Target sizes: {}.  Tensor sizes: {}",
                  target, size, i, str_sizes(sizes), str_sizes(self.sizes()));
      new_sizes[i] = target;
      new_strides[i] = 0;
    }
  }
  return make_view(self, new_sizes, new_strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self) {
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.size(d) == 1) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim());
  if (self.dim() == 0 || self.size(dim) != 1) return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim() + 1);
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  const int64_t stride = dim >= self.dim() ? 1 : sizes[dim] * strides[dim];
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  start_dim = maybe_wrap_dim(start_dim, self.dim());
  end_dim = maybe_wrap_dim(end_dim, self.dim());
  EMBER_CHECK(start_dim <= end_dim, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (self.dim() == 0) return ember::reshape(self, {1});
  if (start_dim == end_dim) return ember::alias(self);  // a new view, as in torch
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(self.size(d));
  int64_t merged = 1;
  for (int64_t d = start_dim; d <= end_dim; ++d) merged *= self.size(d);
  shape.push_back(merged);
  for (int64_t d = end_dim + 1; d < self.dim(); ++d) shape.push_back(self.size(d));
  return ember::reshape(self, shape);
}

// dim split into sizes (one of them may be -1: inferred), the inverse of flatten.
Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  EMBER_CHECK(self.dim() > 0, "unflatten: Dimension size must be non-empty (a 0-dim tensor has none)");
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t known = 1, inferred = -1;
  bool overflowed = false;  // then the sizes cannot multiply up to the dim's size
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK(inferred < 0, "unflatten: only one dimension can be inferred");
      inferred = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(sizes[i] >= 0, "unflatten: invalid size {} in sizes {}", sizes[i], str_sizes(sizes));
      overflowed |= __builtin_mul_overflow(known, sizes[i], &known);
    }
  }
  EMBER_CHECK(!overflowed,
              "unflatten: Provided sizes {} don't multiply up to the size of dim {} ({}) in the input tensor",
              str_sizes(sizes), dim, self.size(dim));
  std::vector<int64_t> split(sizes.begin(), sizes.end());
  if (inferred >= 0) {
    EMBER_CHECK(known != 0 && self.size(dim) % known == 0,
                "unflatten: Provided sizes {} don't multiply up to the size of dim {} ({}) in the input tensor",
                str_sizes(sizes), dim, self.size(dim));
    split[inferred] = self.size(dim) / known;
  } else {
    EMBER_CHECK(known == self.size(dim),
                "unflatten: Provided sizes {} don't multiply up to the size of dim {} ({}) in the input tensor",
                str_sizes(sizes), dim, self.size(dim));
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + dim);
  shape.insert(shape.end(), split.begin(), split.end());
  shape.insert(shape.end(), self.sizes().begin() + dim + 1, self.sizes().end());
  return self.view(shape);
}

Tensor ravel(const Tensor& self) { return self.reshape({-1}); }

// The conjugate transpose of the last two dims (a view).
Tensor adjoint(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor.");
  return self.transpose(-2, -1).conj();
}

Tensor as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> storage_offset) {
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  EMBER_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  EMBER_CHECK(offset >= 0, "Tensor: invalid storage offset {}", offset);
  for (int64_t s : strides) EMBER_CHECK(s >= 0, "as_strided: Negative strides are not supported at the moment, got strides: {}", str_sizes(strides));
  Tensor result = make_view(self, sizes, strides, offset);
  const size_t needed = result.unsafeGetTensorImpl()->required_storage_nbytes();
  EMBER_CHECK(self.is_meta() || needed <= self.storage().nbytes(),
              "setStorage: sizes {}, strides {}, storage offset {}, and itemsize {} requiring a storage size of {} "
              "are out of bounds for storage of size {}",
              str_sizes(sizes), str_sizes(strides), offset, self.element_size(), needed, self.storage().nbytes());
  return result;
}

// The checks and the geometry are as_strided's; only whose metadata changes differs.
Tensor as_strided_(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> storage_offset) {
  const Tensor view = native::as_strided(self, sizes, strides, storage_offset);
  self.unsafeGetTensorImpl()->set_sizes_and_strides(view.sizes(), view.strides(), view.storage_offset());
  self.unsafeGetTensorImpl()->bump_version();
  return self;
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  EMBER_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  dim = maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.size(dim);
  EMBER_CHECK_INDEX(index >= -size && index < size,
                    "select(): index {} out of range for tensor of size {} at dimension {}", index,
                    str_sizes(self.sizes()), dim);
  if (index < 0) index += size;
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  const int64_t offset = self.storage_offset() + index * strides[dim];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return make_view(self, sizes, strides, offset);
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start_opt, std::optional<int64_t> end_opt,
             int64_t step) {
  EMBER_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK_VALUE(step > 0, "slice step must be positive");
  dim = maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.size(dim);
  // Python slice semantics: negative bounds count from the end, then clamp.
  auto clamp_bound = [size](int64_t v) {
    if (v < 0) v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  const int64_t start = clamp_bound(start_opt.value_or(0));
  const int64_t end = std::max(start, clamp_bound(end_opt.value_or(size)));
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  const int64_t offset = self.storage_offset() + start * strides[dim];
  sizes[dim] = end == start ? 0 : (end - start - 1) / step + 1;  // without overflow for any step
  // A step past the end leaves at most one element, whose stride is never used.
  int64_t stepped = 0;
  if (!__builtin_mul_overflow(strides[dim], step, &stepped)) strides[dim] = stepped;
  return make_view(self, sizes, strides, offset);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK_INDEX(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(length >= 0, "narrow(): length must be non-negative.");
  dim = maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.size(dim);
  EMBER_CHECK_INDEX(start >= -size && start <= size,
                    "start out of range (expected to be in range of [{}, {}], but got {})", -size, size, start);
  if (start < 0) start += size;
  EMBER_CHECK(start <= size - length, "start ({}) + length ({}) exceeds dimension size ({}).", start, length, size);
  return ember::slice(self, dim, start, start + length, 1);
}

Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t dim = maybe_wrap_dim(dimension, self.dim());
  const int64_t dim_size = self.dim() == 0 ? 1 : self.size(dim);
  EMBER_CHECK(size <= dim_size, "maximum size for tensor at dimension {} is {} but size is {}", dim, dim_size, size);
  EMBER_CHECK(size >= 0, "size is {} but must be >= 0", size);
  EMBER_CHECK(step > 0, "step is {} but must be > 0", step);
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  if (self.dim() == 0) {
    return make_view(self, {size}, {1}, self.storage_offset());
  }
  sizes[dim] = (dim_size - size) / step + 1;
  const int64_t dim_stride = strides[dim];
  // A step past the end leaves one window, whose stride along dim is never used.
  int64_t stepped = 0;
  if (!__builtin_mul_overflow(dim_stride, step, &stepped)) strides[dim] = stepped;
  sizes.push_back(size);
  strides.push_back(dim_stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor alias(const Tensor& self) { return make_view(self, self.sizes(), self.strides(), self.storage_offset()); }

Tensor detach(const Tensor& self) { return make_view(self, self.sizes(), self.strides(), self.storage_offset()); }

Tensor conj(const Tensor& self) {
  if (!self.is_complex()) return self;
  Tensor result = make_view(self, self.sizes(), self.strides(), self.storage_offset());
  result.unsafeGetTensorImpl()->set_conj(!self.is_conj());
  return result;
}

Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  const int64_t nd = self.dim();
  source = c10::maybe_wrap_dim(source, nd);
  destination = c10::maybe_wrap_dim(destination, nd);
  std::vector<int64_t> order;
  for (int64_t d = 0; d < nd; ++d)
    if (d != source) order.push_back(d);
  order.insert(order.begin() + destination, source);
  return self.permute(order);
}

// repeat_interleave(repeats): index i repeated repeats[i] times, the
// indices the other two overloads select with.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave: repeats must be 1-d tensor, got {}-d", repeats.dim());
  EMBER_CHECK(repeats.dtype() == ScalarType::Long || repeats.dtype() == ScalarType::Int,
              "repeat_interleave: repeats has to be Long or Int tensor, got {}", c10::toString(repeats.dtype()));
  EMBER_CHECK(!repeats.is_meta(), "repeat_interleave: the result's size depends on the values of repeats, which a "
              "meta tensor does not have");
  const Tensor counts = repeats.to(ScalarType::Long).to(Device(DeviceType::CPU)).contiguous();
  const int64_t* count = counts.data_ptr<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < counts.numel(); ++i) {
    EMBER_CHECK(count[i] >= 0, "repeat_interleave: repeats can not be negative");
    total += count[i];
  }
  EMBER_CHECK(!output_size || *output_size == total,
              "repeat_interleave: output_size {} does not match the sum of repeats {}", output_size.value_or(0), total);
  Tensor indices = ember::empty({total}, ScalarType::Long, Device(DeviceType::CPU));
  int64_t* out = indices.data_ptr<int64_t>();
  for (int64_t i = 0, at = 0; i < counts.numel(); ++i) {
    for (int64_t r = 0; r < count[i]; ++r) out[at++] = i;
  }
  return indices.to(repeats.device());
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  const Tensor input = dim ? self : self.reshape({-1});
  const int64_t d = dim ? maybe_wrap_dim(*dim, self.dim()) : 0;
  const int64_t length = input.dim() == 0 ? 1 : input.size(d);
  Tensor counts = repeats;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.size(0) == 1)) {
    counts = repeats.reshape({1}).expand({length});
  }
  EMBER_CHECK(counts.dim() == 1 && counts.size(0) == length,
              "repeat_interleave: repeats must have the same size as input along dim, but got repeats.size(0) = {} "
              "and input.size({}) = {}", counts.dim() == 1 ? counts.size(0) : counts.numel(), d, length);
  return ember::index_select(input, d, ember::repeat_interleave(counts, output_size).to(self.device()));
}

Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, "repeat_interleave: repeats can not be negative");
  return ember::repeat_interleave(self, ember::scalar_tensor(repeats, ScalarType::Long, std::nullopt), dim,
                                  output_size);
}

}  // namespace ember::native
