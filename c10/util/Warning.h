#pragma once
// Warnings raised in C++ (a backend falling back to the CPU, a deprecated
// use): one handler per process. The Python binding installs one that turns
// them into Python UserWarnings; without a handler they go to stderr.

#include <string>

namespace c10 {

using WarningHandler = void (*)(const std::string& message);

// nullptr restores the stderr default.
void set_warning_handler(WarningHandler handler);
void warn(const std::string& message);

}  // namespace c10
