#pragma once
// Learning-rate schedules, stepped once per epoch after optimizer.step(),
// with the recurrences of Python's (so both frontends set the same lr to
// the last bit): StepLR and CosineAnnealingLR.

#include <api/optim/optimizer.h>

#include <vector>

namespace ember::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  void step();
  int64_t last_epoch() const { return last_epoch_; }
  std::vector<double> get_last_lr() const;

 protected:
  // The lrs for last_epoch_ (already advanced), from the groups' current ones.
  virtual std::vector<double> next_lrs() = 0;
  std::vector<double> current_lrs() const;

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_ = 0;
};

// lr * gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 private:
  std::vector<double> next_lrs() override;
  int64_t step_size_;
  double gamma_;
};

// From the initial lr down to eta_min along half a cosine over T_max epochs.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);

 private:
  std::vector<double> next_lrs() override;
  int64_t t_max_;
  double eta_min_;
};

}  // namespace ember::optim
