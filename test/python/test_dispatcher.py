"""The dispatcher from Python: ember.ops and operators defined by a test."""

import pytest

import ember


def test_ops_namespace_calls_through_the_dispatcher():
    x = ember.arange(6.0).view(2, 3)
    assert ember.ops.aten.transpose.int(x, 0, 1).shape == (3, 2)
    assert ember.ops.aten.transpose(x, dim0=0, dim1=1).stride() == (1, 3)
    z = ember.ops.aten.zeros([2], dtype=ember.int32)
    assert z.dtype is ember.int32 and z.tolist() == [0, 0]
    assert ember.ops.aten.arange.start(1, 7, 2).tolist() == [1, 3, 5]
    assert ember.ops.aten.arange(1, 7, 2).tolist() == [1, 3, 5]  # overload picked by the arguments
    assert ember.ops.aten.arange(3).tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        ember.ops.aten.zeros([2], bogus=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        ember.ops.aten.zeros.default([2], bogus=1)
    with pytest.raises(TypeError, match="missing required argument 'dim1'"):
        ember.ops.aten.transpose.int(x, 0)
    with pytest.raises(AttributeError):
        ember.ops.aten.no_such_op


def test_registered_kernels_are_visible():
    cuda = ["CUDA"] if ember._C._device_backend_built("cuda") else []
    # fill_ and copy_ read through the conjugate and negative bits: fallthroughs on those keys.
    bits = ["Negative", "Conjugate"]
    assert ember._C._registered_keys("aten::fill_.Scalar") == ["CPU", *cuda, "Meta", *bits, "Autograd"]
    # One copy_ for every device: backends plug in a copy loop and byte moves, not a kernel.
    assert ember._C._registered_keys("aten::copy_") == [*bits, "Autograd", "CompositeExplicitAutograd"]
    assert ember._C._registered_keys("aten::view") == ["Autograd", "CompositeExplicitAutograd"]
    assert ember._C._registered_keys("aten::reshape") == ["CompositeImplicitAutograd"]
    assert ember._C._schema("aten::view") == "aten::view(Tensor(a) self, int[] size) -> Tensor(a)"


def test_a_test_can_define_an_operator_with_python_kernels():
    with ember.library.Library("test_lib", "DEF") as lib:
        lib.define("shifted(Tensor self, float by=1.0) -> Tensor")
        lib.impl("shifted", lambda self, by: ember.full(self.shape, by), "CPU")
        x = ember.zeros(2, 2)
        assert ember.ops.test_lib.shifted(x).tolist() == [[1.0, 1.0], [1.0, 1.0]]
        assert ember.ops.test_lib.shifted(x, by=3.0).tolist() == [[3.0, 3.0], [3.0, 3.0]]
        # No Meta kernel: the error names the op, the key and what exists.
        with pytest.raises(NotImplementedError) as e:
            ember.ops.test_lib.shifted(ember.zeros(2, device="meta"))
        assert str(e.value) == (
            "Could not run 'test_lib::shifted' with arguments from the 'Meta' backend. "
            "'test_lib::shifted' is only available for these backends: [CPU].")
        # A composite kernel serves every backend, Meta included.
        lib.impl("shifted", lambda self, by: ember.empty_like(self).fill_(by), "CompositeImplicitAutograd")
        assert ember.ops.test_lib.shifted(ember.zeros(3, device="meta")).shape == (3,)
    with pytest.raises(AttributeError):
        ember.ops.test_lib.shifted


def test_multiple_returns_and_lists():
    with ember.library.Library("test_lib2", "DEF") as lib:
        lib.define("halves(Tensor self, int[] sizes) -> (Tensor, Tensor)")
        lib.impl("halves", lambda self, sizes: (self.narrow(0, 0, sizes[0]), self.narrow(0, sizes[0], sizes[1])),
                 "CPU")
        a, b = ember.ops.test_lib2.halves(ember.arange(5), [2, 3])
        assert a.tolist() == [0, 1] and b.tolist() == [2, 3, 4]


def test_impl_libraries_override_and_restore():
    x = ember.arange(3.0)
    with ember.library.Library("aten", "IMPL", "CPU") as lib:
        lib.impl("clone", lambda self: ember.full(self.shape, -1.0))
        assert ember.clone(x).tolist() == [-1.0, -1.0, -1.0]
    assert ember.clone(x).tolist() == [0.0, 1.0, 2.0]


def test_kernel_errors_reach_python():
    with ember.library.Library("test_lib3", "DEF") as lib:
        lib.define("fails(Tensor self) -> Tensor")

        def kernel(self):
            raise ValueError("kernel says no")

        lib.impl("fails", kernel, "CPU")
        with pytest.raises(ValueError, match="kernel says no"):
            ember.ops.test_lib3.fails(ember.zeros(1))


class TestOperatorLog(__import__("expecttest").TestCase):
    """The logging mode: a boxed fallback on the Python key records each
    top-level operator call, forward and backward (the engine runs CPU
    backward on the calling thread)."""

    def test_forward_and_backward_of_a_linear_relu_layer(self):
        ember.manual_seed(0)
        layer = ember.nn.Linear(3, 2)
        x = ember.ones(4, 3)
        with ember._C._OperatorLog() as forward:
            loss = ember.nn.functional.relu(layer(x)).sum()
        with ember._C._OperatorLog() as backward:
            loss.backward()
        self.assertExpectedInline("\n".join(forward.names), """\
aten::linear
aten::relu
aten::sum""")
        self.assertExpectedInline("\n".join(backward.names), """\
aten::ones_like
aten::unsqueeze
aten::unsqueeze
aten::expand
aten::threshold_backward
aten::t
aten::mm
aten::t
aten::sum.dim_IntList
aten::reshape
aten::empty_like
aten::copy_
aten::detach
aten::transpose.int
aten::empty_like
aten::copy_
aten::detach""")

    def test_logs_nest(self):
        with ember._C._OperatorLog() as outer:
            ember.ones(2).neg()
            with ember._C._OperatorLog() as inner:
                ember.ones(2).exp()
        self.assertEqual(inner.names, ["aten::ones", "aten::exp"])
        self.assertEqual(outer.names, ["aten::ones", "aten::neg", "aten::ones", "aten::exp"])

    def test_a_nested_log_also_sees_the_calls_inside_calls(self):
        x, w = ember.ones(2, 3), ember.ones(4, 3)
        with ember._C._OperatorLog() as top, ember._C._OperatorLog(nested=True) as everything:
            ember.nn.functional.linear(x, w)
        self.assertEqual(top.names, ["aten::linear"])  # an open nested log changes nothing for the others
        self.assertEqual(everything.names[0], "aten::linear")
        self.assertIn("aten::t", everything.names)  # linear's decomposition, then its kernels' calls
        self.assertIn("aten::mm", everything.names)


def test_python_fallback_sees_each_top_level_call_and_calls_on():
    log = []

    def record(op, *args, **kwargs):
        log.append(repr(op))
        return op(*args, **kwargs)  # the fallback's key is excluded here: this reaches the kernel

    x = ember.ones(2, 3, requires_grad=True)
    with ember.library.Library("_", "IMPL") as lib:
        lib.fallback(record, "Python")
        with ember._C._IncludeDispatchKey("Python"):
            y = x.mul(x).relu().sum()
            y.backward()
    assert log[:3] == ["<OpOverload aten::mul.Tensor>", "<OpOverload aten::relu>", "<OpOverload aten::sum>"]
    assert "<OpOverload aten::threshold_backward>" in log  # relu's backward ran under the fallback too
    assert y.item() == 6.0 and x.grad.tolist() == [[2.0] * 3] * 2
    n = len(log)
    with ember._C._IncludeDispatchKey("Python"):
        x.mul(2)  # the library is closed: nothing records
    assert len(log) == n


def test_python_fallback_errors():
    with pytest.raises(RuntimeError, match="registered from an IMPL library of namespace '_'"):
        ember.library.Library("myns", "IMPL", "CPU").fallback(lambda op, *a: None)
    with pytest.raises(NotImplementedError, match="with_keyset"):
        ember.library.Library("_", "IMPL").fallback(lambda op, *a: None, "Python", with_keyset=True)
    with pytest.raises(ValueError, match="dispatch_key"):
        ember.library.Library("_", "IMPL").fallback(lambda op, *a: None)

    def broken(op, *args, **kwargs):
        raise KeyError("from the fallback")

    with ember.library.Library("_", "IMPL") as lib:
        lib.fallback(broken, "Python")
        with ember._C._IncludeDispatchKey("Python"), pytest.raises(KeyError, match="from the fallback"):
            ember.ones(2).neg()
