#pragma once
// A tensor a node keeps for its backward formula. It remembers the version
// at which it was saved, so that an in-place change before backward is an
// error rather than a silently wrong gradient; saved outputs do not keep
// their own node alive (that would be a cycle) and get it back on unpack.

#include <autograd/Node.h>

#include <functional>
#include <memory>
#include <vector>

namespace ember::autograd {

// Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks): pack runs
// when a tensor is saved, unpack when backward needs it back.
struct SavedVariableHooks {
  virtual ~SavedVariableHooks() = default;
  virtual void call_pack_hook(const Tensor& t) = 0;
  virtual Tensor call_unpack_hook() = 0;
};
using SavedVariableHooksFactory = std::function<std::unique_ptr<SavedVariableHooks>()>;
// A thread-local stack; the innermost factory applies.
void push_saved_variable_hooks(SavedVariableHooksFactory factory);
void pop_saved_variable_hooks();

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  SavedVariable(const std::optional<Tensor>& t, bool is_output)
      : SavedVariable(t.has_value() ? *t : Tensor(), is_output) {}
  SavedVariable(SavedVariable&&) = default;
  SavedVariable& operator=(SavedVariable&&) = default;

  // The tensor again; `saved_for` is the node it belongs to (the grad_fn of
  // a saved output).
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;
  void reset_data();
  bool was_default_constructed() const { return !saved_; }

 private:
  Tensor data_;
  std::unique_ptr<SavedVariableHooks> hooks_;
  c10::intrusive_ptr<c10::VersionCounter> version_counter_;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool saved_ = false;  // false: never saved; unpack gives an undefined tensor
  bool defined_ = false;
  bool is_output_ = false;
  bool is_leaf_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
  std::weak_ptr<Node> grad_fn_of_input_;  // for the error message only
};

std::vector<SavedVariable> save_list(c10::ArrayRef<Tensor> ts, bool is_output);
std::vector<SavedVariable> save_list(const std::vector<std::optional<Tensor>>& ts, bool is_output);
std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& saved, const std::shared_ptr<Node>& saved_for);
std::vector<std::optional<Tensor>> unpack_opt_list(const std::vector<SavedVariable>& saved,
                                                   const std::shared_ptr<Node>& saved_for);

// "ember.FloatTensor [2, 3]", as autograd error messages describe tensors.
std::string describe_tensor(const Tensor& t);

}  // namespace ember::autograd
