#include <aten/core/Generator.h>
#include <c10/util/Exception.h>

#include <sstream>

namespace ember {

uint64_t Generator::seed() {
  std::random_device device;
  const uint64_t s = (static_cast<uint64_t>(device()) << 32) ^ device();
  manual_seed(s);
  return s;
}

std::vector<uint8_t> Generator::get_state() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::ostringstream out;
  out << impl_->seed() << ' ' << impl_->engine;
  const std::string text = out.str();
  return std::vector<uint8_t>(text.begin(), text.end());
}

void Generator::set_state(const std::vector<uint8_t>& state) {
  std::istringstream in(std::string(state.begin(), state.end()));
  uint64_t seed = 0;
  std::mt19937_64 engine;
  in >> seed >> engine;
  EMBER_CHECK(!in.fail(), "Generator.set_state: the state is not one produced by Generator.get_state");
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->set_seed(seed);
  impl_->engine = engine;
}

Generator& default_cpu_generator() {
  static Generator generator;
  return generator;
}

void manual_seed(uint64_t seed) { default_cpu_generator().manual_seed(seed); }

}  // namespace ember
