#include <lazy/Metrics.h>

#include <fmt/format.h>

#include <mutex>

namespace ember::lazy::metrics {

namespace {

std::mutex mutex;
std::map<std::string, int64_t>& counter_table() {
  static std::map<std::string, int64_t> table;
  return table;
}
std::map<std::string, Sample>& sample_table() {
  static std::map<std::string, Sample> table;
  return table;
}

std::string amount(const std::string& name, double value) {
  if (name.size() >= 4 && name.compare(name.size() - 4, 4, "Time") == 0) {
    if (value >= 1) return fmt::format("{:.3f}s", value);
    return fmt::format("{:.3f}ms", value * 1e3);
  }
  return fmt::format("{:g}", value);
}

}  // namespace

void count(const std::string& name, int64_t n) {
  std::lock_guard<std::mutex> lock(mutex);
  counter_table()[name] += n;
}

void record(const std::string& name, double value) {
  std::lock_guard<std::mutex> lock(mutex);
  Sample& s = sample_table()[name];
  ++s.count;
  s.total += value;
  s.last = value;
  if (value > s.max || s.count == 1) s.max = value;
}

std::map<std::string, int64_t> counters() {
  std::lock_guard<std::mutex> lock(mutex);
  return counter_table();
}

std::map<std::string, Sample> samples() {
  std::lock_guard<std::mutex> lock(mutex);
  return sample_table();
}

std::string report() {
  std::lock_guard<std::mutex> lock(mutex);
  std::string out;
  for (const auto& [name, s] : sample_table()) {
    out += fmt::format("Metric: {}\n  TotalSamples: {}\n  Accumulator: {}\n  Mean: {}\n  Max: {}\n", name, s.count,
                       amount(name, s.total), amount(name, s.total / static_cast<double>(s.count)),
                       amount(name, s.max));
  }
  for (const auto& [name, value] : counter_table()) out += fmt::format("Counter: {}\n  Value: {}\n", name, value);
  return out;
}

void reset() {
  std::lock_guard<std::mutex> lock(mutex);
  counter_table().clear();
  sample_table().clear();
}

}  // namespace ember::lazy::metrics
