#include <c10/core/StorageImpl.h>

#include <c10/core/SharedMemory.h>
#include <c10/util/Exception.h>

#include <cstring>

namespace c10 {

void StorageImpl::grow(size_t new_nbytes) {
  if (new_nbytes <= nbytes_) return;
  EMBER_CHECK(resizable_ && allocator_ != nullptr,
              "Trying to resize storage that is not resizable (it wraps memory owned outside Ember)");
  DataPtr bigger = allocator_->allocate(new_nbytes);
  if (nbytes_ > 0 && data_ptr_.get() && bigger.get()) allocator_->copy_data(bigger.get(), data_ptr_.get(), nbytes_);
  data_ptr_ = std::move(bigger);
  nbytes_ = new_nbytes;
}

// In the current sharing strategy's form: under file_system a storage in an
// unnamed segment moves again, into a named one.
void StorageImpl::share_memory() { share_memory(sharing_strategy()); }

void StorageImpl::share_memory(SharingStrategy strategy) {
  if (is_shared() && (strategy == SharingStrategy::FileDescriptor || !shared_memory_name(data_ptr_).empty())) return;
  EMBER_CHECK(device().type == DeviceType::CPU, "share_memory_: only CPU storages can move to shared memory, not {}",
              device().str());
  DataPtr shared = new_shared_memory(nbytes_, strategy);
  if (nbytes_ > 0) std::memcpy(shared.get(), data_ptr_.get(), nbytes_);
  data_ptr_ = std::move(shared);
  allocator_ = nullptr;
  resizable_ = false;
}

bool StorageImpl::is_shared() const { return is_shared_memory(data_ptr_); }

}  // namespace c10
