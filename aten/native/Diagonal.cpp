// Diagonals of tensors: the diagonal view over any two dims, and the
// inverses that place values on a diagonal (diag_embed, diagflat).

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>

#include <algorithm>
#include <limits>

namespace ember::native {

using c10::maybe_wrap_dim;

// The elements (i, i + offset) of dims dim1 and dim2, as a view whose last dim
// runs along the diagonal (the other dims keep their order).
Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  EMBER_CHECK(self.dim() >= 2, "diagonal: expected a tensor of at least 2 dims, but got {}", self.dim());
  const int64_t d1 = maybe_wrap_dim(dim1, self.dim()), d2 = maybe_wrap_dim(dim2, self.dim());
  EMBER_CHECK(d1 != d2, "diagonal dimensions cannot be identical {}, {}", dim1, dim2);
  int64_t length, storage_offset = self.storage_offset();
  if (offset >= 0) {
    length = std::max<int64_t>(0, std::min(self.size(d1), self.size(d2) - offset));
    if (length > 0) storage_offset += offset * self.stride(d2);
  } else {
    length = std::max<int64_t>(0, std::min(self.size(d1) + offset, self.size(d2)));
    if (length > 0) storage_offset -= offset * self.stride(d1);
  }
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  sizes.push_back(length);
  strides.push_back(self.stride(d1) + self.stride(d2));
  return ember::as_strided(self, sizes, strides, storage_offset);
}

// A tensor of zeros whose diagonal (offset, dim1, dim2) holds self's last dim.
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  EMBER_CHECK(self.dim() >= 1, "diag_embed: expected a tensor of at least 1 dim, but got a 0-dim tensor");
  const int64_t out_dim = self.dim() + 1;
  const int64_t d1 = maybe_wrap_dim(dim1, out_dim), d2 = maybe_wrap_dim(dim2, out_dim);
  EMBER_CHECK(d1 != d2, "diagonal dimensions cannot be identical {}, {}", dim1, dim2);
  int64_t side = 0;
  EMBER_CHECK(offset != std::numeric_limits<int64_t>::min() && !__builtin_add_overflow(self.size(-1), offset < 0 ? -offset : offset, &side),
              "diag_embed: offset {} makes the result's size overflow", offset);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 1);
  shape.insert(shape.begin() + std::min(d1, d2), side);
  shape.insert(shape.begin() + std::max(d1, d2), side);
  // Zeros plus the values scattered onto the diagonal, so that autograd runs through it.
  Tensor result = ember::zeros(shape, self.scalar_type(), self.device());
  return ember::diagonal_scatter(result, self, offset, d1, d2);
}

Tensor diagflat(const Tensor& self, int64_t offset) { return ember::diag_embed(self.reshape({-1}), offset, 0, 1); }

// The tensors (0-, 1- or 2-d) placed along the diagonal of one matrix.
Tensor block_diag(c10::ArrayRef<Tensor> tensors) {
  if (tensors.empty()) return ember::empty({1, 0}, ScalarType::Float, c10::Device(c10::DeviceType::CPU));
  ScalarType dtype = tensors[0].scalar_type();
  int64_t rows = 0, cols = 0;
  std::vector<Tensor> blocks;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {} has {} "
                "dimensions", i, t.dim());
    EMBER_CHECK(t.device() == tensors[0].device(), "torch.block_diag: input tensors must all be on the same device. "
                "Input 0 is on device {} and input {} is on device {}", tensors[0].device().str(), i, t.device().str());
    dtype = c10::promoteTypes(dtype, t.scalar_type());
    blocks.push_back(t.dim() == 2 ? t : t.reshape({1, -1}));
    rows += blocks.back().size(0);
    cols += blocks.back().size(1);
  }
  Tensor result = ember::zeros({rows, cols}, dtype, tensors[0].device());
  int64_t r = 0, c = 0;
  for (const Tensor& b : blocks) {
    result.narrow(0, r, b.size(0)).narrow(1, c, b.size(1)).copy_(b);
    r += b.size(0);
    c += b.size(1);
  }
  return result;
}

}  // namespace ember::native
