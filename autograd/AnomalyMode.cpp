#include <autograd/AnomalyMode.h>

#include <c10/core/PythonInterpreter.h>

#include <atomic>
#include <mutex>
#include <utility>

namespace ember::autograd {

namespace {
// Process-wide, like torch.autograd.set_detect_anomaly.
std::atomic<bool> enabled{false};
std::atomic<bool> check_nan{true};
}  // namespace

bool AnomalyMode::is_enabled() { return enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::should_check_nan() { return check_nan.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool value, bool nan) {
  enabled = value;
  check_nan = nan;
}

std::string AnomalyMode::capture_forward_trace() {
  const c10::PythonInterpreter* python = c10::current_python_interpreter();
  return python ? python->python_stack() : std::string();
}

namespace {
thread_local std::string last_report;
}

// The innermost failure wins: an enclosing (reentrant) node reports after it.
void AnomalyMode::set_last_report(std::string report) {
  if (last_report.empty()) last_report = std::move(report);
}
std::string AnomalyMode::take_last_report() { return std::exchange(last_report, std::string()); }

DetectAnomalyGuard::DetectAnomalyGuard(bool nan)
    : previous_enabled_(AnomalyMode::is_enabled()), previous_check_nan_(AnomalyMode::should_check_nan()) {
  AnomalyMode::set_enabled(true, nan);
}
DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(previous_enabled_, previous_check_nan_); }

}  // namespace ember::autograd
