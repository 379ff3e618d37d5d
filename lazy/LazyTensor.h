#pragma once
// Tensors on the `lazy` device. They hold no memory: an operator on them is
// recorded into the pending graph (LazyGraph.h) and runs later, when a value
// is needed (item(), cpu(), printing) or at mark_step(), by an executor
// (Executor.h). Between runs a lazy tensor's value is either a value of the
// pending graph or the data an earlier run left (a CPU tensor).
//
// The graph is functional: an in-place op gives the tensor it writes a new
// value. Eager semantics of memory shared between a base and its views are
// kept by an AliasGroup per base: the base's value stands for the memory,
// and a view's value is rederived from it (as_strided over the base's
// elements in row-major order) after any member of the group was written.

#include <aten/core/Tensor.h>
#include <jit/ir/ir.h>

#include <memory>
#include <string>

namespace ember::lazy {

inline const Device kLazyDevice{DeviceType::Lazy, 0};

// The graph IR's type of a lazy value.
inline jit::TensorMeta lazy_meta(ScalarType dtype, IntArrayRef sizes) {
  return jit::TensorMeta{dtype, sizes.vec(), kLazyDevice};
}

// A lazy tensor's value now: data a run produced, or a pending value of
// graph `epoch` (the pending graph is replaced by a new one at every run),
// or neither where the run that was to compute it failed (`error` says why).
struct Handle {
  Handle() = default;
  Handle(Tensor data, jit::Value* pending = nullptr, uint64_t epoch = 0,
         std::shared_ptr<const std::string> error = nullptr)
      : data(std::move(data)), pending(pending), epoch(epoch), error(std::move(error)) {}
  Tensor data;
  jit::Value* pending = nullptr;
  uint64_t epoch = 0;
  std::shared_ptr<const std::string> error;
};

// A base and its views: eager code sees them share memory.
struct AliasGroup {
  Handle base;
  std::vector<int64_t> base_sizes;
  // Bumped by every write to a member: views seen at an older generation
  // are rederived from the base before they are read.
  uint64_t generation = 0;
};

class LazyTensorImpl final : public c10::TensorImpl {
 public:
  // A base: its own memory (the result of an op that is not a view).
  LazyTensorImpl(ScalarType dtype, IntArrayRef sizes, Handle value);
  // A view of `group`'s base with this geometry over the base's elements.
  LazyTensorImpl(ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 std::shared_ptr<AliasGroup> group, Handle value);
  ~LazyTensorImpl() override;
  // Another member of the group with this geometry and value: it sees the
  // writes this tensor sees, as an alias of eager memory would.
  c10::intrusive_ptr<c10::TensorImpl> shallow_copy_and_detach() const override;

  const std::shared_ptr<AliasGroup>& group() const { return group_; }
  bool is_base() const { return is_base_; }
  // A base's value is its group's; a view's is its own while fresh.
  Handle& handle() { return is_base_ ? group_->base : own_; }
  // A view's own value (a base has none: it reads its group's).
  Handle& own() { return own_; }
  bool fresh() const { return is_base_ || seen_generation_ == group_->generation; }
  void mark_fresh() { seen_generation_ = group_->generation; }
  // Rederive from the base before the next read.
  void mark_stale() { seen_generation_ = group_->generation - 1; }
  // A base whose size an out= or resize_ changed.
  void resize_base(IntArrayRef sizes);

 private:
  std::shared_ptr<AliasGroup> group_;
  bool is_base_;
  Handle own_;
  uint64_t seen_generation_ = 0;
};

inline bool is_lazy(const Tensor& t) { return t.defined() && t.device().type == DeviceType::Lazy; }
inline LazyTensorImpl& lazy_impl(const Tensor& t) { return static_cast<LazyTensorImpl&>(*t.unsafeGetTensorImpl()); }

}  // namespace ember::lazy
