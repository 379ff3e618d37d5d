#pragma once
// ember::Tensor: a reference-counted handle to a TensorImpl. Copying a Tensor
// copies the handle, never the data; an undefined Tensor holds no impl.
//
// This is the template tools/codegen fills with the operator methods; the
// result is build/generated/aten/generated/TensorBody.h.

#include <aten/core/Generator.h>
#include <aten/core/TensorOptions.h>
#include <aten/core/VariableHooksInterface.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/Scalar.h>
#include <c10/core/TensorImpl.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace ember {

using c10::Device;
using c10::DeviceType;
using c10::IntArrayRef;
using c10::MemoryFormat;
using c10::Scalar;
using c10::ScalarType;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(c10::intrusive_ptr<c10::TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_.defined(); }
  c10::TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const c10::intrusive_ptr<c10::TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  uint32_t use_count() const { return impl_.use_count(); }

  // Geometry.
  IntArrayRef sizes() const { return impl()->sizes(); }
  IntArrayRef strides() const { return impl()->strides(); }
  int64_t size(int64_t d) const { return impl()->size(d); }
  int64_t stride(int64_t d) const { return impl()->stride(d); }
  int64_t dim() const { return impl()->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl()->numel(); }
  int64_t storage_offset() const { return impl()->storage_offset(); }
  bool is_contiguous() const { return impl()->is_contiguous(); }
  // Dense in the order of `format` (preserve_format: plain contiguity, as in torch).
  bool is_contiguous(MemoryFormat format) const {
    const bool plain = format == MemoryFormat::Contiguous || format == MemoryFormat::Preserve;
    return plain ? is_contiguous() : c10::is_contiguous_in(format, sizes(), strides());
  }

  // Type and place.
  ScalarType scalar_type() const { return impl()->dtype(); }
  ScalarType dtype() const { return impl()->dtype(); }
  size_t element_size() const { return impl()->itemsize(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  Device device() const { return impl()->device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_meta() const { return device().is_meta(); }
  c10::Layout layout() const { return impl()->layout(); }
  bool is_sparse() const { return impl()->is_sparse(); }
  bool is_floating_point() const { return c10::isFloatingType(dtype()); }
  bool is_complex() const { return c10::isComplexType(dtype()); }
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()); }

  const c10::Storage& storage() const { return impl()->storage(); }
  bool is_alias_of(const Tensor& other) const { return storage().is_alias_of(other.storage()); }
  uint32_t _version() const { return impl()->version(); }
  bool is_conj() const { return impl()->is_conj(); }
  bool is_neg() const { return impl()->is_neg(); }

  // Raw data. data_ptr<T>() checks that T matches the dtype.
  void* data_ptr() const { return impl()->data(); }
  template <typename T>
  T* data_ptr() const {
    EMBER_CHECK_TYPE(c10::cpp_to_scalar_type<T> == dtype(), "expected scalar type {} but found {}",
                     c10::toString(c10::cpp_to_scalar_type<T>), c10::toString(dtype()));
    return static_cast<T*>(impl()->data());
  }

  // Autograd state; the autograd library implements these.
  bool requires_grad() const { return impl()->requires_grad(); }
  Tensor& set_requires_grad(bool requires_grad);
  const Tensor& requires_grad_(bool requires_grad = true) const;
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  bool is_leaf() const;
  int64_t output_nr() const;
  void retain_grad() const;
  bool retains_grad() const;
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  // The tensor whose memory this view aliases; undefined when not a view.
  const Tensor& _base() const;
  bool is_view() const;
  bool is_inference() const { return impl()->is_inference(); }
  // `hook(grad)` runs when this tensor's gradient is computed and may return
  // a replacement (or an undefined tensor to keep it). Returns an id for
  // remove_hook.
  uint64_t register_hook(std::function<Tensor(const Tensor&)> hook) const;
  void remove_hook(uint64_t id) const;

  // item<T>(): the value of a one-element tensor as T.
  template <typename T>
  T item() const {
    return item().to<T>();
  }

  Tensor operator[](int64_t index) const { return select(0, index); }
  // The last two dims swapped (mT), and conjugated too (mH), as views.
  Tensor mT() const { return transpose(-2, -1); }
  Tensor mH() const { return transpose(-2, -1).conj(); }

  // Operators from native_functions.yaml with `variants: method`.
${tensor_method_declarations}

 private:
  // Every accessor goes through here: an undefined Tensor (a default-
  // constructed one, or a missing gradient) answers with an error, not a
  // null dereference.
  c10::TensorImpl* impl() const {
    if (__builtin_expect(!impl_.defined(), 0)) report_undefined();
    return impl_.get();
  }
  [[noreturn]] static void report_undefined();
  // The autograd hooks, after the same check.
  const VariableHooksInterface& checked_hooks() const;

  c10::intrusive_ptr<c10::TensorImpl> impl_;
};

}  // namespace ember
