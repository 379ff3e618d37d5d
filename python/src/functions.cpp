// Module-level functions: factories, random number generators, defaults.
// Factories take the size as a list here; the Python package adds the
// `ember.zeros(2, 3)` spelling on top.

#include "pybind_tensor.h"

namespace ember::python {

namespace {

TensorOptions options(std::optional<ScalarType> dtype, std::optional<c10::Device> device, bool requires_grad) {
  return TensorOptions().dtype(dtype).device(device).requires_grad(requires_grad);
}

using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<c10::Device>;
using OptGenerator = std::optional<Generator>;
using OptTensor = std::optional<Tensor>;

// out= for factories: the result is written into `out`, resized as needed.
Tensor into(Tensor result, OptTensor out) {
  if (!out) return result;
  if (out->sizes() != result.sizes()) resize_(*out, result.sizes());
  out->copy_(result);
  return *out;
}

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

// The keyword arguments every factory accepts (a macro: pybind11 takes them
// as separate arguments of def()).
// Arguments after py::args are keyword-only already; elsewhere a
// py::kw_only() precedes them.
#define EMBER_FACTORY_KWARGS                                                                               \
  py::arg("out") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),             \
      py::arg("requires_grad") = false

void init_functions(py::module_& m) {
  // clang-format off
  m.def("empty", [](const py::args& size, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(empty(shape_from_args(size, "empty"), options(dt, dev, rg)), out);
  }, EMBER_FACTORY_KWARGS);
  m.def("empty_strided", [](std::vector<int64_t> size, std::vector<int64_t> stride, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(empty_strided(size, stride, options(dt, dev, rg)), out);
  }, py::arg("size"), py::arg("stride"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("zeros", [](const py::args& size, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(zeros(shape_from_args(size, "zeros"), options(dt, dev, rg)), out);
  }, EMBER_FACTORY_KWARGS);
  m.def("ones", [](const py::args& size, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(ones(shape_from_args(size, "ones"), options(dt, dev, rg)), out);
  }, EMBER_FACTORY_KWARGS);
  m.def("full", [](std::vector<int64_t> size, Scalar value, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(full(size, value, options(dt, dev, rg)), out);
  }, py::arg("size"), py::arg("fill_value"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("scalar_tensor", [](Scalar value, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(scalar_tensor(value, options(dt, dev, rg)), out);
  }, py::arg("s"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("empty_like", [](const Tensor& self, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(empty_like(self, options(dt, dev, rg)), out);
  }, py::arg("input"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("zeros_like", [](const Tensor& self, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(zeros_like(self, options(dt, dev, rg)), out);
  }, py::arg("input"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("ones_like", [](const Tensor& self, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(ones_like(self, options(dt, dev, rg)), out);
  }, py::arg("input"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("full_like", [](const Tensor& self, Scalar value, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(full_like(self, value, options(dt, dev, rg)), out);
  }, py::arg("input"), py::arg("fill_value"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("rand_like", [](const Tensor& self, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(rand_like(self, options(dt, dev, rg)), out);
  }, py::arg("input"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("randn_like", [](const Tensor& self, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(randn_like(self, options(dt, dev, rg)), out);
  }, py::arg("input"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("arange", [](Scalar start, std::optional<Scalar> end, Scalar step, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    // arange(end) or arange(start, end, step).
    return into(end ? arange(start, *end, step, options(dt, dev, rg)) : arange(start, options(dt, dev, rg)), out);
  }, py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("linspace", [](Scalar start, Scalar end, int64_t steps, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(linspace(start, end, steps, options(dt, dev, rg)), out);
  }, py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("eye", [](int64_t n, std::optional<int64_t> mm, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(eye(n, mm, options(dt, dev, rg)), out);
  }, py::arg("n"), py::arg("m") = py::none(), py::kw_only(), EMBER_FACTORY_KWARGS);
  m.def("rand", [](const py::args& size, OptGenerator g, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(rand(shape_from_args(size, "rand"), g, options(dt, dev, rg)), out);
  }, py::arg("generator") = py::none(), EMBER_FACTORY_KWARGS);
  m.def("randn", [](const py::args& size, OptGenerator g, OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    return into(randn(shape_from_args(size, "randn"), g, options(dt, dev, rg)), out);
  }, py::arg("generator") = py::none(), EMBER_FACTORY_KWARGS);
  // randint(high, size), randint(high, size=size) or randint(low, high, size).
  m.def("randint", [](int64_t low_or_high, py::object high_or_size, py::object size_or_none, OptGenerator g,
                      OptTensor out, OptDtype dt, OptDevice dev, bool rg) {
    const bool three = !high_or_size.is_none() && !size_or_none.is_none();
    const int64_t low = three ? low_or_high : 0;
    const int64_t high = three ? index_from_object(high_or_size, "high") : low_or_high;
    const py::object size = three || high_or_size.is_none() ? size_or_none : high_or_size;
    EMBER_CHECK_TYPE(!size.is_none(), "randint() missing required argument 'size'");
    return into(randint(low, high, shape_from_args(py::make_tuple(size), "randint"), g, options(dt, dev, rg)), out);
  }, py::arg("low"), py::arg("high") = py::none(), py::arg("size") = py::none(), py::kw_only(),
     py::arg("generator") = py::none(), EMBER_FACTORY_KWARGS);

  m.def("as_strided", [](const Tensor& self, std::vector<int64_t> size, std::vector<int64_t> stride,
                         std::optional<int64_t> offset) { return as_strided(self, size, stride, offset); },
        py::arg("input"), py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
  m.def("equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); }, py::arg("input"), py::arg("other"));
  m.def("promote_types", &c10::promoteTypes, py::arg("type1"), py::arg("type2"));
  m.def("get_default_dtype", &c10::get_default_dtype);
  m.def("set_default_dtype", &c10::set_default_dtype, py::arg("d"));

  py::class_<Generator>(m, "Generator")
      .def(py::init([](const c10::Device& device) {
             EMBER_CHECK(device.is_cpu(), "Generator: only CPU generators are supported, got device {}", device.str());
             return Generator();
           }),
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
        EMBER_CHECK_TYPE(state.dtype() == ScalarType::Byte && state.dim() == 1,
                         "expected a 1-D torch.ByteTensor-like uint8 tensor as the generator state");
        const Tensor s = state.contiguous();
        const uint8_t* p = s.data_ptr<uint8_t>();
        g.set_state(std::vector<uint8_t>(p, p + s.numel()));
      }, py::arg("new_state"))
      .def_property_readonly("device", [](const Generator&) { return c10::Device(c10::DeviceType::CPU); });
  m.attr("default_generator") = py::cast(default_cpu_generator(), py::return_value_policy::reference);
  m.def("manual_seed", [](py::handle seed) -> Generator& {
    return default_cpu_generator().manual_seed(seed_arg(seed));
  }, py::arg("seed"), py::return_value_policy::reference);
  m.def("initial_seed", [] { return default_cpu_generator().initial_seed(); });
  m.def("seed", [] { return default_cpu_generator().seed(); });
}

#undef EMBER_FACTORY_KWARGS

}  // namespace ember::python
