#include <aten/core/dispatch/OperatorLog.h>

#include <aten/core/dispatch/Library.h>

#include <chrono>
#include <optional>

namespace ember {

namespace {

thread_local OperatorLog* innermost_log = nullptr;
// Recorded calls running on this thread: a call made inside one is an inner
// call, recorded by nested logs only.
thread_local int recorded_depth = 0;

void record_and_pass_on(const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack);

}  // namespace

// Each open log keeps a pointer to the one it was opened inside, so the
// fallback can append the name to every open log on the thread.
struct OperatorLogAccess {
  // Appends the call to every open log that takes it (an inner call goes
  // to nested logs only) and returns where it went in each.
  static std::vector<std::pair<OperatorLog*, size_t>> record(const std::string& name, int64_t start, bool inner) {
    std::vector<std::pair<OperatorLog*, size_t>> slots;
    for (OperatorLog* log = innermost_log; log != nullptr; log = log->outer_) {
      if (inner && !log->nested_) continue;
      slots.emplace_back(log, log->names_.size());
      log->names_.push_back(name);
      log->starts_ns_.push_back(start);
      log->durations_ns_.push_back(0);
    }
    return slots;
  }
  static bool any_nested() {
    for (OperatorLog* log = innermost_log; log != nullptr; log = log->outer_)
      if (log->nested_) return true;
    return false;
  }
  static void finish(const std::vector<std::pair<OperatorLog*, size_t>>& slots, int64_t duration) {
    for (const auto& [log, i] : slots) log->durations_ns_[i] = duration;
  }
};

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void record_and_pass_on(const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack) {
  const int64_t start = now_ns();
  const auto slots = OperatorLogAccess::record(op.schema().qualified_name(), start, recorded_depth > 0);
  {
    // Inner calls come back here only while a nested log wants them.
    std::optional<c10::ExcludeDispatchKeyGuard> top_level_only;
    if (!OperatorLogAccess::any_nested()) top_level_only.emplace(c10::DispatchKey::Python);
    struct Depth {
      Depth() { ++recorded_depth; }
      ~Depth() { --recorded_depth; }
    } inside;
    op.redispatchBoxed(ks.remove(c10::DispatchKey::Python), stack);
  }
  // The logs are still open: they close on this thread, after the call returns.
  OperatorLogAccess::finish(slots, now_ns() - start);
}

}  // namespace

OperatorLog::OperatorLog(bool nested)
    : outer_(innermost_log),
      nested_(nested),
      include_python_key_(
          (install_mode_fallback(c10::DispatchKey::Python, &record_and_pass_on), c10::DispatchKey::Python)) {
  innermost_log = this;
}

OperatorLog::~OperatorLog() { innermost_log = outer_; }

}  // namespace ember
