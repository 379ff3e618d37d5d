#include "fast_calls.h"
#include "pybind_tensor.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "Ember's C++ core";
  ember::python::init_interpreter(m);
  ember::python::init_errors(m);
  ember::python::init_dtype_device(m);
  ember::python::init_tensor(m);
  ember::python::init_functions(m);
  ember::python::init_generated_functions(m);
  ember::python::init_dispatch(m);
  ember::python::init_serialization(m);
  ember::python::init_devices(m);
  ember::python::init_autocast(m);
  ember::python::init_fast_calls(m);
  ember::python::init_distributed(m);
  ember::python::init_jit(m);
  ember::python::init_lazy(m);
  ember::python::init_deploy_bridge(m);
}
