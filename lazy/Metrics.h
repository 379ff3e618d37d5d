#pragma once
// Counters and timings of the lazy device, for performance debugging as
// PyTorch/XLA's metrics report gives: graphs compiled and cache hits,
// compile and run times, transfers, graph sizes, and every op that fell
// back to eager CPU. Process-wide; ember.lazy.metrics reads them.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace ember::lazy::metrics {

struct Sample {
  int64_t count = 0;
  double total = 0, max = 0, last = 0;
};

void count(const std::string& name, int64_t n = 1);
// One sample of a measured quantity (seconds for names ending in "Time").
void record(const std::string& name, double value);
std::map<std::string, int64_t> counters();
std::map<std::string, Sample> samples();
// Every counter and sample, one per line, in a fixed order (an expect test reads it).
std::string report();
void reset();

// Records the seconds from its construction to its end as one sample.
class ScopedTimer {
 public:
  explicit ScopedTimer(std::string name) : name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() { record(name_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()); }

 private:
  std::string name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ember::lazy::metrics
