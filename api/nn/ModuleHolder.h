#pragma once
// Shared-ownership handles on modules, as libtorch's: `nn::Linear fc(4, 2)`
// makes a LinearImpl and holds it; `fc->forward(x)` and `fc(x)` call it;
// copies of the handle share the module. EMBER_MODULE(Linear) declares the
// handle class for LinearImpl.

#include <api/nn/Module.h>

#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

namespace ember::nn {

template <typename Impl>
class ModuleHolder {
 public:
  // Builds the module from the constructor arguments of Impl.
  template <typename... Args, typename = std::enable_if_t<!(sizeof...(Args) == 1 &&
                                                            (std::is_base_of_v<ModuleHolder, std::decay_t<Args>> ||
                                                             ...))>>
  explicit ModuleHolder(Args&&... args) : impl_(std::make_shared<Impl>(std::forward<Args>(args)...)) {}
  // An empty handle (for members filled in later with register_module).
  ModuleHolder(std::nullptr_t) {}
  ModuleHolder(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

  Impl* operator->() const { return get(); }
  Impl& operator*() const { return *get(); }
  Impl* get() const {
    EMBER_CHECK(impl_ != nullptr, "accessing an empty module handle (construct it, or register_module a module)");
    return impl_.get();
  }
  const std::shared_ptr<Impl>& ptr() const { return impl_; }
  bool is_empty() const { return impl_ == nullptr; }

  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) const {
    return (*get())[std::forward<Arg>(arg)];
  }

  template <typename... Args>
  auto operator()(Args&&... args) const {
    return get()->forward(std::forward<Args>(args)...);
  }

 private:
  std::shared_ptr<Impl> impl_;
};

template <typename Impl>
std::ostream& operator<<(std::ostream& out, const ModuleHolder<Impl>& holder) {
  return out << *holder;
}

}  // namespace ember::nn

#define EMBER_MODULE(Name)                                     \
  class Name : public ::ember::nn::ModuleHolder<Name##Impl> {  \
   public:                                                     \
    using ::ember::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
  }
