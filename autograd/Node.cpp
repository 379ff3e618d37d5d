#include <autograd/Node.h>

#include <autograd/AnomalyMode.h>

#include <aten/Functions.h>

#include <atomic>
#include <cxxabi.h>

namespace ember::autograd {

namespace {
std::atomic<uint64_t> sequence_counter{0};
std::atomic<uint64_t> hook_counter{0};
}  // namespace

uint64_t next_hook_id() { return ++hook_counter; }

namespace {
// The nodes waiting to be released by the outermost ~Node on this thread.
thread_local std::vector<std::shared_ptr<Node>>* pending_release = nullptr;
}  // namespace

// Dropping the last reference to a graph's output would otherwise destroy
// its nodes recursively, one C++ frame per node, and a long chain (a
// million ops) overflows the stack and kills the process. Instead, a node
// dying hands the nodes that only it keeps alive to a work list, which the
// outermost destructor on the thread drains in a loop: constant stack depth
// whatever the graph's size. (By the time this body runs, the node's saved
// variables are gone, so an edge that is the last owner really is.)
Node::~Node() {
  std::vector<std::shared_ptr<Node>> local;
  std::vector<std::shared_ptr<Node>>& work = pending_release ? *pending_release : local;
  for (Edge& edge : next_edges_) {
    if (edge.function && edge.function.use_count() == 1) work.push_back(std::move(edge.function));
  }
  if (pending_release) return;  // an outer destructor is draining the list
  pending_release = &local;
  while (!local.empty()) {
    std::shared_ptr<Node> node = std::move(local.back());
    local.pop_back();
    node.reset();  // its own ~Node appends to `local`
  }
  pending_release = nullptr;
}

Tensor InputMetadata::zeros() const { return ember::zeros(shape, TensorOptions().dtype(dtype).device(device)); }

Node::Node(edge_list next_edges) : next_edges_(std::move(next_edges)), sequence_nr_(sequence_counter++) {
  if (AnomalyMode::is_enabled()) forward_trace_ = AnomalyMode::capture_forward_trace();
}

std::string Node::name() const {
  int status = 0;
  const char* mangled = typeid(*this).name();
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string full = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  const auto colon = full.rfind("::");
  return colon == std::string::npos ? full : full.substr(colon + 2);
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_metadata_.emplace_back(t);
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

uint64_t Node::add_tensor_pre_hook(uint32_t input_nr, TensorHook hook) {
  const uint64_t id = next_hook_id();
  for (auto& [nr, list] : tensor_pre_hooks_) {
    if (nr == input_nr) {
      list.hooks.emplace_back(id, std::move(hook));
      return id;
    }
  }
  tensor_pre_hooks_.emplace_back(input_nr, TensorHookList{});
  tensor_pre_hooks_.back().second.hooks.emplace_back(id, std::move(hook));
  return id;
}

uint64_t Node::add_pre_hook(PreHook hook) {
  const uint64_t id = next_hook_id();
  pre_hooks_.emplace_back(id, std::move(hook));
  return id;
}

uint64_t Node::add_post_hook(PostHook hook) {
  const uint64_t id = next_hook_id();
  post_hooks_.emplace_back(id, std::move(hook));
  return id;
}

bool Node::remove_hook(uint64_t id) {
  auto erase = [id](auto& list) {
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (it->first == id) {
        list.erase(it);
        return true;
      }
    }
    return false;
  };
  for (auto& entry : tensor_pre_hooks_) {
    if (erase(entry.second.hooks)) return true;
  }
  return erase(pre_hooks_) || erase(post_hooks_);
}

void Node::set_retains_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> hook) {
  clear_retains_grad_hook(input_nr);
  retains_grad_hooks_.emplace_back(input_nr, std::move(hook));
}

void Node::clear_retains_grad_hook(uint32_t input_nr) {
  for (auto it = retains_grad_hooks_.begin(); it != retains_grad_hooks_.end(); ++it) {
    if (it->first == input_nr) {
      retains_grad_hooks_.erase(it);
      return;
    }
  }
}

variable_list Node::apply_tensor_hooks(const TensorHookList& list, uint32_t input_nr, variable_list grads) {
  // Copy: a hook may remove itself while running.
  const auto hooks = list.hooks;
  for (const auto& [id, hook] : hooks) {
    Tensor replaced = hook(grads[input_nr]);
    if (replaced.defined()) grads[input_nr] = std::move(replaced);
  }
  return grads;
}

variable_list Node::run_tensor_pre_hooks(variable_list grads) {
  for (const auto& [input_nr, list] : tensor_pre_hooks_) grads = apply_tensor_hooks(list, input_nr, std::move(grads));
  return grads;
}

void Node::run_retains_grad_hooks(const variable_list& grads) {
  for (const auto& [input_nr, hook] : retains_grad_hooks_) {
    if (input_nr < grads.size() && grads[input_nr].defined()) hook(grads[input_nr]);
  }
}

variable_list Node::run_pre_hooks(variable_list grads) {
  const auto hooks = pre_hooks_;
  for (const auto& [id, hook] : hooks) {
    variable_list replaced = hook(grads);
    if (!replaced.empty()) {
      EMBER_CHECK(replaced.size() == grads.size(), "hook returned {} gradients but {} expected {}", replaced.size(),
                  name(), grads.size());
      grads = std::move(replaced);
    }
  }
  return grads;
}

variable_list Node::run_post_hooks(variable_list grad_inputs, const variable_list& grad_outputs) {
  const auto hooks = post_hooks_;
  for (const auto& [id, hook] : hooks) {
    variable_list replaced = hook(grad_inputs, grad_outputs);
    if (!replaced.empty()) {
      EMBER_CHECK(replaced.size() == grad_inputs.size(), "hook returned {} gradients but {} produces {}",
                  replaced.size(), name(), grad_inputs.size());
      grad_inputs = std::move(replaced);
    }
  }
  return grad_inputs;
}

}  // namespace ember::autograd
