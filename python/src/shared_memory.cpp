// Tensors in shared memory: share_memory_() / is_shared(), and the pieces
// ember.multiprocessing's pickler builds on: a shared storage's file
// descriptor, and tensors rebuilt over a descriptor received from another
// process.

#include "pybind_tensor.h"

#include <c10/core/SharedMemory.h>

namespace ember::python {

namespace {

// A tensor over `storage` with the given geometry, checked to lie inside it
// (the numbers come from another process's pickle, i.e. from outside).
Tensor tensor_over(c10::Storage storage, ScalarType dtype, const std::vector<int64_t>& sizes,
                   const std::vector<int64_t>& strides, int64_t storage_offset) {
  EMBER_CHECK(sizes.size() == strides.size(), "shared tensor: {} sizes but {} strides", sizes.size(), strides.size());
  EMBER_CHECK(storage_offset >= 0, "shared tensor: negative storage offset {}", storage_offset);
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0 && strides[i] >= 0, "shared tensor: bad size {} or stride {}", sizes[i], strides[i]);
  }
  const size_t needed = c10::TensorImpl::storage_nbytes_for(sizes, strides, storage_offset, c10::elementSize(dtype));
  EMBER_CHECK(needed <= storage.nbytes(), "shared tensor: sizes {} and strides {} need {} bytes, the storage has {}",
              c10::str_sizes(sizes), c10::str_sizes(strides), needed, storage.nbytes());
  return Tensor(c10::make_intrusive<c10::TensorImpl>(std::move(storage), dtype, sizes, strides, storage_offset,
                                                     nullptr));
}

}  // namespace

void init_shared_memory(py::module_& m, TensorClass& cls) {
  cls.def(
         "share_memory_",
         [](const Tensor& self) {
           self.unsafeGetTensorImpl()->storage().unsafeGetStorageImpl()->share_memory();
           return self;
         },
         "Moves the tensor's storage (and so every view of it) into shared memory; a no-op if it is there.",
         py::call_guard<py::gil_scoped_release>())
      .def(
          "is_shared",
          [](const Tensor& self) {
            const auto& storage = self.unsafeGetTensorImpl()->storage();
            return storage.defined() && storage.unsafeGetStorageImpl()->is_shared();
          },
          "Whether the tensor's storage is in shared memory.");
  // (fd, storage bytes) of a tensor's storage, moved into shared memory first.
  // The descriptor stays owned by the storage.
  // A reference is taken for the copy in transit: the receiver's
  // _tensor_from_shared_fd keeps it (or _shared_decref drops it).
  m.def("_share_fd", [](const Tensor& t) {
    c10::StorageImpl* storage = t.unsafeGetTensorImpl()->storage().unsafeGetStorageImpl();
    storage->share_memory(c10::SharingStrategy::FileDescriptor);
    c10::shared_memory_incref(storage->data_ptr());
    return std::make_tuple(c10::shared_memory_fd(storage->data_ptr()), storage->nbytes());
  }, py::call_guard<py::gil_scoped_release>());
  m.def("_set_sharing_strategy", [](const std::string& name) {
    EMBER_CHECK_VALUE(name == "file_descriptor" || name == "file_system", "unknown sharing strategy '{}'", name);
    c10::set_sharing_strategy(name == "file_system" ? c10::SharingStrategy::FileSystem
                                                    : c10::SharingStrategy::FileDescriptor);
  });
  // (name, storage bytes) of a tensor's storage, moved into a named segment
  // first, with a reference taken for the copy in transit: the receiver's
  // _tensor_from_shared_name (or _shared_decref) drops it.
  m.def("_share_filename", [](const Tensor& t) {
    c10::StorageImpl* storage = t.unsafeGetTensorImpl()->storage().unsafeGetStorageImpl();
    storage->share_memory(c10::SharingStrategy::FileSystem);
    c10::shared_memory_incref(storage->data_ptr());
    return std::make_tuple(c10::shared_memory_name(storage->data_ptr()), storage->nbytes());
  }, py::call_guard<py::gil_scoped_release>());
  m.def("_shared_decref", [](const Tensor& t) {
    c10::shared_memory_decref(t.unsafeGetTensorImpl()->storage().unsafeGetStorageImpl()->data_ptr());
  });
  m.def("_connect_shm_manager", &c10::connect_shared_memory_manager, py::arg("address"));
  // Every byte of the tensor's storage as a uint8 tensor (shared, not
  // copied): what Tensor.untyped_storage() wraps.
  m.def("_storage_bytes", [](const Tensor& t) {
    c10::Storage storage = t.unsafeGetTensorImpl()->storage();
    const int64_t nbytes = static_cast<int64_t>(storage.nbytes());
    return tensor_over(std::move(storage), ScalarType::Byte, {nbytes}, {1}, 0);
  });
  m.def("_storage_id", [](const Tensor& t) {
    return reinterpret_cast<uintptr_t>(t.unsafeGetTensorImpl()->storage().unsafeGetStorageImpl());
  });
  // An uninitialized contiguous tensor born in shared memory: what a
  // DataLoader worker collates a batch into, so that sending it copies
  // nothing. Segments the main process has let go of are reused.
  m.def(
      "_empty_shared",
      [](const std::vector<int64_t>& sizes, ScalarType dtype) {
        int64_t numel = 1;
        for (int64_t s : sizes) {
          EMBER_CHECK(s >= 0 && !__builtin_mul_overflow(numel, s, &numel), "_empty_shared: bad size {}",
                      c10::str_sizes(sizes));
        }
        const size_t nbytes = static_cast<size_t>(numel) * c10::elementSize(dtype);
        const bool by_descriptor = c10::sharing_strategy() == c10::SharingStrategy::FileDescriptor;
        c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
            by_descriptor ? c10::recycled_shared_memory(nbytes) : c10::new_shared_memory(nbytes), nbytes));
        return tensor_over(std::move(storage), dtype, sizes, c10::contiguous_strides(sizes).vec(), 0);
      },
      py::arg("size"), py::arg("dtype"), py::call_guard<py::gil_scoped_release>());
  m.def(
      "_tensor_from_shared_fd",
      [](int fd, size_t nbytes, ScalarType dtype, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
         int64_t storage_offset) {
        c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(c10::map_shared_memory(fd, nbytes), nbytes));
        return tensor_over(std::move(storage), dtype, sizes, strides, storage_offset);
      },
      py::arg("fd"), py::arg("nbytes"), py::arg("dtype"), py::arg("size"), py::arg("stride"), py::arg("offset"),
      py::call_guard<py::gil_scoped_release>());
  m.def(
      "_tensor_from_shared_name",
      [](const std::string& name, size_t nbytes, ScalarType dtype, const std::vector<int64_t>& sizes,
         const std::vector<int64_t>& strides, int64_t storage_offset) {
        c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(c10::map_shared_memory(name, nbytes), nbytes));
        return tensor_over(std::move(storage), dtype, sizes, strides, storage_offset);
      },
      py::arg("name"), py::arg("nbytes"), py::arg("dtype"), py::arg("size"), py::arg("stride"), py::arg("offset"),
      py::call_guard<py::gil_scoped_release>());
  m.def(
      "_tensor_on_storage_of",
      [](const Tensor& base, ScalarType dtype, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
         int64_t storage_offset) {
        return tensor_over(base.unsafeGetTensorImpl()->storage(), dtype, sizes, strides, storage_offset);
      },
      py::arg("base"), py::arg("dtype"), py::arg("size"), py::arg("stride"), py::arg("offset"));
}

}  // namespace ember::python
