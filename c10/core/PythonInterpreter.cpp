#include <c10/core/PythonInterpreter.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace c10 {

namespace {

thread_local PythonInterpreter* this_thread_interpreter = nullptr;

std::mutex registry_mutex;
std::vector<PythonInterpreter*>& registry() {
  static auto* all = new std::vector<PythonInterpreter*>();  // lives to exit: bindings unregister late
  return *all;
}
// The sole interpreter, kept beside the registry for the lock-free read
// every warning makes.
std::atomic<PythonInterpreter*> sole{nullptr};

void update_sole() { sole.store(registry().size() == 1 ? registry().front() : nullptr); }

}  // namespace

void register_python_interpreter(PythonInterpreter* interpreter) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry().push_back(interpreter);
  update_sole();
}

void unregister_python_interpreter(PythonInterpreter* interpreter) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto& all = registry();
  all.erase(std::remove(all.begin(), all.end(), interpreter), all.end());
  update_sole();
  if (this_thread_interpreter == interpreter) this_thread_interpreter = nullptr;
}

size_t python_interpreter_count() {
  std::lock_guard<std::mutex> lock(registry_mutex);
  return registry().size();
}

PythonInterpreter* current_python_interpreter() {
  return this_thread_interpreter != nullptr ? this_thread_interpreter : sole.load();
}

PythonInterpreterGuard::PythonInterpreterGuard(PythonInterpreter* interpreter) : previous_(this_thread_interpreter) {
  this_thread_interpreter = interpreter;
}

PythonInterpreterGuard::~PythonInterpreterGuard() { this_thread_interpreter = previous_; }

}  // namespace c10
