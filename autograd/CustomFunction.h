#pragma once
// User-defined differentiable functions: a forward run without recording
// and a backward written by hand. Python's autograd.Function and the C++
// Function<T> below share the node and the output wiring.
//
//   struct Square : Function<Square> {
//     static Tensor forward(AutogradContext* ctx, const Tensor& x) {
//       ctx->save_for_backward({x});
//       return x * x;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grads) {
//       return {grads[0] * 2 * ctx->get_saved_variables()[0]};
//     }
//   };
//   Tensor y = Square::apply(x);

#include <autograd/SavedVariable.h>
#include <autograd/Variable.h>

#include <aten/core/dispatch/IValue.h>
#include <c10/core/GradMode.h>

#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

namespace ember::autograd {

struct CustomFunctionNode;

// What forward records for backward.
struct AutogradContext {
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  variable_list get_saved_variables() const;
  void mark_dirty(const variable_list& inputs);
  void mark_non_differentiable(const variable_list& outputs);
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // Whether input i (counting tensor inputs only) wants a gradient.
  bool needs_input_grad(size_t i) const;

  std::unordered_map<std::string, IValue> saved_data;

 private:
  friend struct CustomFunctionNode;
  friend variable_list finish_custom_function(const std::shared_ptr<CustomFunctionNode>& node,
                                              const variable_list& inputs, variable_list outputs, bool is_executable);
  template <class T>
  friend struct Function;
  variable_list to_save_;
  std::unordered_set<const c10::TensorImpl*> dirty_;
  std::unordered_set<const c10::TensorImpl*> non_differentiable_;
  bool materialize_grads_ = true;
  std::weak_ptr<CustomFunctionNode> node_;
};

struct CustomFunctionNode final : Node {
  using BackwardFn = std::function<variable_list(CustomFunctionNode&, variable_list)>;
  CustomFunctionNode(std::string name, BackwardFn backward) : name_(std::move(name)), backward_(std::move(backward)) {}

  std::string name() const override { return name_; }
  void release_variables() override;
  variable_list unpack_saved();

  AutogradContext ctx;
  std::vector<SavedVariable> saved;

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  std::string name_;
  BackwardFn backward_;
};

// After forward: makes each differentiable output an output of `node`
// (rebasing inputs changed in place), then saves ctx's tensors. Returns the
// outputs to hand to the caller (an input returned unchanged comes back as
// a new alias, so that it can get its own history).
variable_list finish_custom_function(const std::shared_ptr<CustomFunctionNode>& node, const variable_list& inputs,
                                     variable_list outputs, bool is_executable);

template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    variable_list inputs;
    (collect(inputs, args), ...);
    auto node = std::make_shared<CustomFunctionNode>(
        demangled_name(), [](CustomFunctionNode& self, variable_list grads) {
          return T::backward(&self.ctx, std::move(grads));
        });
    node->ctx.node_ = node;
    const bool is_executable = impl::compute_requires_grad(c10::ArrayRef<Tensor>(inputs));
    if (is_executable) node->set_next_edges(impl::collect_next_edges(c10::ArrayRef<Tensor>(inputs)));
    using Result = decltype(T::forward(&node->ctx, std::forward<Args>(args)...));
    Result result = [&] {
      c10::AutoGradMode no_grad(false);
      return T::forward(&node->ctx, std::forward<Args>(args)...);
    }();
    if constexpr (std::is_same_v<Result, Tensor>) {
      return finish_custom_function(node, inputs, {result}, is_executable)[0];
    } else {
      return finish_custom_function(node, inputs, std::move(result), is_executable);
    }
  }

 private:
  static void collect(variable_list& out, const Tensor& t) { out.push_back(t); }
  static void collect(variable_list& out, const variable_list& ts) { out.insert(out.end(), ts.begin(), ts.end()); }
  template <typename Other>
  static void collect(variable_list&, const Other&) {}
  static std::string demangled_name();
};

std::string demangle_type_name(const char* mangled);

template <class T>
std::string Function<T>::demangled_name() {
  std::string name = demangle_type_name(typeid(T).name());
  const auto colon = name.rfind("::");
  return (colon == std::string::npos ? name : name.substr(colon + 2)) + "Backward";
}

}  // namespace ember::autograd
