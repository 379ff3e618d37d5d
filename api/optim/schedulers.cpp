#include <api/optim/schedulers.h>

#include <c10/util/Exception.h>

#include <cmath>

namespace ember::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer), base_lrs_(current_lrs()) {}

std::vector<double> LRScheduler::current_lrs() const {
  std::vector<double> lrs;
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options->get_lr());
  return lrs;
}

std::vector<double> LRScheduler::get_last_lr() const { return current_lrs(); }

void LRScheduler::step() {
  ++last_epoch_;
  const std::vector<double> lrs = next_lrs();
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options->set_lr(lrs[i]);
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_VALUE(step_size > 0, "StepLR: step_size must be positive, got {}", step_size);
}

std::vector<double> StepLR::next_lrs() {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ % step_size_ == 0) {
    for (double& lr : lrs) lr *= gamma_;
  }
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_max > 0, "CosineAnnealingLR: T_max must be positive, got {}", T_max);
}

// Python's chainable form: each lr from the previous one.
std::vector<double> CosineAnnealingLR::next_lrs() {
  std::vector<double> lrs = current_lrs();
  const double t = double(last_epoch_), T = double(t_max_);
  for (size_t i = 0; i < lrs.size(); ++i) {
    if ((last_epoch_ - 1 - t_max_) % (2 * t_max_) == 0) {
      lrs[i] += (base_lrs_[i] - eta_min_) * (1 - std::cos(M_PI / T)) / 2;
    } else {
      lrs[i] = (1 + std::cos(M_PI * t / T)) / (1 + std::cos(M_PI * (t - 1) / T)) * (lrs[i] - eta_min_) + eta_min_;
    }
  }
  return lrs;
}

}  // namespace ember::optim
