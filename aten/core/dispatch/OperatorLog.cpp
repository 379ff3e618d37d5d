#include <aten/core/dispatch/OperatorLog.h>

#include <aten/core/dispatch/Library.h>

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
  static void record(const std::string& name) {
    for (OperatorLog* log = innermost_log; log != nullptr; log = log->outer_) log->names_.push_back(name);
  }
};

namespace {

void record_and_pass_on(const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack) {
  OperatorLogAccess::record(op.schema().qualified_name());
  c10::ExcludeDispatchKeyGuard top_level_only(c10::DispatchKey::Python);
  op.redispatchBoxed(ks.remove(c10::DispatchKey::Python), stack);
}

}  // namespace

OperatorLog::OperatorLog() : outer_(innermost_log), include_python_key_((install_fallback_once(), c10::DispatchKey::Python)) {
  innermost_log = this;
}

OperatorLog::~OperatorLog() { innermost_log = outer_; }

}  // namespace ember
