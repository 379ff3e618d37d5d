// Autograd from Python: Tensor's autograd attributes, graph nodes
// (grad_fn), the engine entry points, grad and anomaly modes, saved-tensor
// hooks and custom functions (ember.autograd.Function).

#include "pybind_tensor.h"

#include <autograd/AnomalyMode.h>
#include <autograd/Autograd.h>
#include <autograd/CustomFunction.h>
#include <autograd/Engine.h>
#include <autograd/Variable.h>
#include <autograd/functions/Basic.h>

#include <c10/core/GradMode.h>

#include <optional>

namespace ember::python {

namespace {

using autograd::Node;
using autograd::variable_list;
namespace impl = autograd::impl;

// What a hook registration returns: remove() takes the hook out again.
struct RemovableHandle {
  std::function<void()> remove_fn;
  void remove() {
    if (remove_fn) std::exchange(remove_fn, nullptr)();
  }
};

// Python callables run from the engine; it runs with the GIL held, but a
// hook may also run while a C++ caller released it.
Tensor call_tensor_hook(const py::function& fn, const Tensor& grad) {
  py::gil_scoped_acquire gil;
  py::object result = fn(grad);
  if (result.is_none()) return Tensor();
  return result.cast<Tensor>();
}

std::vector<std::optional<Tensor>> optional_list(const variable_list& ts) {
  std::vector<std::optional<Tensor>> out;
  for (const Tensor& t : ts) out.push_back(t.defined() ? std::optional<Tensor>(t) : std::nullopt);
  return out;
}

variable_list tensor_list(const std::vector<std::optional<Tensor>>& ts) {
  variable_list out;
  for (const auto& t : ts) out.push_back(t.value_or(Tensor()));
  return out;
}

py::tuple next_functions(const Node& node) {
  py::tuple t(node.num_outputs());
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    const autograd::Edge& e = node.next_edge(i);
    t[i] = py::make_tuple(e.function ? py::cast(e.function) : py::none(), e.input_nr);
  }
  return t;
}

// Saved-tensor hooks from Python (ember.autograd.graph.saved_tensors_hooks).
struct PySavedVariableHooks final : autograd::SavedVariableHooks {
  PySavedVariableHooks(py::function pack, py::function unpack) : pack_(std::move(pack)), unpack_(std::move(unpack)) {}
  ~PySavedVariableHooks() override {
    py::gil_scoped_acquire gil;
    pack_ = py::function();
    unpack_ = py::function();
    packed_ = py::object();
  }
  void call_pack_hook(const Tensor& t) override {
    py::gil_scoped_acquire gil;
    packed_ = pack_(t);
  }
  Tensor call_unpack_hook() override {
    py::gil_scoped_acquire gil;
    py::object result = unpack_(packed_);
    EMBER_CHECK(py::isinstance(result, py::module_::import("ember").attr("Tensor")),
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}",
                py::str(py::type::of(result).attr("__name__")).cast<std::string>());
    return result.cast<Tensor>();
  }

 private:
  py::function pack_, unpack_;
  py::object packed_;
};

struct PyInferenceMode {
  bool enabled;
  std::unique_ptr<c10::InferenceMode> guard;
  void enter() { guard = std::make_unique<c10::InferenceMode>(enabled); }
  void exit() { guard.reset(); }
};

