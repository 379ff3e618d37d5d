// Rearrangements that copy: triangles (tril/triu), flip, roll, repeat and
// constant padding. Written in terms of other operators, so autograd and
// every backend come with them.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/Resize.h>

#include <algorithm>

namespace ember::native {

using c10::maybe_wrap_dim;

namespace {

// True where column - row <= diagonal (lower) or >= diagonal (upper), over
// the last two dims of `self`.
Tensor triangle_mask(const Tensor& self, int64_t diagonal, bool lower, const char* name) {
  EMBER_CHECK(self.dim() >= 2, "{}: input tensor must have at least 2 dimensions", name);
  const int64_t rows = self.size(-2), cols = self.size(-1);
  const Tensor offset = ember::sub(ember::arange(cols, ScalarType::Long, self.device()).unsqueeze(0),
                                   ember::arange(rows, ScalarType::Long, self.device()).unsqueeze(1));
  return lower ? ember::le(offset, diagonal) : ember::ge(offset, diagonal);
}

Tensor copy_into_out(const Tensor& result, const Tensor& out) {
  EMBER_CHECK(out.dtype() == result.dtype(), "Expected out tensor to have dtype {}, but got {} instead",
              c10::python_name(result.dtype()), c10::python_name(out.dtype()));
  out.resize_(result.sizes());
  return out.copy_(result);
}

}  // namespace

Tensor tril(const Tensor& self, int64_t diagonal) {
  return self.masked_fill(triangle_mask(self, diagonal, true, "tril").logical_not(), 0);
}
Tensor triu(const Tensor& self, int64_t diagonal) {
  return self.masked_fill(triangle_mask(self, diagonal, false, "triu").logical_not(), 0);
}
Tensor tril_(const Tensor& self, int64_t diagonal) {
  return self.masked_fill_(triangle_mask(self, diagonal, true, "tril").logical_not(), 0);
}
Tensor triu_(const Tensor& self, int64_t diagonal) {
  return self.masked_fill_(triangle_mask(self, diagonal, false, "triu").logical_not(), 0);
}
Tensor tril_out(const Tensor& self, int64_t diagonal, const Tensor& out) {
  return copy_into_out(ember::tril(self, diagonal), out);
}
Tensor triu_out(const Tensor& self, int64_t diagonal, const Tensor& out) {
  return copy_into_out(ember::triu(self, diagonal), out);
}

Tensor flip(const Tensor& self, IntArrayRef dims) {
  std::vector<bool> seen(std::max<int64_t>(self.dim(), 1), false);
  Tensor result = self;
  for (int64_t dim : dims) {
    const int64_t d = maybe_wrap_dim(dim, self.dim());
    EMBER_CHECK(!seen[d], "dim {} appears multiple times in the list of dims", d);
    seen[d] = true;
    if (self.dim() == 0) continue;
    const Tensor reversed = ember::arange(self.size(d) - 1, -1, -1, ScalarType::Long, self.device());
    result = ember::index_select(result, d, reversed);
  }
  return dims.empty() || self.dim() == 0 ? self.clone() : result;
}

// The n-th forward difference along dim: neighbours subtracted (xor for
// bools) n times, after prepend/append are joined on. The result is empty
// along dim once n reaches its length.
Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  EMBER_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  EMBER_CHECK(n >= 0, "diff: order must be non-negative but got {}", n);
  dim = maybe_wrap_dim(dim, self.dim());
  auto along = [&](const Tensor& t) {
    EMBER_CHECK(t.dim() == self.dim(), "diff expects prepend or append to be the same dimension as input");
    return t;
  };
  Tensor x = self;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<Tensor> parts;
    if (prepend && prepend->defined()) parts.push_back(along(*prepend));
    parts.push_back(self);
    if (append && append->defined()) parts.push_back(along(*append));
    x = ember::cat(parts, dim);
  }
  for (int64_t i = 0; i < n && x.size(dim) > 0; ++i) {
    const int64_t length = x.size(dim) - 1;
    const Tensor later = x.narrow(dim, 1, length), earlier = x.narrow(dim, 0, length);
    x = x.scalar_type() == ScalarType::Bool ? ember::logical_xor(later, earlier) : ember::sub(later, earlier);
  }
  return n == 0 ? x.clone() : x;
}

Tensor diff_out(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                const std::optional<Tensor>& append, const Tensor& out) {
  return resize_out(out, ember::diff(self, n, dim, prepend, append));
}

Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "Input must be >= 2-d.");
  return ember::flip(self, {1});
}
Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, "Input must be >= 1-d.");
  return ember::flip(self, {0});
}

