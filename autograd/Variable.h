#pragma once
// The operations autograd performs on a tensor's history: reading and
// setting grad_fn, recording views, rebasing after in-place changes. The
// generated autograd kernels are written in terms of these.

#include <autograd/AutogradMeta.h>

#include <optional>

namespace ember::autograd::impl {

// The metadata, created on first use (get_autograd_meta never creates).
AutogradMeta* materialize_autograd_meta(const Tensor& t);
AutogradMeta* get_autograd_meta(const Tensor& t);

// The producing node, rebuilt first when the tensor is a view whose history
// went stale through an in-place change.
const std::shared_ptr<Node>& grad_fn(const Tensor& t);
uint32_t output_nr(const Tensor& t);
bool is_leaf(const Tensor& t);
std::shared_ptr<Node> grad_accumulator(const Tensor& t);
const Tensor& base(const Tensor& t);  // undefined when `t` is not a view
bool is_view(const Tensor& t);

// Makes `t` output `output_nr` of `fn` (records the input metadata).
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn);
// After an in-place op on `t` recorded as `fn`: `t`'s history (and, for a
// view, its base's) now runs through `fn`.
void rebase_history(const Tensor& t, std::shared_ptr<Node> fn);
// Records `view` as a view of `source` (of its base, when source is a view).
void as_view(const Tensor& source, const Tensor& view);
// The checks before an in-place op on `t` (leaves, views of leaves, views
// made in no_grad, inference tensors).
void check_inplace(const Tensor& t, bool requires_grad);

// Whether an op on these inputs records history (grad mode on and any input
// requires grad).
inline bool any_requires_grad() { return false; }
template <typename... Rest>
bool any_requires_grad(const Tensor& t, const Rest&... rest);
template <typename... Rest>
bool any_requires_grad(const std::optional<Tensor>& t, const Rest&... rest);
template <typename... Rest>
bool any_requires_grad(c10::ArrayRef<Tensor> ts, const Rest&... rest);
template <typename... Rest>
bool any_requires_grad(const std::vector<std::optional<Tensor>>& ts, const Rest&... rest);

template <typename... Rest>
bool any_requires_grad(const Tensor& t, const Rest&... rest) {
  return (t.defined() && t.requires_grad()) || any_requires_grad(rest...);
}
template <typename... Rest>
bool any_requires_grad(const std::optional<Tensor>& t, const Rest&... rest) {
  return (t && t->defined() && t->requires_grad()) || any_requires_grad(rest...);
}
template <typename... Rest>
bool any_requires_grad(c10::ArrayRef<Tensor> ts, const Rest&... rest) {
  for (const Tensor& t : ts) {
    if (t.defined() && t.requires_grad()) return true;
  }
  return any_requires_grad(rest...);
}
template <typename... Rest>
bool any_requires_grad(const std::vector<std::optional<Tensor>>& ts, const Rest&... rest) {
  for (const auto& t : ts) {
    if (t && t->defined() && t->requires_grad()) return true;
  }
  return any_requires_grad(rest...);
}

template <typename... Args>
bool compute_requires_grad(const Args&... args);

// The gradient edges of the inputs, lists flattened, in argument order.
inline void collect_edges(edge_list&) {}
template <typename... Rest>
void collect_edges(edge_list& out, const Tensor& t, const Rest&... rest);
template <typename... Rest>
void collect_edges(edge_list& out, const std::optional<Tensor>& t, const Rest&... rest);
template <typename... Rest>
void collect_edges(edge_list& out, c10::ArrayRef<Tensor> ts, const Rest&... rest);
template <typename... Rest>
void collect_edges(edge_list& out, const std::vector<std::optional<Tensor>>& ts, const Rest&... rest);
template <typename... Rest>
void collect_edges(edge_list& out, const Tensor& t, const Rest&... rest) {
  out.push_back(t.defined() ? gradient_edge(t) : Edge());
  collect_edges(out, rest...);
}
template <typename... Rest>
void collect_edges(edge_list& out, const std::optional<Tensor>& t, const Rest&... rest) {
  out.push_back(t && t->defined() ? gradient_edge(*t) : Edge());
  collect_edges(out, rest...);
}
template <typename... Rest>
void collect_edges(edge_list& out, c10::ArrayRef<Tensor> ts, const Rest&... rest) {
  for (const Tensor& t : ts) out.push_back(t.defined() ? gradient_edge(t) : Edge());
  collect_edges(out, rest...);
}
template <typename... Rest>
void collect_edges(edge_list& out, const std::vector<std::optional<Tensor>>& ts, const Rest&... rest) {
  for (const auto& t : ts) out.push_back(t && t->defined() ? gradient_edge(*t) : Edge());
  collect_edges(out, rest...);
}
template <typename... Args>
edge_list collect_next_edges(const Args&... args) {
  edge_list out;
  collect_edges(out, args...);
  return out;
}

}  // namespace ember::autograd::impl

#include <c10/core/GradMode.h>

namespace ember::autograd::impl {
template <typename... Args>
bool compute_requires_grad(const Args&... args) {
  return c10::GradMode::is_enabled() && any_requires_grad(args...);
}
}  // namespace ember::autograd::impl
