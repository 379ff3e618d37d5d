#pragma once
// Containers: Sequential chains single-tensor modules; Functional wraps a
// function as a module (for Sequential).

#include <api/nn/ModuleHolder.h>

#include <functional>
#include <type_traits>
#include <memory>

namespace ember::nn {

// A module argument for containers: any handle (nn::Linear) or pointer.
struct AnyModule {
  template <typename Holder, typename = decltype(std::declval<const Holder&>().ptr())>
  AnyModule(const Holder& holder) : module(holder.ptr()) {}
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  AnyModule(std::shared_ptr<M> m) : module(std::move(m)) {}
  std::shared_ptr<Module> module;
};

class SequentialImpl : public Module {
 public:
  SequentialImpl() : Module("Sequential") {}
  // Sequential(Linear(4, 8), ReLU(), Linear(8, 2)). C++ makes the arguments
  // in no set order (GCC: right to left), so their initial draws differ from
  // Python's Sequential(...); push_back one at a time to match them.
  template <typename First, typename... Rest,
            typename = std::enable_if_t<!std::is_base_of_v<SequentialImpl, std::decay_t<First>>>>
  explicit SequentialImpl(First&& first, Rest&&... rest) : Module("Sequential") {
    push_back(AnyModule(std::forward<First>(first)));
    (push_back(AnyModule(std::forward<Rest>(rest))), ...);
  }
  // Children are named "0", "1", ... as in Python.
  void push_back(AnyModule module);
  void push_back(const std::string& name, AnyModule module);
  size_t size() const { return children().size(); }
  std::shared_ptr<Module> operator[](size_t index) const;
  Tensor forward(const Tensor& input) override;
  std::shared_ptr<Module> clone() const override;
};
EMBER_MODULE(Sequential);

// Modules in a list, named "0", "1", ...; printed as Python's (runs of
// identical modules as "(0-2): 3 x Linear(...)").
class ModuleListImpl : public Module {
 public:
  ModuleListImpl() : Module("ModuleList") {}
  template <typename First, typename... Rest,
            typename = std::enable_if_t<!std::is_base_of_v<ModuleListImpl, std::decay_t<First>>>>
  explicit ModuleListImpl(First&& first, Rest&&... rest) : Module("ModuleList") {
    push_back(AnyModule(std::forward<First>(first)));
    (push_back(AnyModule(std::forward<Rest>(rest))), ...);
  }
  void push_back(AnyModule module);
  size_t size() const { return children().size(); }
  std::shared_ptr<Module> operator[](size_t index) const;
  std::vector<std::shared_ptr<Module>>::const_iterator begin() const;
  std::vector<std::shared_ptr<Module>>::const_iterator end() const;
  std::shared_ptr<Module> clone() const override;
  std::string repr() const override;

 private:
  void refresh();
  std::vector<std::shared_ptr<Module>> items_;  // the children, for iteration
};
EMBER_MODULE(ModuleList);

// Modules by name, in insertion order.
class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() : Module("ModuleDict") {}
  void insert(const std::string& name, AnyModule module);
  bool contains(const std::string& name) const;
  std::shared_ptr<Module> operator[](const std::string& name) const;
  std::vector<std::string> keys() const;
  size_t size() const { return children().size(); }
  std::shared_ptr<Module> clone() const override;
};
EMBER_MODULE(ModuleDict);

class FunctionalImpl : public Module {
 public:
  explicit FunctionalImpl(std::function<Tensor(const Tensor&)> function)
      : Module("Functional"), function(std::move(function)) {}
  Tensor forward(const Tensor& input) override { return function(input); }
  std::shared_ptr<Module> clone() const override { return std::make_shared<FunctionalImpl>(function); }
  std::function<Tensor(const Tensor&)> function;
};
EMBER_MODULE(Functional);

}  // namespace ember::nn
