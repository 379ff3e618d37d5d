"""The Python Tensor object: one object per tensor (attributes and
subclasses survive trips through C++), and the __ember_function__ protocol."""

import gc
import weakref

import numpy as np
import pytest

import ember
from ember.overrides import DisableEmberFunction, handle_ember_function, has_ember_function


class TestObjectPreservation:
    def test_in_place_ops_and_views_return_the_same_objects(self):
        x = ember.zeros(4)
        x.tag = "mine"
        assert x.add_(1) is x
        v = x[1:3]
        assert v._base is x and v._base.tag == "mine"
        assert ember.ops.aten.add_.Tensor(x, ember.ones(4)) is x

    def test_attributes_survive_autograd(self):
        w = ember.randn(3, requires_grad=True)
        w.label = "weight"
        y = (w * 2).sum()
        acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
        assert acc.name() == "AccumulateGrad"
        assert acc.variable is w and acc.variable.label == "weight"

    def test_subclass_instances_come_back_as_themselves(self):
        class Tagged(ember.Tensor):
            pass

        t = ember.Tensor._make_subclass(Tagged, ember.arange(3.0), True)
        assert type(t) is Tagged and t.is_leaf and t.requires_grad
        grads = []
        t.register_hook(lambda g: grads.append(g))
        (t * t).sum().backward()
        assert ember.equal(t.grad, 2 * t.detach())
        assert t.grad_fn is None
        # Operations give plain tensors (no __ember_function__ here).
        assert type(t + 1) is ember.Tensor

    def test_the_object_dies_with_its_last_reference(self):
        x = ember.ones(2)
        ref = weakref.ref(x)
        del x
        gc.collect()
        assert ref() is None


class Logged(ember.Tensor):
    calls = []

    @classmethod
    def __ember_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(func.__qualname__)
        return super().__ember_function__(func, types, args, kwargs)


class TestEmberFunction:
    def setup_method(self):
        Logged.calls.clear()

    def test_functions_methods_and_operators_reach_the_override(self):
        x = ember.arange(4.0).as_subclass(Logged)
        y = ember.exp(x + 1).sum(0)
        assert Logged.calls == ["Tensor.__add__", "exp", "Tensor.sum"]
        assert type(y) is Logged
        np.testing.assert_allclose(y.item(), np.exp(np.arange(4.0) + 1).sum(), rtol=1e-6)

    def test_results_keep_the_subclass_and_stay_differentiable(self):
        w = ember.randn(3, requires_grad=True)
        x = w.as_subclass(Logged)
        out = (x * 3).sum()
        assert type(out) is Logged
        out.backward()
        assert ember.equal(w.grad, ember.full((3,), 3.0))

    def test_tuple_results_are_converted(self):
        x = ember.tensor([[1.0, 5.0], [7.0, 2.0]]).as_subclass(Logged)
        values, indices = ember.max(x, 1)
        assert type(values) is Logged and type(indices) is Logged

    def test_other_classes_can_take_over_a_function(self):
        class Duck:
            @classmethod
            def __ember_function__(cls, func, types, args=(), kwargs=None):
                if func is ember.add:
                    return "duck added"
                return NotImplemented

        ember.overrides.enable()
        assert ember.add(Duck(), 1) == "duck added"
        with pytest.raises(TypeError, match="no implementation found for 'mul'"):
            ember.mul(Duck(), 2)

    def test_the_more_derived_type_goes_first(self):
        order = []

        class Base(ember.Tensor):
            @classmethod
            def __ember_function__(cls, func, types, args=(), kwargs=None):
                order.append("Base")
                return NotImplemented

        class Derived(Base):
            @classmethod
            def __ember_function__(cls, func, types, args=(), kwargs=None):
                order.append("Derived")
                return NotImplemented

        a = ember.ones(1).as_subclass(Base)
        b = ember.ones(1).as_subclass(Derived)
        with pytest.raises(TypeError):
            ember.add(a, b)
        assert order == ["Derived", "Base"]

    def test_disabling_and_helpers(self):
        x = ember.ones(2).as_subclass(Logged)
        assert has_ember_function((x,)) and not has_ember_function((ember.ones(2),))
        with DisableEmberFunction():
            y = x * 2
        assert Logged.calls == [] and type(y) is ember.Tensor

        def my_op(t):
            if has_ember_function((t,)):
                return handle_ember_function(my_op, (t,), t)
            return "plain"

        assert my_op(ember.ones(1)) == "plain"

        class Refuses(ember.Tensor):
            @classmethod
            def __ember_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        with pytest.raises(TypeError, match="no implementation found"):
            my_op(ember.ones(1).as_subclass(Refuses))
