// Tensor's methods are thin forwards to the free functions in Functions.h,
// so each operation has one implementation reachable both ways.

#include <aten/Functions.h>

namespace ember {

Tensor& Tensor::set_requires_grad(bool requires_grad) {
  impl_->set_requires_grad(requires_grad);
  return *this;
}

Scalar Tensor::item() const { return ember::item(*this); }

Tensor Tensor::view(IntArrayRef sizes) const { return ember::view(*this, sizes); }
Tensor Tensor::reshape(IntArrayRef sizes) const { return ember::reshape(*this, sizes); }
Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const { return ember::transpose(*this, dim0, dim1); }
Tensor Tensor::t() const { return ember::t(*this); }
Tensor Tensor::permute(IntArrayRef dims) const { return ember::permute(*this, dims); }
Tensor Tensor::expand(IntArrayRef sizes) const { return ember::expand(*this, sizes); }
Tensor Tensor::squeeze() const { return ember::squeeze(*this); }
Tensor Tensor::squeeze(int64_t dim) const { return ember::squeeze(*this, dim); }
Tensor Tensor::unsqueeze(int64_t dim) const { return ember::unsqueeze(*this, dim); }
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const { return ember::flatten(*this, start_dim, end_dim); }
Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> storage_offset) const {
  return ember::as_strided(*this, sizes, strides, storage_offset);
}
Tensor Tensor::select(int64_t dim, int64_t index) const { return ember::select(*this, dim, index); }
Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) const {
  return ember::slice(*this, dim, start, end, step);
}
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  return ember::narrow(*this, dim, start, length);
}
Tensor Tensor::unfold(int64_t dim, int64_t size, int64_t step) const { return ember::unfold(*this, dim, size, step); }
Tensor Tensor::alias() const { return ember::alias(*this); }
Tensor Tensor::detach() const { return ember::detach(*this); }
Tensor Tensor::conj() const { return ember::conj(*this); }

Tensor Tensor::contiguous() const { return ember::contiguous(*this); }
Tensor Tensor::clone() const { return ember::clone(*this); }
Tensor Tensor::resolve_conj() const { return ember::resolve_conj(*this); }
Tensor Tensor::resolve_neg() const { return ember::resolve_neg(*this); }
Tensor Tensor::to(ScalarType dtype, bool copy) const { return ember::to(*this, std::nullopt, dtype, copy); }
Tensor Tensor::to(Device device, std::optional<ScalarType> dtype, bool copy) const {
  return ember::to(*this, device, dtype, copy);
}
Tensor& Tensor::copy_(const Tensor& src) { return ember::copy_(*this, src); }
Tensor& Tensor::fill_(const Scalar& value) { return ember::fill_(*this, value); }
Tensor& Tensor::zero_() { return ember::zero_(*this); }

}  // namespace ember
