#include <lazy/LazyTensor.h>

#include <lazy/LazyGraph.h>

namespace ember::lazy {

LazyTensorImpl::LazyTensorImpl(ScalarType dtype, IntArrayRef sizes, Handle value)
    : TensorImpl(c10::DispatchKey::Lazy, dtype, kLazyDevice, sizes),
      group_(std::make_shared<AliasGroup>(AliasGroup{std::move(value), sizes.vec(), 0})),
      is_base_(true) {
  LazyGraph::get().track(this);
}

LazyTensorImpl::LazyTensorImpl(ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                               std::shared_ptr<AliasGroup> group, Handle value)
    : TensorImpl(c10::DispatchKey::Lazy, dtype, kLazyDevice, sizes),
      group_(std::move(group)),
      is_base_(false),
      own_(std::move(value)),
      seen_generation_(group_->generation) {
  set_sizes_and_strides(sizes, strides, offset);
  LazyGraph::get().track(this);
}

LazyTensorImpl::~LazyTensorImpl() { LazyGraph::get().untrack(this); }

c10::intrusive_ptr<c10::TensorImpl> LazyTensorImpl::shallow_copy_and_detach() const {
  const Handle& current = is_base_ ? group_->base : own_;
  auto copy = c10::make_intrusive<LazyTensorImpl>(dtype(), sizes(), strides(), storage_offset(), group_, current);
  copy->seen_generation_ = is_base_ ? group_->generation : seen_generation_;
  copy->set_version_counter(version_counter());
  return copy;
}

void LazyTensorImpl::resize_base(IntArrayRef sizes) {
  set_sizes_contiguous(sizes);
  group_->base_sizes = sizes.vec();
  ++group_->generation;
}

}  // namespace ember::lazy
