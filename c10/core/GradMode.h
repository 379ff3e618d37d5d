#pragma once
// Whether operations record autograd history on this thread (no_grad turns
// it off), and inference mode, a stricter no_grad whose tensors can never
// enter a graph. Thread-local, changed through the guards.

#include <c10/core/LocalDispatchKeySet.h>

#include <optional>

namespace c10 {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets grad mode for a scope and restores the previous mode on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

// Tensors made while inference mode is on are inference tensors: no version
// counting is promised for them and autograd refuses to save them.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled();

 private:
  bool previous_inference_;
  bool previous_grad_;
  // Inference tensors skip the autograd kernels altogether.
  std::optional<ExcludeDispatchKeyGuard> skip_autograd_;
  std::optional<UnexcludeDispatchKeyGuard> resume_autograd_;
};

}  // namespace c10
