#pragma once
// Anomaly mode: nodes remember where their forward op ran, and the engine
// reports a backward function that returns NaN, naming that forward op.

#include <functional>
#include <string>

namespace ember::autograd {

struct AnomalyMode {
  static bool is_enabled();
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);

  // The calling thread's Python stack (c10/core/PythonInterpreter.h); empty
  // in C++ programs.
  static std::string capture_forward_trace();

  // When a backward pass fails under anomaly mode: "Error detected in
  // <node>. Traceback of forward call that caused the error: ...". Python
  // turns it into a warning next to the error, as torch does.
  static void set_last_report(std::string report);
  static std::string take_last_report();
};

// Turns anomaly mode on (or off) for a scope.
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool previous_enabled_;
  bool previous_check_nan_;
};

}  // namespace ember::autograd
