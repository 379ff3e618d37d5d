#pragma once
// The Python interpreters that call into this process's Ember core: one in
// a Python program, several under ember::deploy, each with its own copy of
// ember._C. C++ code that must call into Python without a Python object
// telling it which interpreter (a warning raised in a kernel, an operator
// kernel registered from Python) calls the current thread's interpreter:
// the one whose code called into Ember on this thread. Each interpreter's
// binding sets it around the calls it makes (PythonInterpreterGuard), and an
// ember::deploy session sets it for its thread. Never a global "the"
// interpreter: under ember::deploy that would run one interpreter's Python
// on behalf of another's.

#include <cstddef>
#include <string>

namespace c10 {

class PythonInterpreter {
 public:
  virtual ~PythonInterpreter() = default;
  // A Python UserWarning in this interpreter (taking its GIL); throws where
  // the warning filters make it an error.
  virtual void warn(const std::string& message) const = 0;
  // Where this thread's Python code is, for messages: the stack as Python
  // formats it (anomaly mode's forward traces), and the innermost line
  // outside Ember's own package ("train.py:12": the lazy device's debug
  // dumps and recompilation warning). Empty where no Python is running.
  virtual std::string python_stack() const = 0;
  virtual std::string user_source_line() const = 0;
};

// Called by a binding when its interpreter imports it and when it exits.
void register_python_interpreter(PythonInterpreter* interpreter);
void unregister_python_interpreter(PythonInterpreter* interpreter);
size_t python_interpreter_count();

// This thread's interpreter; where none was set on this thread, the
// process's only interpreter if it has exactly one; else null.
PythonInterpreter* current_python_interpreter();

// Makes `interpreter` this thread's for the guard's lifetime.
class PythonInterpreterGuard {
 public:
  explicit PythonInterpreterGuard(PythonInterpreter* interpreter);
  ~PythonInterpreterGuard();
  PythonInterpreterGuard(const PythonInterpreterGuard&) = delete;
  PythonInterpreterGuard& operator=(const PythonInterpreterGuard&) = delete;

 private:
  PythonInterpreter* previous_;
};

}  // namespace c10
