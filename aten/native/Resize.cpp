#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>

namespace ember::native {

Tensor resize_(const Tensor& self, IntArrayRef sizes) {
  c10::checked_numel(sizes);
  auto* impl = self.unsafeGetTensorImpl();
  impl->set_sizes_contiguous(sizes);
  if (!self.is_meta()) impl->storage().unsafeGetStorageImpl()->grow(impl->required_storage_nbytes());
  return self;
}

Tensor resize_out(const Tensor& out, const Tensor& result) {
  if (out.sizes() != result.sizes()) out.resize_(result.sizes());
  return out.copy_(result);
}

}  // namespace ember::native
