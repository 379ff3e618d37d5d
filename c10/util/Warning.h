#pragma once
// Warnings raised in C++ (a backend falling back to the CPU, a deprecated
// use): they go to the current thread's Python interpreter as UserWarnings
// (c10/core/PythonInterpreter.h), or to stderr where there is none.

#include <string>

namespace c10 {

void warn(const std::string& message);

}  // namespace c10