void init_tensor_autograd(TensorClass& cls) {
  cls.def_property(
         "requires_grad", [](const Tensor& self) { return self.requires_grad(); },
         [](Tensor& self, bool value) {
           // As in torch, the attribute is for leaves only (requires_grad_ accepts True on any tensor).
           EMBER_CHECK(impl::is_leaf(self), "you can only change requires_grad flags of leaf variables.");
           self.set_requires_grad(value);
         })
      .def(
          "requires_grad_", [](Tensor& self, bool value) -> Tensor { return self.set_requires_grad(value); },
          py::arg("requires_grad") = true)
      .def_property_readonly("is_leaf", [](const Tensor& self) { return impl::is_leaf(self); })
      .def_property_readonly("grad_fn", [](const Tensor& self) { return impl::grad_fn(self); })
      .def_property_readonly("output_nr", [](const Tensor& self) { return impl::output_nr(self); })
      .def_property_readonly("_base", [](const Tensor& self) { return impl::base(self); })
      .def("_is_view", [](const Tensor& self) { return impl::is_view(self); })
      .def("is_inference", [](const Tensor& self) { return self.is_inference(); })
      .def_property(
          "grad",
          [](const Tensor& self) -> Tensor {
            auto* meta = impl::get_autograd_meta(self);
            if (meta && !meta->retains_grad && !impl::is_leaf(self)) {
              if (PyErr_WarnEx(PyExc_UserWarning,
                               "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                               ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                               "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                               "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
                               "the leaf Tensor instead.",
                               1) != 0) {
                throw py::error_already_set();
              }
            }
            return meta ? meta->grad : Tensor();
          },
          [](Tensor& self, std::optional<Tensor> grad) {
            if (grad && grad->defined()) {
              EMBER_CHECK(grad->sizes() == self.sizes(),
                          "attempting to assign a gradient of size '{}' to a tensor of size '{}'. Please ensure that "
                          "the gradient and the tensor are the same size",
                          c10::str_sizes(grad->sizes()), c10::str_sizes(self.sizes()));
              EMBER_CHECK(grad->dtype() == self.dtype(),
                          "attempting to assign a gradient with dtype '{}' to a tensor with dtype '{}'. Please ensure "
                          "that the gradient and the tensor have the same dtype",
                          c10::python_name(grad->dtype()), c10::python_name(self.dtype()));
              EMBER_CHECK(grad->device() == self.device(),
                          "attempting to assign a gradient with device type '{}' to a tensor with device type '{}'. "
                          "Please ensure that the gradient and the tensor are on the same device",
                          grad->device().str(), self.device().str());
            }
            if (!impl::get_autograd_meta(self) && (!grad || !grad->defined())) return;
            impl::materialize_autograd_meta(self)->grad = grad.value_or(Tensor());
          })
      .def("retain_grad", [](const Tensor& self) { self.retain_grad(); })
      .def_property_readonly("retains_grad", [](const Tensor& self) { return self.retains_grad(); })
      .def("detach_",
           [](Tensor& self) -> Tensor {
             EMBER_CHECK(!impl::is_view(self),
                         "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                         "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                         "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                         "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
             if (auto* meta = impl::get_autograd_meta(self)) {
               meta->grad_fn.reset();
               meta->output_nr = 0;
               meta->requires_grad_ = false;
             }
             return self;
           })
      .def(
          "register_hook",
          [](const Tensor& self, py::function fn) {
            const uint64_t id =
                self.register_hook([fn = gil_safe(std::move(fn))](const Tensor& grad) { return call_tensor_hook(*fn, grad); });
            c10::weak_intrusive_ptr<c10::TensorImpl> weak(self.impl_ptr());
            return RemovableHandle{[weak, id] {
              if (auto strong = weak.lock()) Tensor(strong).remove_hook(id);
            }};
          },
          py::arg("hook"))
      .def(
          "register_post_accumulate_grad_hook",
          [](const Tensor& self, py::function fn) {
            EMBER_CHECK(impl::is_leaf(self), "post accumulate grad hooks cannot be registered on non-leaf tensors");
            EMBER_CHECK(self.requires_grad(),
                        "cannot register a hook on a tensor that doesn't require gradient");
            auto* meta = impl::materialize_autograd_meta(self);
            const uint64_t id = autograd::next_hook_id();
            meta->post_accumulate_hooks.emplace_back(id, [fn = gil_safe(std::move(fn))](const Tensor& t) {
              py::gil_scoped_acquire gil;
              (*fn)(t);
            });
            c10::weak_intrusive_ptr<c10::TensorImpl> weak(self.impl_ptr());
            return RemovableHandle{[weak, id] {
              auto strong = weak.lock();
              if (!strong) return;
              auto& hooks = impl::materialize_autograd_meta(Tensor(strong))->post_accumulate_hooks;
              for (auto it = hooks.begin(); it != hooks.end(); ++it) {
                if (it->first == id) {
                  hooks.erase(it);
                  return;
                }
              }
            }};
          },
          py::arg("hook"))
      .def_property(
          "data",
          [](const Tensor& self) {
            // Like torch: shares memory but not the version counter, so
            // changes through .data escape autograd's checks.
            c10::AutoGradMode no_grad(false);
            Tensor data = self.detach();
            data.unsafeGetTensorImpl()->set_version_counter(nullptr);
            return data;
          },
          [](Tensor& self, const Tensor& data) {
            self.unsafeGetTensorImpl()->set_data(*data.unsafeGetTensorImpl());
          });
}

void init_nodes(py::module_& m) {
  py::class_<RemovableHandle>(m, "RemovableHandle")
      .def("remove", &RemovableHandle::remove)
      .def("__enter__", [](RemovableHandle& h) -> RemovableHandle& { return h; })
      .def("__exit__", [](RemovableHandle& h, py::args) { h.remove(); });

  py::class_<Node, std::shared_ptr<Node>>(m, "Node", py::dynamic_attr())
      .def("name", &Node::name)
      .def_property_readonly("next_functions", &next_functions)
      .def_property_readonly("_sequence_nr", &Node::sequence_nr)
      .def_property_readonly("metadata",
                             [](Node& self) {
                               // Kept on the node, so it outlives this Python wrapper.
                               if (!self.python_metadata) {
                                 auto* dict = new py::dict();
                                 self.python_metadata = std::shared_ptr<void>(dict, [](void* p) {
                                   py::gil_scoped_acquire gil;
                                   delete static_cast<py::dict*>(p);
                                 });
                               }
                               return *static_cast<py::dict*>(self.python_metadata.get());
                             })
      .def_property_readonly("variable",
                             [](const Node& self) -> Tensor {
                               auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(&self);
                               // AttributeError, as Python's own, so that getattr(node, "variable", None) works.
                               if (acc == nullptr) {
                                 throw py::attribute_error(
                                     fmt::format("'{}' object has no attribute 'variable'", self.name()));
                               }
                               return acc->variable();
                             })
      .def(
          "register_hook",
          [](const std::shared_ptr<Node>& self, py::function fn) {
            const uint64_t id = self->add_post_hook([fn = gil_safe(std::move(fn))](const variable_list& grad_inputs,
                                                                              const variable_list& grad_outputs) {
              py::gil_scoped_acquire gil;
              py::object r = (*fn)(py::tuple(py::cast(optional_list(grad_inputs))),
                                py::tuple(py::cast(optional_list(grad_outputs))));
              if (r.is_none()) return variable_list{};
              return tensor_list(r.cast<std::vector<std::optional<Tensor>>>());
            });
            std::weak_ptr<Node> weak = self;
            return RemovableHandle{[weak, id] {
              if (auto n = weak.lock()) n->remove_hook(id);
            }};
          },
          py::arg("fn"))
      .def(
          "register_prehook",
          [](const std::shared_ptr<Node>& self, py::function fn) {
            const uint64_t id = self->add_pre_hook([fn = gil_safe(std::move(fn))](const variable_list& grad_outputs) {
              py::gil_scoped_acquire gil;
              py::object r = (*fn)(py::tuple(py::cast(optional_list(grad_outputs))));
              if (r.is_none()) return variable_list{};
              return tensor_list(r.cast<std::vector<std::optional<Tensor>>>());
            });
            std::weak_ptr<Node> weak = self;
            return RemovableHandle{[weak, id] {
              if (auto n = weak.lock()) n->remove_hook(id);
            }};
          },
          py::arg("fn"))
      .def("__call__",
           [](Node& self, py::args grads) {
             variable_list in;
             for (py::handle g : grads) in.push_back(g.is_none() ? Tensor() : g.cast<Tensor>());
             return py::tuple(py::cast(optional_list(self(std::move(in)))));
           })
      .def("__repr__", [](py::object self) {
        return fmt::format("<{} object at {}>", self.attr("name")().cast<std::string>(),
                           py::str(py::module_::import("builtins").attr("hex")(py::module_::import("builtins").attr("id")(self)))
                               .cast<std::string>());
      });
}

}  // namespace

