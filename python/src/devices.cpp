// The per-device-type hooks (c10/core/DeviceHooks.h) as Python functions,
// keyed by device type name: ember.cuda and any later backend module are
// written over these and never over a backend's own C++ API.

#include <c10/core/DeviceHooks.h>

#include "pybind_tensor.h"

namespace ember::python {

namespace {

// nullptr when no backend of that type was built (or loaded).
const c10::DeviceHooks* hooks_or_null(const std::string& type) {
  return c10::GetDeviceHooks(c10::Device(type).type);
}

const c10::DeviceHooks& hooks(const std::string& type) {
  const c10::DeviceHooks* h = hooks_or_null(type);
  EMBER_CHECK(h != nullptr, "Ember was built without {} support", type);
  return *h;
}

}  // namespace

void init_devices(py::module_& m) {
#ifdef EMBER_CUDA_VERSION
  m.attr("_cuda_version") = EMBER_CUDA_VERSION;
#else
  m.attr("_cuda_version") = py::none();
#endif
  m.def("_rename_privateuse1_backend", [](const std::string& name) { c10::rename_privateuse1_backend(name); });
  m.def("_get_privateuse1_backend_name",
        [] { return std::string(c10::toString(c10::DeviceType::PrivateUse1)); });
  m.def("_device_backend_built", [](const std::string& type) { return hooks_or_null(type) != nullptr; });
  m.def("_device_count", [](const std::string& type) {
    const c10::DeviceHooks* h = hooks_or_null(type);
    return h ? h->device_count() : 0;
  });
  m.def("_device_unavailable_reason", [](const std::string& type) {
    const c10::DeviceHooks* h = hooks_or_null(type);
    return h ? h->unavailable_reason() : fmt::format("Ember was built without {} support", type);
  });
  m.def("_current_device", [](const std::string& type) { return hooks(type).current_device(); });
  m.def("_set_device", [](const std::string& type, int index) { hooks(type).set_device(index); });
  m.def("_device_synchronize", [](const std::string& type, int index) {
    py::gil_scoped_release no_gil;
    hooks(type).synchronize(index);
  });
  m.def("_device_properties", [](const std::string& type, int index) {
    const c10::DeviceProperties p = hooks(type).device_properties(index);
    return py::dict(py::arg("name") = p.name, py::arg("total_memory") = p.total_memory, py::arg("major") = p.major,
                    py::arg("minor") = p.minor, py::arg("multi_processor_count") = p.multi_processor_count);
  });
  m.def("_device_mem_get_info", [](const std::string& type, int index) { return hooks(type).mem_get_info(index); });
  m.def("_device_memory_stats", [](const std::string& type, int index) { return hooks(type).memory_stats(index); });
  m.def("_device_reset_peak_memory_stats",
        [](const std::string& type, int index) { hooks(type).reset_peak_memory_stats(index); });
  m.def("_device_empty_cache", [](const std::string& type) {
    const c10::DeviceHooks* h = hooks_or_null(type);
    if (h) h->empty_cache();
  });
}

}  // namespace ember::python
