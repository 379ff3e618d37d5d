#include <api/serialize.h>

#include <aten/serialize/Serialization.h>

namespace ember {

void save(const nn::Module& module, const std::string& path) { serialize::save_tensors(module.state_dict(), path); }

void load(nn::Module& module, const std::string& path) { module.load_state_dict(serialize::load_tensors(path)); }

void save(const optim::Optimizer& optimizer, const std::string& path) {
  serialize::save(optimizer.state_dict(), path);
}

void load(optim::Optimizer& optimizer, const std::string& path) { optimizer.load_state_dict(serialize::load(path)); }

}  // namespace ember
