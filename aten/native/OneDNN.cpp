#include <aten/native/OneDNN.h>

#include <aten/Functions.h>
#include <aten/Parallel.h>

namespace ember::native::onednn {

dnnl::engine& cpu_engine() {
  use_num_threads_on_this_thread();  // every primitive's call passes here
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

memory plain(const memory::desc& d, const Tensor& t) { return memory(d, cpu_engine(), t.data_ptr()); }

memory Scratch::make(const memory::desc& d) {
  buffers.push_back(ember::empty({static_cast<int64_t>(d.get_size())}, ScalarType::Byte));
  return plain(d, buffers.back());
}

memory to_layout(memory user, const memory::desc& wanted, dnnl::stream& s, Scratch& scratch) {
  if (user.get_desc() == wanted) return user;
  memory converted = scratch.make(wanted);
  dnnl::reorder(user, converted).execute(s, user, converted);
  return converted;
}

}  // namespace ember::native::onednn
