#include <aten/Functions.h>

namespace ember {

Tensor& resize_(Tensor& self, IntArrayRef sizes) {
  c10::checked_numel(sizes);
  auto* impl = self.unsafeGetTensorImpl();
  impl->set_sizes_contiguous(sizes);
  if (!self.is_meta()) impl->storage().unsafeGetStorageImpl()->grow(impl->required_storage_nbytes());
  return self;
}

}  // namespace ember
