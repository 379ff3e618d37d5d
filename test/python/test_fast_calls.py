"""The vectorcall entries in front of the generated bindings
(python/src/fast_calls.h): calls with exactly their tensors take them,
everything else reaches the pybind11 overloads, and a user sees no
difference either way: values, errors, docstrings, subclasses, in-place
identity, __ember_function__."""

import numpy as np
import pytest

import ember


def test_entries_stand_in_front_of_the_hot_names():
    # (Once a class defines __ember_function__, Python wrappers go around them.)
    def unwrapped(f):
        return getattr(f, "__wrapped_ember__", f)

    add, method = unwrapped(ember._C.add), unwrapped(ember.Tensor.__dict__["add"])
    assert type(add).__name__ == "builtin_function_or_method" and repr(add) == "<built-in function add>"
    assert type(method).__name__ == "method_descriptor"
    assert add.__doc__.startswith("add(Tensor input, Tensor or Number other, *, Number alpha=1")
    assert unwrapped(ember.Tensor.__dict__["neg"]).__doc__.startswith("neg() -> Tensor")


def test_tensor_calls_and_every_other_form_agree():
    a, b = ember.tensor([1.0, 2.0, 3.0]), ember.tensor([10.0, 20.0, 30.0])
    expected = [11.0, 22.0, 33.0]
    assert ember.add(a, b).tolist() == expected  # the entry
    assert a.add(b).tolist() == expected
    assert ember.add(a, other=b).tolist() == expected  # keywords: pybind11
    assert ember.add(input=a, other=b).tolist() == expected
    assert ember.add(a, b, alpha=2).tolist() == [21.0, 42.0, 63.0]
    assert ember.add(a, 1).tolist() == [2.0, 3.0, 4.0]  # a number: pybind11
    assert a.add(1.5, alpha=2).tolist() == [4.0, 5.0, 6.0]
    out = ember.empty(3)
    assert ember.add(a, b, out=out) is out and out.tolist() == expected
    assert ember.neg(a).tolist() == [-1.0, -2.0, -3.0] and a.neg().tolist() == [-1.0, -2.0, -3.0]
    assert ember.sum(a).item() == 6.0 and a.sum().item() == 6.0  # the rest defaulted
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        ember.clamp(a)


def test_errors_are_translated_as_pybind11_does():
    with pytest.raises(RuntimeError, match="The size of tensor a \\(2\\) must match the size of tensor b \\(3\\)"):
        ember.add(ember.ones(2), ember.ones(3))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.ones(2, dtype=ember.int64).add_(ember.ones(2))
    with pytest.raises(TypeError, match="add\\(\\)"):
        ember.add(ember.ones(2), "x")  # neither tensor nor number: pybind11's explanation
    with pytest.raises(TypeError):
        ember.add(ember.ones(2))
    with pytest.raises(TypeError):
        ember.add(ember.ones(2), None)


def test_in_place_methods_return_the_same_object():
    a = ember.ones(3)
    assert a.add_(ember.ones(3)) is a and a.tolist() == [2.0, 2.0, 2.0]
    assert a.neg_() is a and a.tolist() == [-2.0, -2.0, -2.0]


def test_subclasses_and_ember_function():
    class Plain(ember.Tensor):
        pass

    p = ember.ones(2).as_subclass(Plain)
    assert type(ember.add(p, p)) is ember.Tensor  # as the pybind11 binding gives it

    class Logged(ember.Tensor):
        calls = []

        @classmethod
        def __ember_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(getattr(func, "__qualname__", func))
            return super().__ember_function__(func, types, args, kwargs)

    x = ember.ones(2).as_subclass(Logged)
    y = ember.add(x, x)
    assert type(y) is Logged and y.tolist() == [2.0, 2.0]
    assert x.neg().tolist() == [-1.0, -1.0]
    assert "add" in Logged.calls and "Tensor.neg" in Logged.calls


def test_autograd_through_the_entries():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0, 4.0], requires_grad=True)
    ember.mul(a, b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 2.0])


def test_int_arguments_of_shape_methods():
    a = ember.arange(10.0)
    assert a.view(2, 5).shape == (2, 5)  # the entry: ints one by one, or one tuple or list
    assert a.view((5, 2)).shape == (5, 2) and a.view([-1]).shape == (10,)
    assert a.view(ember.Size([2, 5])).shape == (2, 5)
    assert a.view(2, 5).permute(1, 0).shape == (5, 2) and a.reshape(5, -1).shape == (5, 2)
    assert a.view(np.int64(2), 5).shape == (2, 5)  # NumPy ints: pybind11's binding
    assert a.view(ember.int32).dtype == ember.int32  # the dtype overload
    for bad in ((2.0, 5), (True, 10), (2, "5")):
        with pytest.raises(TypeError, match="view"):
            a.view(*bad)
    with pytest.raises(RuntimeError, match="shape '\\[3, 3\\]' is invalid for input of size 10"):
        a.view(3, 3)
    with pytest.raises((RuntimeError, TypeError, OverflowError)):
        a.view(2 ** 70)
    v = a.view(2, 5)
    v[0, 0] = 42.0  # a view shares storage
    assert a[0].item() == 42.0
