// ember._C's autocast functions: the state ember.amp.autocast regions set,
// and the policy table the Python-level functions consult.

#include "pybind_tensor.h"

#include <aten/autocast/AutocastMode.h>
#include <aten/autocast/AutocastPolicies.h>

namespace ember::python {
namespace {

c10::DeviceType device_type_of(const std::string& name) { return c10::Device(name).type; }

}  // namespace

void init_autocast(py::module_& m) {
  namespace ac = ember::autocast;
  m.def("_is_autocast_available", [](const std::string& d) { return ac::is_autocast_available(device_type_of(d)); });
  m.def("_is_autocast_enabled", [](const std::string& d) { return ac::is_autocast_enabled(device_type_of(d)); });
  m.def("_set_autocast_enabled",
        [](const std::string& d, bool enabled) { ac::set_autocast_enabled(device_type_of(d), enabled); });
  m.def("_get_autocast_dtype", [](const std::string& d) { return ac::get_autocast_dtype(device_type_of(d)); });
  m.def("_set_autocast_dtype",
        [](const std::string& d, c10::ScalarType t) { ac::set_autocast_dtype(device_type_of(d), t); });
  m.def("_is_autocast_cache_enabled", &ac::is_autocast_cache_enabled);
  m.def("_set_autocast_cache_enabled", &ac::set_autocast_cache_enabled);
  m.def("_autocast_increment_nesting", &ac::increment_nesting);
  m.def("_autocast_decrement_nesting", &ac::decrement_nesting);
  m.def("_clear_autocast_cache", &ac::clear_cache);
  m.def("_autocast_cache_stats", [] { return py::make_tuple(ac::cache_size(), ac::cache_hits()); });
  m.def("_autocast_policy", [](const std::string& op, const std::string& d) {
    return std::string(ac::toString(ac::policy_for(op, device_type_of(d))));
  });
  m.def("_autocast_check_not_banned",
        [](const std::string& op, const std::string& d) { ac::check_not_banned(op, device_type_of(d)); });
  m.def("_autocast_policy_table", [] {
    py::list rows;
    for (const ac::PolicyRow& row : ac::policy_table()) {
      rows.append(py::make_tuple(std::string(row.op), std::string(ac::toString(row.cpu)),
                                 std::string(ac::toString(row.cuda))));
    }
    return rows;
  });
  m.def("_autocast_cast", [](const Tensor& t, c10::ScalarType dtype, const std::string& d) {
    return ac::cast(t, dtype, device_type_of(d));
  });
}

}  // namespace ember::python
