// Products of vectors and matrices built from the basic ones: cross, kron,
// inner, vdot, dist and cartesian_prod.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/SameDevice.h>

namespace ember::native {

// The cross product of 3-vectors along dim (after broadcasting); without a
// dim, the first dim of length 3, as torch.cross does.
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.scalar_type() != ScalarType::Bool && other.scalar_type() != ScalarType::Bool,
                              "\"cross\" not implemented for 'Bool'");
  check_same_device("cross", self, other);
  EMBER_CHECK(self.dim() == other.dim(), "cross: inputs must have the same number of dimensions, got {} and {}",
              self.dim(), other.dim());
  const auto shape = ember::broadcast_tensors({self, other});
  const Tensor& a = shape[0];
  const Tensor& b = shape[1];
  int64_t d = -1;
  if (dim) {
    d = c10::maybe_wrap_dim(*dim, a.dim());
  } else {
    for (int64_t i = 0; i < a.dim() && d < 0; ++i)
      if (a.size(i) == 3) d = i;
    EMBER_CHECK(d >= 0, "cross: no dimension of size 3 in input");
  }
  EMBER_CHECK(self.size(d) == 3 && other.size(d) == 3, "cross: inputs dimension {} must have length 3. Got {} and {}",
              d, self.size(d), other.size(d));
  auto at = [d](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  return ember::cat({at(a, 1) * at(b, 2) - at(a, 2) * at(b, 1), at(a, 2) * at(b, 0) - at(a, 0) * at(b, 2),
                     at(a, 0) * at(b, 1) - at(a, 1) * at(b, 0)},
                    d);
}

// The Kronecker product: each element of self scales a copy of other.
Tensor kron(const Tensor& self, const Tensor& other) {
  check_same_device("kron", self, other);
  const int64_t n = std::max(self.dim(), other.dim());
  std::vector<int64_t> a_shape, b_shape, result_shape;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t sa = i < n - self.dim() ? 1 : self.size(i - (n - self.dim()));
    const int64_t sb = i < n - other.dim() ? 1 : other.size(i - (n - other.dim()));
    a_shape.insert(a_shape.end(), {sa, 1});
    b_shape.insert(b_shape.end(), {1, sb});
    result_shape.push_back(sa * sb);
  }
  return (self.reshape(a_shape) * other.reshape(b_shape)).reshape(result_shape);
}

// Sums over the last dims of both: self (..., n) and other (..., n) give the
// shape self.shape[:-1] + other.shape[:-1].
Tensor inner(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return self * other;
  EMBER_CHECK(self.size(-1) == other.size(-1),
              "inner() the last dimension must match on both input tensors but got shapes {} and {}",
              c10::str_sizes(self.sizes()), c10::str_sizes(other.sizes()));
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 1);
  shape.insert(shape.end(), other.sizes().begin(), other.sizes().end() - 1);
  const int64_t n = self.size(-1);
  return ember::matmul(self.reshape({-1, n}), other.reshape({-1, n}).t()).reshape(shape);
}

// The dot product with self conjugated.
Tensor vdot(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got {}D and {}D tensors", self.dim(),
              other.dim());
  return ember::dot(self.conj(), other);
}

// The p-norm of self - other.
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) {
  EMBER_CHECK(self.is_floating_point() || self.is_complex(),
              "dist: input dtype should be either floating point or complex. Got {} instead.",
              c10::toString(self.scalar_type()));
  check_same_device("dist", self, other);
  return ember::norm(self - other, p);
}

// Every combination of one element from each 1-D tensor, one row each
// (the first tensor varies slowest).
Tensor cartesian_prod(c10::ArrayRef<Tensor> tensors) {
  EMBER_CHECK(!tensors.empty(), "cartesian_prod expects at least one tensor");
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.dim() == 1, "cartesian_prod: expected 1-D vectors, but got shape {}", c10::str_sizes(t.sizes()));
    check_same_device("cartesian_prod", tensors[0], t);
  }
  if (tensors.size() == 1) return tensors[0];
  const int64_t n = static_cast<int64_t>(tensors.size());
  std::vector<int64_t> full;
  for (const Tensor& t : tensors) full.push_back(t.size(0));
  std::vector<Tensor> columns;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> shape(n, 1);
    shape[i] = -1;
    columns.push_back(tensors[i].reshape(shape).expand(full).reshape({-1}));
  }
  return ember::stack(columns, 1);
}

}  // namespace ember::native
