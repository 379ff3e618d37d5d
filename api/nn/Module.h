#pragma once
// ember::nn::Module, the C++ twin of Python's ember.nn.Module: a tree of
// modules, each holding named parameters, buffers and children in the order
// they were registered. Names, recursion, train/eval, to(), state_dict and
// the printed form follow the Python frontend, so the same structure has
// the same dotted names ("layers.0.weight") and the same repr in both.
//
// Modules are shared: user code holds them through ModuleHolder handles
// (nn::Linear wraps a std::shared_ptr<LinearImpl>). The header has no
// templates beyond two small helpers, so code including it compiles fast.

#include <aten/core/Tensor.h>

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ember::nn {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

class Module;
using NamedModules = std::vector<std::pair<std::string, std::shared_ptr<Module>>>;

class Module : public std::enable_shared_from_this<Module> {
 public:
  // `name` is the type's name as printed: "Linear", "Sequential".
  explicit Module(std::string name);
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  virtual ~Module() = default;

  const std::string& name() const { return name_; }

  // Registration, as Python's: a name may hold one of a parameter, a buffer
  // or a child; registering it again replaces it. A parameter is a leaf that
  // requires grad (unless told otherwise); an undefined tensor registers
  // the name with no tensor (a bias that is None).
  Tensor& register_parameter(const std::string& name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(const std::string& name, Tensor tensor);
  std::shared_ptr<Module> register_module(const std::string& name, std::shared_ptr<Module> module);
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    register_module(name, std::static_pointer_cast<Module>(module));
    return module;
  }
  // A ModuleHolder handle (nn::Linear), returned as given.
  template <typename Holder, typename = decltype(std::declval<const Holder&>().ptr())>
  Holder register_module(const std::string& name, Holder holder) {
    register_module(name, std::static_pointer_cast<Module>(holder.ptr()));
    return holder;
  }

  // This module's and (recurse) its descendants' entries, depth first in
  // registration order, named with dotted paths; undefined tensors skipped.
  std::vector<Tensor> parameters(bool recurse = true) const;
  NamedTensors named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  NamedTensors named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  NamedModules named_children() const;
  // This module (named "") and every descendant, each once.
  NamedModules named_modules();
  std::vector<std::shared_ptr<Module>> modules();

  // Parameters then buffers of each module, as Python's state_dict().
  NamedTensors state_dict() const;
  // Copies the values in (no grad); with `strict`, names missing from or
  // unexpected in `state`, and any shape mismatch, raise one error listing
  // them all (as Python's load_state_dict), before anything is copied.
  void load_state_dict(const NamedTensors& state, bool strict = true);

  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

  // Converts every parameter and buffer in place (the tensors keep their
  // identity, as Python's module.to()); floating dtypes only for `dtype`.
  void to(Device device);
  void to(ScalarType dtype);
  void to(Device device, ScalarType dtype);

  void zero_grad(bool set_to_none = true);
  // fn on every descendant, children before their parent (as Python's apply).
  void apply(const std::function<void(Module&)>& fn);

  // A deep copy: fresh parameters and buffers holding the same values.
  // Modules made with Cloneable (every module here) support it.
  virtual std::shared_ptr<Module> clone() const;

  // The single-tensor forward that Sequential and Functional chain; modules
  // with other signatures add overloads of their own.
  virtual Tensor forward(const Tensor& input);

  // What Python's extra_repr gives: "in_features=4, out_features=2, bias=True".
  virtual std::string extra_repr() const { return ""; }
  // The printed form, as Python's repr().
  virtual std::string repr() const;

  // Re-creates the parameters, buffers and children (constructors call it;
  // clone() calls it on the copy).
  virtual void reset() {}

 protected:
  // Containers' clone(): clones of this module's children registered in
  // `copy` under the same names, and this module's mode.
  void clone_children_into(Module& copy) const;
  // For clone(): this module's registrations are dropped (the copy made by
  // the copy constructor shares the original's tensors and children).
  void clear_registrations();
  // Copies `other`'s parameter and buffer values into this module's tensors
  // of the same names, recursively through children of the same names.
  void copy_state_from(const Module& other);

  template <typename Derived>
  friend class Cloneable;

 private:
  struct Entry {
    std::string name;
    Tensor tensor;
  };
  void collect(const std::string& prefix, bool recurse, bool parameters, NamedTensors& out) const;
  void collect_modules(const std::string& prefix, NamedModules& out);
  void convert(const std::function<Tensor(const Tensor&)>& fn);
  void forget(const std::string& name);

  std::string name_;
  bool training_ = true;
  std::vector<Entry> parameters_;
  std::vector<Entry> buffers_;
  NamedModules children_;
};

std::ostream& operator<<(std::ostream& out, const Module& module);

// The gradients of `parameters` dropped (set_to_none) or zeroed in place:
// Module::zero_grad and Optimizer::zero_grad.
void zero_grad(const std::vector<Tensor>& parameters, bool set_to_none = true);

// Gives a module clone(): copy-construct, reset() for fresh tensors and
// children, then copy the values in. Sequential-like containers, whose
// children are their state, override clone() themselves.
template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;
  std::shared_ptr<Module> clone() const override {
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->clear_registrations();
    copy->reset();
    copy->copy_state_from(*this);
    return copy;
  }
};

}  // namespace ember::nn
