#pragma once
// Tracing: records the operators called on this thread into a Graph while a
// Tracer is open. It rides on the Tracer dispatch key (above Autograd): opening
// a tracer adds the key to the thread's included keys, and one boxed fallback
// on it appends a node for the call and passes it on with the key excluded,
// so a call's own inner calls (a composite's pieces) are not recorded twice.
//
//   jit::Tracer tracer;
//   tracer.add_input(x, "x");
//   tracer.add_output(ember::relu(x));
//   std::shared_ptr<jit::Graph> graph = tracer.finish();
//
// Tensors the traced code reads that are neither inputs nor made inside the
// trace become constants (one that requires grad is an error: it should be
// an input). Converting a tensor to a number (item(), bool()) is recorded as
// a warning: the trace holds the value it saw, not the computation.

#include <jit/ir/ir.h>

#include <c10/core/LocalDispatchKeySet.h>

#include <memory>
#include <optional>
#include <unordered_map>

namespace ember::jit {

class Tracer {
 public:
  Tracer();
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // Whether a tracer is open on this thread.
  static bool active();

  Value* add_input(const Tensor& tensor, std::string name);
  void add_output(const Tensor& tensor);
  // Stops recording and returns the graph; the tracer is spent.
  std::shared_ptr<Graph> finish();
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  friend struct TracerAccess;
  Value* value_for(const Tensor& tensor);
  void bind(const Tensor& tensor, Value* value);

  std::shared_ptr<Graph> graph_;
  std::unordered_map<const c10::TensorImpl*, Value*> values_;
  // Every tensor seen, kept alive so that no address is reused while tracing.
  std::vector<Tensor> seen_;
  std::vector<std::string> warnings_;
  std::optional<c10::IncludeDispatchKeyGuard> include_tracer_key_;
};

}  // namespace ember::jit