// k quarter turns in the plane of dims, from the first dim towards the second.
Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  EMBER_CHECK(dims.size() == 2, "expected total rotation dims == 2, but got dims = {}", dims.size());
  EMBER_CHECK(self.dim() >= 2, "expected total dims >= 2, but got total dims = {}", self.dim());
  const int64_t d0 = maybe_wrap_dim(dims[0], self.dim()), d1 = maybe_wrap_dim(dims[1], self.dim());
  EMBER_CHECK(d0 != d1, "expected rotation dims to be different, but got dim0 = {} and dim1 = {}", d0, d1);
  switch (((k % 4) + 4) % 4) {
    case 1: return ember::flip(self, {d1}).transpose(d0, d1);
    case 2: return ember::flip(self, {d0, d1});
    case 3: return ember::flip(self, {d0}).transpose(d0, d1);
    default: return self.clone();
  }
}

// repeat() with dims padded by leading 1s when fewer than self's.
Tensor tile(const Tensor& self, IntArrayRef dims) {
  std::vector<int64_t> repeats(std::max<int64_t>(0, self.dim() - static_cast<int64_t>(dims.size())), 1);
  repeats.insert(repeats.end(), dims.begin(), dims.end());
  return self.repeat(repeats);
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, "shifts and dimensions must align. shifts: {}, dims:{}", shifts.size(), dims.size());
    return ember::roll(self.flatten(), shifts, {0}).view(self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: {}, dims:{}", shifts.size(),
              dims.size());
  Tensor result = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = maybe_wrap_dim(dims[i], self.dim());
    const int64_t n = self.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;  // Python's modulo: a shift of -1 is n - 1
    if (s == 0) continue;
    result = ember::cat({result.narrow(d, n - s, s), result.narrow(d, 0, n - s)}, d);
  }
  return result.is_same(self) ? self.clone() : result;
}

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  const int64_t nd = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(nd >= self.dim(),
              "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  // View self as [1, s0, 1, s1, ...] (leading dims of size 1 added), expand
  // the 1s to the repeat counts and fold each pair into one dim.
  std::vector<int64_t> paired, expanded, result_shape;
  const int64_t lead = nd - self.dim();
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t size = i < lead ? 1 : self.size(i - lead);
    EMBER_CHECK(repeats[i] >= 0, "Trying to create tensor with negative dimension {}: {}", repeats[i],
                c10::str_sizes(repeats));
    int64_t repeated = 0;
    EMBER_CHECK(!__builtin_mul_overflow(repeats[i], size, &repeated),
                "repeat: integer multiplication overflow for repeats {} of a tensor of sizes {}", c10::str_sizes(repeats),
                c10::str_sizes(self.sizes()));
    paired.insert(paired.end(), {1, size});
    expanded.insert(expanded.end(), {repeats[i], size});
    result_shape.push_back(repeated);
  }
  return self.reshape(paired).expand(expanded).reshape(result_shape).clone();
}

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  const int64_t n = static_cast<int64_t>(pad.size());
  EMBER_CHECK(n % 2 == 0, "Length of pad must be even but instead it equals {}", n);
  EMBER_CHECK(n / 2 <= self.dim(),
              "Length of pad should be no more than twice the number of dimensions of the input. Pad length is {} "
              "while the input has {} dimensions.",
              n, self.dim());
  // pad[0], pad[1] are the last dim's (before, after); pad[2], pad[3] the
  // one before it, and so on. Negative amounts crop.
  Tensor cropped = self;
  std::vector<int64_t> shape = self.sizes().vec();
  for (int64_t i = 0; i < n / 2; ++i) {
    const int64_t d = self.dim() - 1 - i;
    const int64_t before = pad[2 * i], after = pad[2 * i + 1];
    const int64_t size = self.size(d) + before + after;
    EMBER_CHECK(size >= 0,
                "The input size {}, plus negative padding {} and {} resulted in a negative output size, which is "
                "invalid. Check dimension {} of your input.",
                self.size(d), before, after, d);
    shape[d] = size;
    const int64_t start = std::max<int64_t>(-before, 0);
    cropped = cropped.narrow(d, start, std::max<int64_t>(cropped.size(d) - start - std::max<int64_t>(-after, 0), 0));
  }
  Tensor result = ember::full(shape, value, self.dtype(), self.device());
  Tensor interior = result;
  for (int64_t i = 0; i < n / 2; ++i) {
    const int64_t d = self.dim() - 1 - i;
    interior = interior.narrow(d, std::max<int64_t>(pad[2 * i], 0), cropped.size(d));
  }
  interior.copy_(cropped);
  return result;
}

}  // namespace ember::native
