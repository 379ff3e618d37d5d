"""ember.library.custom_op: operators from typed Python functions, with a
Meta (fake) kernel, per-device kernels, a registered backward, mutated
arguments, and errors that keep the kernel's traceback."""

import traceback
from typing import Optional, Sequence

import numpy as np
import pytest

import ember


@ember.library.custom_op("custom_test::numpy_sin", mutates_args=())
def numpy_sin(x: ember.Tensor, scale: float = 1.0) -> ember.Tensor:
    return ember.from_numpy(np.sin(x.detach().numpy()) * scale)  # opaque to autograd


@numpy_sin.register_fake
def _(x, scale=1.0):
    return ember.empty_like(x)


def _setup(ctx, inputs, output):
    x, *rest = inputs
    ctx.save_for_backward(x)
    ctx.scale = rest[0] if rest else 1.0


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * x.cos() * ctx.scale, None


numpy_sin.register_autograd(_backward, setup_context=_setup)


def test_values_gradient_and_meta():
    x = ember.tensor([0.5, 1.0, -2.0], dtype=ember.float64, requires_grad=True)
    y = numpy_sin(x, 2.0)
    np.testing.assert_allclose(y.detach().numpy(), 2 * np.sin(x.detach().numpy()))
    assert ember.ops.custom_test.numpy_sin(x, 2.0).grad_fn is not None
    assert ember.autograd.gradcheck(lambda t: numpy_sin(t, 2.0), (x,))
    assert ember.autograd.gradcheck(lambda t: numpy_sin(t), (x,))
    meta = numpy_sin(ember.ones(4, 2, device="meta"))
    assert meta.is_meta and meta.shape == (4, 2)
    assert ember._C._schema("custom_test::numpy_sin") == \
        "custom_test::numpy_sin(Tensor x, float scale=1.0) -> Tensor"


def test_mutated_arguments_and_device_kernels():
    @ember.library.custom_op("custom_test::add_into", mutates_args=("out",), device_types="cpu")
    def add_into(a: ember.Tensor, b: ember.Tensor, out: ember.Tensor) -> None:
        out.copy_(a + b)

    out = ember.zeros(2)
    add_into(ember.ones(2), ember.full((2,), 2.0), out)
    assert out.tolist() == [3.0, 3.0]
    assert ember._C._schema("custom_test::add_into") == \
        "custom_test::add_into(Tensor a, Tensor b, Tensor(a!) out) -> ()"
    with pytest.raises(NotImplementedError, match="custom_test::add_into.*'Meta' backend"):
        add_into(ember.ones(2, device="meta"), ember.ones(2, device="meta"), ember.ones(2, device="meta"))

    @add_into.register_kernel("meta")
    def _(a, b, out):
        return None

    add_into(ember.ones(2, device="meta"), ember.ones(2, device="meta"), ember.ones(2, device="meta"))


def test_schema_inference():
    def f(x: ember.Tensor, dims: Sequence[int], w: Optional[ember.Tensor] = None, *, flag: bool = True,
          dtype: Optional[ember.dtype] = None) -> tuple[ember.Tensor, ember.Tensor]:
        ...

    assert ember.library.infer_schema(f, mutates_args=()) == \
        "(Tensor x, int[] dims, Tensor? w=None, *, bool flag=True, ScalarType? dtype=None) -> (Tensor, Tensor)"

    def untyped(x):
        return x

    with pytest.raises(ValueError, match="Parameter x must have a type annotation"):
        ember.library.infer_schema(untyped, mutates_args=())

    def g(x: ember.Tensor) -> ember.Tensor:
        return x

    with pytest.raises(ValueError, match="mutates_args names \\['y'\\]"):
        ember.library.infer_schema(g, mutates_args=("y",))
    with pytest.raises(ValueError, match="must be 'namespace::name'"):
        ember.library.custom_op("nonamespace", g, mutates_args=())


def test_errors_in_the_kernel_keep_their_type_and_traceback():
    @ember.library.custom_op("custom_test::boom", mutates_args=())
    def boom(x: ember.Tensor) -> ember.Tensor:
        raise KeyError("inner failure")

    with pytest.raises(KeyError, match="inner failure") as caught:
        boom(ember.ones(1))
    assert "in boom" in "".join(traceback.format_tb(caught.value.__traceback__))


def test_ember_function_overrides_see_custom_ops():
    @ember.library.custom_op("custom_test::double", mutates_args=())
    def double(x: ember.Tensor) -> ember.Tensor:
        return x * 2

    class Logged(ember.Tensor):
        calls = []

        @classmethod
        def __ember_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(repr(func))
            return super().__ember_function__(func, types, args, kwargs or {})

    x = ember.ones(2).as_subclass(Logged)
    y = double(x)
    assert type(y) is Logged and y.tolist() == [2.0, 2.0]
    assert Logged.calls[0] == "<OpOverload custom_test::double>"
