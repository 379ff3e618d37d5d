#pragma once
// What the kernels on oneDNN share: the CPU engine, temporaries from
// Ember's allocator, and moving memory between the user's layout and the
// one a primitive wants.

#include <aten/core/Tensor.h>
#include <aten/native/OneDNNKernels.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <vector>

namespace ember::native::onednn {

using dnnl::memory;

dnnl::engine& cpu_engine();

// oneDNN memory described by `d` over a tensor's data (no copy).
memory plain(const memory::desc& d, const Tensor& t);

// Layout temporaries come from Ember's allocator, whose cache of large
// blocks serves them again on the next call (oneDNN's own would be fresh,
// page-faulting memory every time); a Scratch keeps them for one call.
struct Scratch {
  memory make(const memory::desc& d);
  std::vector<Tensor> buffers;
};

// `user` as the primitive wants it: itself, or reordered into a temporary.
memory to_layout(memory user, const memory::desc& wanted, dnnl::stream& s, Scratch& scratch);

// A primitive's output: written in place when the primitive wants the
// user's layout, else into a temporary reordered into it by finish().
struct Output {
  Output(memory user_, const memory::desc& wanted, Scratch& scratch)
      : user(std::move(user_)), actual(user.get_desc() == wanted ? user : scratch.make(wanted)) {}
  void finish(dnnl::stream& s) {
    if (actual != user) dnnl::reorder(actual, user).execute(s, actual, user);
  }
  memory user, actual;
};

// The primitive's scratchpad comes from the caller (Scratch): oneDNN's own
// would stay allocated at its largest size for the process's life.
inline dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

}  // namespace ember::native::onednn
