#include <api/serialize.h>

#include <aten/serialize/Serialization.h>

namespace ember {

void save(const nn::Module& module, const std::string& path) { serialize::save_tensors(module.state_dict(), path); }

void load(nn::Module& module, const std::string& path) { module.load_state_dict(serialize::load_tensors(path)); }

}  // namespace ember
