#include <c10/util/Warning.h>

#include <c10/core/PythonInterpreter.h>

#include <cstdio>

namespace c10 {

void warn(const std::string& message) {
  if (const PythonInterpreter* python = current_python_interpreter()) return python->warn(message);
  std::fprintf(stderr, "Warning: %s\n", message.c_str());
}

}  // namespace c10
