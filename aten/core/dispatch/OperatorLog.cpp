#include <aten/core/dispatch/OperatorLog.h>

#include <aten/core/dispatch/Library.h>

#include <chrono>
#include <mutex>

namespace ember {

namespace {

thread_local OperatorLog* innermost_log = nullptr;

void record_and_pass_on(const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack);

// Never destroyed: a fallback must outlive every thread that may still
// dispatch. Held here rather than dropped, so that leak checkers see it
// reachable.
Library* fallback_library = nullptr;

void install_fallback_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    fallback_library = new Library(Library::Kind::IMPL, "_", c10::DispatchKey::Python);
    fallback_library->fallback(KernelFunction::makeFromBoxed(&record_and_pass_on));
  });
}

}  // namespace

// Each open log keeps a pointer to the one it was opened inside, so the
// fallback can append the name to every open log on the thread.
struct OperatorLogAccess {
  // Appends the call to every open log and returns where it went in each.
  static std::vector<std::pair<OperatorLog*, size_t>> record(const std::string& name, int64_t start) {
    std::vector<std::pair<OperatorLog*, size_t>> slots;
    for (OperatorLog* log = innermost_log; log != nullptr; log = log->outer_) {
      slots.emplace_back(log, log->names_.size());
      log->names_.push_back(name);
      log->starts_ns_.push_back(start);
      log->durations_ns_.push_back(0);
    }
    return slots;
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
  const auto slots = OperatorLogAccess::record(op.schema().qualified_name(), start);
  {
    c10::ExcludeDispatchKeyGuard top_level_only(c10::DispatchKey::Python);
    op.redispatchBoxed(ks.remove(c10::DispatchKey::Python), stack);
  }
  // The logs are still open: they close on this thread, after the call returns.
  OperatorLogAccess::finish(slots, now_ns() - start);
}

}  // namespace

OperatorLog::OperatorLog() : outer_(innermost_log), include_python_key_((install_fallback_once(), c10::DispatchKey::Python)) {
  innermost_log = this;
}

OperatorLog::~OperatorLog() { innermost_log = outer_; }

}  // namespace ember
