#pragma once
// The data behind a Tensor: a Storage plus the strided geometry over it
// (sizes, strides, storage offset), the dtype, and the state that views share
// (storage, version counter) or own alone (autograd metadata, conj/neg bits).

#include <c10/util/SmallVector.h>
#include <c10/core/DispatchKey.h>
#include <c10/core/Layout.h>
#include <c10/core/ScalarType.h>
#include <c10/core/StorageImpl.h>
#include <c10/util/ArrayRef.h>

#include <atomic>
#include <memory>
#include <vector>

namespace c10 {

class TensorImpl;

// Counts in-place modifications. Views share one counter with their base so
// autograd can tell that a tensor it saved was changed through any alias.
struct VersionCounter final : intrusive_ptr_target {
  std::atomic<uint32_t> version{0};
};

// What autograd keeps per tensor. Defined in autograd/, stored here so that
// c10 does not depend on the autograd library.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
  virtual void set_requires_grad(bool value, TensorImpl* self) = 0;
};

// Not final: a layout other than strided (sparse COO) subclasses it to hold
// the tensors it is made of; such a tensor owns no memory of its own (an
// empty storage that only names its device) and its strides mean nothing.
class TensorImpl : public intrusive_ptr_target {
 public:
  // A contiguous tensor of `sizes` over `storage` starting at element 0.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes);
  // An alias: shares `storage` and `version_counter` with another tensor.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset,
             intrusive_ptr<VersionCounter> version_counter);

  // The layout follows from the backend key, its one home.
  Layout layout() const { return key_set_.has(DispatchKey::SparseCPU) ? Layout::Sparse : Layout::Strided; }
  bool is_sparse() const { return layout() == Layout::Sparse; }

  IntArrayRef sizes() const { return sizes_; }
  // Strides, contiguity and data exist only for strided tensors; asking a
  // sparse one is an error (never a read of memory it does not have).
  IntArrayRef strides() const {
    if (__builtin_expect(layout() != Layout::Strided, 0)) report_not_strided("strides");
    return strides_;
  }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  bool is_contiguous() const {
    if (__builtin_expect(layout() != Layout::Strided, 0)) report_not_strided("is_contiguous");
    return is_contiguous_;
  }

  ScalarType dtype() const { return dtype_; }
  size_t itemsize() const { return elementSize(dtype_); }
  Device device() const { return storage_.device(); }
  DispatchKeySet key_set() const { return key_set_; }

  const Storage& storage() const { return storage_; }
  bool has_storage_data() const { return storage_.defined() && storage_.data() != nullptr; }
  // Address of element 0 (not of the storage start).
  void* data() const {
    if (__builtin_expect(layout() != Layout::Strided, 0)) report_not_strided("data");
    void* base = storage_.data();
    // A tensor with elements but no memory (a lazy tensor's value lives in a
    // graph): code that would read it gets an error, not a null pointer.
    if (__builtin_expect(base == nullptr && numel_ != 0, 0)) report_no_data();
    return static_cast<char*>(base) + static_cast<size_t>(storage_offset_) * itemsize();
  }

  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  void set_sizes_contiguous(IntArrayRef sizes);
  // `tensor.data = other`: takes other's memory, geometry and dtype; keeps
  // this tensor's identity, version counter and autograd state.
  void set_data(const TensorImpl& other);
  // A new TensorImpl over the same data and version counter, without
  // autograd metadata (what saved variables hold). Subclasses that keep
  // their data elsewhere (lazy tensors) make one of their own kind.
  virtual intrusive_ptr<TensorImpl> shallow_copy_and_detach() const;
  // Smallest storage size (in bytes) that these sizes/strides/offset touch.
  size_t required_storage_nbytes() const;
  // The same for any geometry (sizes checked non-negative): an error, never
  // a wrapped-around value, when it does not fit in size_t.
  static size_t storage_nbytes_for(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset, size_t itemsize);

  // The version counter is made on first use (a view, an in-place change,
  // autograd saving the tensor): most tensors never need one, and a tensor
  // without one is at version 0. That saves an allocation per op result.
  uint32_t version() const {
    const VersionCounter* vc = version_counter_.load(std::memory_order_acquire);
    return vc ? vc->version.load(std::memory_order_relaxed) : 0;
  }
  void bump_version() { shared_version_counter()->version.fetch_add(1, std::memory_order_relaxed); }
  // The counter shared with views (made now if there is none yet).
  intrusive_ptr<VersionCounter> version_counter() const;
  // Null: a counter of its own, made when first needed.
  void set_version_counter(intrusive_ptr<VersionCounter> vc);
  // For a factory's result that no one else has seen yet: the writes that
  // filled it are not modifications (torch.ones(2)._version is 0).
  void reset_version() {
    if (VersionCounter* vc = version_counter_.load(std::memory_order_acquire)) {
      vc->version.store(0, std::memory_order_relaxed);
    }
  }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta);
  bool requires_grad() const { return autograd_meta_ && autograd_meta_->requires_grad(); }
  // Creates autograd metadata on first use through the factory that the
  // autograd library installs.
  void set_requires_grad(bool value);

  // Lazily-applied conjugation and negation (see DESIGN.md).
  bool is_conj() const { return conj_; }
  void set_conj(bool v) {
    conj_ = v;
    key_set_ = v ? key_set_.add(DispatchKey::Conjugate) : key_set_.remove(DispatchKey::Conjugate);
  }
  bool is_neg() const { return neg_; }
  void set_neg(bool v) {
    neg_ = v;
    key_set_ = v ? key_set_.add(DispatchKey::Negative) : key_set_.remove(DispatchKey::Negative);
  }

  // A 0-d tensor made from a Python number for an operator taking a Tensor:
  // type promotion treats it as the weaker "wrapped number" (x + 1.5 keeps
  // x's float16, as in PyTorch).
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) { wrapped_number_ = v; }

  // Made under InferenceMode; autograd refuses to record or save it.
  bool is_inference() const { return inference_; }

  // Runs when the last strong reference goes, while weak ones may remain:
  // the autograd graph (which can hold a weak reference back to this
  // tensor, e.g. retain_grad's hook) and the memory go now, not when the
  // last weak reference does, which a cycle through them would prevent.
  ~TensorImpl() override;

  void release_resources() override {
    autograd_meta_.reset();
    storage_ = Storage();
  }

 protected:
  // A tensor of another layout: `backend` (e.g. SparseCPU) and Autograd
  // keys, `sizes`, and an empty storage on `device`.
  TensorImpl(DispatchKey backend, ScalarType dtype, Device device, IntArrayRef sizes);

 private:
  void refresh_numel_and_contiguity();
  // "Sparse tensors do not have strides" (torch's words) for each `what`.
  [[noreturn]] void report_not_strided(const char* what) const;
  void report_no_data() const;

  Storage storage_;
  DimVector sizes_;  // inline for up to six dims: no heap allocation per tensor
  DimVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  DispatchKeySet key_set_;
  // Owns one strong reference when set. Atomic: two threads may make views
  // of the same tensor at once, and only one counter may win.
  mutable std::atomic<VersionCounter*> version_counter_{nullptr};
  VersionCounter* shared_version_counter() const;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  bool is_contiguous_ = true;
  bool conj_ = false;
  bool neg_ = false;
  bool wrapped_number_ = false;
  bool inference_ = false;
};

using AutogradMetaFactory = std::unique_ptr<AutogradMetaInterface> (*)();
void SetAutogradMetaFactory(AutogradMetaFactory factory);

// Strides of a row-major (C-contiguous) tensor of `sizes`.
c10::DimVector contiguous_strides(IntArrayRef sizes);
// Product of sizes, checked for overflow.
int64_t checked_numel(IntArrayRef sizes);
// Maps a possibly-negative dim into [0, ndim), PyTorch's maybe_wrap_dim.
int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, bool wrap_scalar = true);

}  // namespace c10
