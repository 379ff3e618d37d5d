#pragma once
// Records the operators called on this thread while a log is open, by their
// qualified overload names ("aten::add.Tensor"). Only the calls that enter the
// dispatcher from outside are recorded, not the ops a kernel, a decomposition
// or autograd calls in turn: the log answers "which overloads did this code
// reach", which is how the operator database's tests find operators without
// samples.
//
// A nested log records those inner calls too: every operator the code
// reached, through kernels and decompositions (what a selective build of a
// program must register; ember.jit.export_op_list).
//
// It rides on the Python dispatch key: opening a log adds that key to the
// thread's included keys, and a boxed fallback on it records the call and
// passes it on (with the key excluded, unless a nested log is open). Nothing
// is registered, and no call pays anything, until the first log is opened.

#include <c10/core/LocalDispatchKeySet.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ember {

class OperatorLog {
 public:
  explicit OperatorLog(bool nested = false);
  ~OperatorLog();
  OperatorLog(const OperatorLog&) = delete;
  OperatorLog& operator=(const OperatorLog&) = delete;

  // In call order, with repeats.
  const std::vector<std::string>& names() const { return names_; }
  // Per recorded call: when it started (steady clock, ns) and how long it
  // ran, the calls it made inside included (what a profiler reports).
  const std::vector<int64_t>& starts_ns() const { return starts_ns_; }
  const std::vector<int64_t>& durations_ns() const { return durations_ns_; }

 private:
  friend struct OperatorLogAccess;
  std::vector<std::string> names_;
  std::vector<int64_t> starts_ns_, durations_ns_;
  OperatorLog* outer_;  // a log opened inside another records into both
  bool nested_;
  c10::IncludeDispatchKeyGuard include_python_key_;
};

}  // namespace ember
