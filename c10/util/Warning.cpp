#include <c10/util/Warning.h>

#include <atomic>
#include <cstdio>

namespace c10 {

namespace {
void to_stderr(const std::string& message) { std::fprintf(stderr, "Warning: %s\n", message.c_str()); }
std::atomic<WarningHandler> handler{&to_stderr};
}  // namespace

void set_warning_handler(WarningHandler h) { handler.store(h ? h : &to_stderr); }

void warn(const std::string& message) { handler.load()(message); }

}  // namespace c10
