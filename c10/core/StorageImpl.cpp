#include <c10/core/StorageImpl.h>
#include <c10/util/Exception.h>


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

}  // namespace c10
