#pragma once
// The memory behind one or more tensors. Views share a StorageImpl; each
// TensorImpl adds its own sizes, strides and offset on top.

#include <c10/core/Allocator.h>
#include <c10/core/SharedMemory.h>
#include <c10/util/intrusive_ptr.h>

namespace c10 {

class StorageImpl final : public intrusive_ptr_target {
 public:
  StorageImpl(size_t nbytes, Allocator* allocator, bool resizable)
      : data_ptr_(allocator->allocate(nbytes)), nbytes_(nbytes), allocator_(allocator), resizable_(resizable) {}
  // Wraps memory owned elsewhere (NumPy, DLPack); never resizable.
  StorageImpl(DataPtr data_ptr, size_t nbytes)
      : data_ptr_(std::move(data_ptr)), nbytes_(nbytes), allocator_(nullptr), resizable_(false) {}

  void* data() const { return data_ptr_.get(); }
  const DataPtr& data_ptr() const { return data_ptr_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_ptr_.device(); }
  bool resizable() const { return resizable_; }
  Allocator* allocator() const { return allocator_; }

  // Grows the allocation, keeping existing bytes; used by resize_.
  void grow(size_t new_nbytes);
  // Moves the bytes into shared memory (c10/core/SharedMemory.h), for every
  // tensor on this storage at once; such a storage no longer resizes. The
  // strategy is the current one (c10::sharing_strategy()) unless given.
  void share_memory();
  void share_memory(SharingStrategy strategy);
  bool is_shared() const;

 protected:
  void release_resources() override { data_ptr_.clear(); }

 private:
  DataPtr data_ptr_;
  size_t nbytes_;
  Allocator* allocator_;
  bool resizable_;
};

class Storage {
 public:
  Storage() = default;
  explicit Storage(intrusive_ptr<StorageImpl> impl) : impl_(std::move(impl)) {}
  Storage(size_t nbytes, Allocator* allocator) : impl_(make_intrusive<StorageImpl>(nbytes, allocator, true)) {}

  bool defined() const { return impl_.defined(); }
  void* data() const { return impl_->data(); }
  size_t nbytes() const { return impl_->nbytes(); }
  Device device() const { return impl_->device(); }
  StorageImpl* unsafeGetStorageImpl() const { return impl_.get(); }
  const intrusive_ptr<StorageImpl>& impl() const { return impl_; }
  bool is_alias_of(const Storage& other) const { return impl_ == other.impl_; }
  uint32_t use_count() const { return impl_.use_count(); }

 private:
  intrusive_ptr<StorageImpl> impl_;
};

}  // namespace c10