void init_autograd(py::module_& m, TensorClass& cls) {
  init_tensor_autograd(cls);
  py::module_ ag = m.def_submodule("_autograd", "The autograd engine and its modes");
  init_nodes(ag);

  ag.def(
      "backward",
      [](const std::vector<Tensor>& tensors, const std::vector<std::optional<Tensor>>& grads,
         std::optional<bool> retain_graph, bool create_graph, const std::vector<Tensor>& inputs) {
        autograd::backward(tensors, tensor_list(grads), retain_graph, create_graph, inputs);
      },
      py::arg("tensors"), py::arg("grad_tensors"), py::arg("retain_graph"), py::arg("create_graph"),
      py::arg("inputs"));
  ag.def(
      "grad",
      [](const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
         const std::vector<std::optional<Tensor>>& grad_outputs, std::optional<bool> retain_graph, bool create_graph,
         bool allow_unused) {
        return optional_list(
            autograd::grad(outputs, inputs, tensor_list(grad_outputs), retain_graph, create_graph, allow_unused));
      },
      py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs"), py::arg("retain_graph"),
      py::arg("create_graph"), py::arg("allow_unused"));

  ag.def("queue_callback", [](py::function callback) {
    autograd::Engine::queue_callback([fn = gil_safe(std::move(callback))] {
      py::gil_scoped_acquire gil;
      (*fn)();
    });
  });
  ag.def("is_grad_enabled", &c10::GradMode::is_enabled);
  ag.def("set_grad_enabled", &c10::GradMode::set_enabled);
  py::class_<PyInferenceMode>(ag, "_InferenceMode")
      .def(py::init([](bool enabled) { return std::make_unique<PyInferenceMode>(PyInferenceMode{enabled, nullptr}); }))
      .def("__enter__", &PyInferenceMode::enter)
      .def("__exit__", [](PyInferenceMode& self, py::args) { self.exit(); });
  ag.def("is_inference_mode_enabled", &c10::InferenceMode::is_enabled);

  ag.def("set_anomaly_enabled", &autograd::AnomalyMode::set_enabled, py::arg("enabled"), py::arg("check_nan") = true);
  ag.def("is_anomaly_enabled", &autograd::AnomalyMode::is_enabled);
  ag.def("is_anomaly_check_nan_enabled", &autograd::AnomalyMode::should_check_nan);
  ag.def("_take_anomaly_report", &autograd::AnomalyMode::take_last_report);
  ag.def("_push_saved_tensors_hooks", [](py::function pack, py::function unpack) {
    autograd::push_saved_variable_hooks([pack, unpack]() -> std::unique_ptr<autograd::SavedVariableHooks> {
      py::gil_scoped_acquire gil;
      return std::make_unique<PySavedVariableHooks>(pack, unpack);
    });
  });
  ag.def("_pop_saved_tensors_hooks", &autograd::pop_saved_variable_hooks);

  ag.def(
      "_finish_function",
      [](const std::string& name, py::function backward, const std::vector<std::optional<Tensor>>& inputs,
         const std::vector<std::optional<Tensor>>& outputs, const std::vector<Tensor>& dirty,
         const std::vector<Tensor>& non_differentiable, const std::vector<std::optional<Tensor>>& to_save,
         bool materialize_grads) {
        auto node = std::make_shared<autograd::CustomFunctionNode>(
            name, [backward = gil_safe(std::move(backward))](autograd::CustomFunctionNode& self, variable_list grads) {
              variable_list saved = self.unpack_saved();
              py::gil_scoped_acquire gil;
              py::object r = (*backward)(optional_list(saved), optional_list(grads));
              return tensor_list(r.cast<std::vector<std::optional<Tensor>>>());
            });
        const variable_list in = tensor_list(inputs);
        const bool is_executable = impl::compute_requires_grad(c10::ArrayRef<Tensor>(in));
        if (is_executable) node->set_next_edges(impl::collect_next_edges(c10::ArrayRef<Tensor>(in)));
        node->ctx.mark_dirty(dirty);
        node->ctx.mark_non_differentiable(non_differentiable);
        node->ctx.set_materialize_grads(materialize_grads);
        node->ctx.save_for_backward(tensor_list(to_save));
        variable_list out = autograd::finish_custom_function(node, in, tensor_list(outputs), is_executable);
        return py::make_tuple(optional_list(out), is_executable ? py::cast(std::static_pointer_cast<Node>(node))
                                                                : py::none());
      },
      py::arg("name"), py::arg("backward"), py::arg("inputs"), py::arg("outputs"), py::arg("dirty"),
      py::arg("non_differentiable"), py::arg("to_save"), py::arg("materialize_grads"));
}

}  // namespace ember::python
