// Module-level functions that are not operators: random number generators
// and global defaults. The operators (ember.zeros, ember.transpose, ...) are
// generated from native_functions.yaml.

#include "pybind_tensor.h"

#include <aten/Parallel.h>
#include <aten/native/OneDNNKernels.h>
#include <aten/native/cpu/CpuCapability.h>

namespace ember::python {

namespace {

// A seed: any Python integer in [-2^63, 2^64). Generator.seed() hands out
// the whole uint64 range, and negative seeds wrap around, as in torch.
uint64_t seed_arg(py::handle obj) {
  const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!index) throw py::error_already_set();
  unsigned long long seed = PyLong_AsUnsignedLongLong(index.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    seed = static_cast<unsigned long long>(PyLong_AsLongLong(index.ptr()));
    if (PyErr_Occurred()) throw py::error_already_set();
  }
  return seed;
}

}  // namespace

void init_functions(py::module_& m) {
  m.def("promote_types", &c10::promoteTypes, py::arg("type1"), py::arg("type2"));
  m.def("get_default_dtype", &c10::get_default_dtype);
  m.def("get_num_threads", &get_num_threads);
  m.def("set_num_threads", &set_num_threads, py::arg("int"));
  m.def("_get_cpu_capability", [] { return native::cpu::to_string(native::cpu::cpu_capability()); });
  m.def("_lowp_kernels", [] {
    py::dict kernels;
    for (const auto& [name, t] : {std::pair{"bfloat16", c10::ScalarType::BFloat16}, {"float16", c10::ScalarType::Half}}) {
      kernels[name] = py::dict(py::arg("matmul") = native::onednn::lowp_gemm_kernel(t),
                               py::arg("conv2d") = native::onednn::lowp_conv_kernel(t));
    }
    return kernels;
  });
  m.def("set_default_dtype", &c10::set_default_dtype, py::arg("d"));

  py::class_<Generator>(m, "Generator")
      .def(py::init([](const c10::Device& device) { return make_generator(device); }),
           py::arg("device") = c10::Device(c10::DeviceType::CPU))
      .def("manual_seed", [](Generator& g, py::handle seed) -> Generator& {
             return g.manual_seed(seed_arg(seed));
           }, py::arg("seed"), py::return_value_policy::reference_internal)
      .def("initial_seed", &Generator::initial_seed)
      .def("seed", &Generator::seed)
      .def("get_state", [](const Generator& g) {
        const std::vector<uint8_t> state = g.get_state();
        Tensor t = empty({static_cast<int64_t>(state.size())}, TensorOptions().dtype(ScalarType::Byte));
        std::copy(state.begin(), state.end(), t.data_ptr<uint8_t>());
        return t;
      })
      .def("set_state", [](Generator& g, const Tensor& state) {
        EMBER_CHECK_TYPE(state.dtype() == ScalarType::Byte && state.dim() == 1 && state.is_cpu(),
                         "RNG state must be a 1-D uint8 CPU tensor (a torch.ByteTensor), got {} {}-D on {}",
                         c10::python_name(state.dtype()), state.dim(), state.device().str());
        const Tensor s = state.contiguous();
        const uint8_t* p = s.data_ptr<uint8_t>();
        g.set_state(std::vector<uint8_t>(p, p + s.numel()));
      }, py::arg("new_state"))
      .def_property_readonly("device", &Generator::device);
  m.attr("default_generator") = py::cast(default_cpu_generator(), py::return_value_policy::reference);
  m.def("manual_seed", [](py::handle seed) -> Generator& {
    manual_seed(seed_arg(seed));
    return default_cpu_generator();
  }, py::arg("seed"), py::return_value_policy::reference);
  m.def("_default_generator", &default_generator, py::arg("device"), py::return_value_policy::reference);
  m.def("initial_seed", [] { return default_cpu_generator().initial_seed(); });
  m.def("seed", [] { return default_cpu_generator().seed(); });
}

}  // namespace ember::python
