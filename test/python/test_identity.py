"""The binding maps a C++ tensor back to the Python object already wrapping
it: in-place methods return `self` itself, so attributes and subclasses
survive the round trip through C++."""

import gc
import weakref

import pytest

import ember
from ember_testing import torch

IN_PLACE = {
    "copy_": lambda t: t.copy_(ember.ones(3)),
    "copy_broadcast": lambda t: t.copy_(ember.tensor(2.0)),
    "fill_": lambda t: t.fill_(1),
    "zero_": lambda t: t.zero_(),
    "requires_grad_": lambda t: t.requires_grad_(),
    "requires_grad_false": lambda t: t.requires_grad_(False),
    "uniform_": lambda t: t.uniform_(),
    "normal_": lambda t: t.normal_(0, 2),
    "random_": lambda t: t.random_(0, 10),
    "out=zeros": lambda t: ember.zeros(3, out=t),
    "out=arange": lambda t: ember.arange(3, out=t),
    "out=full": lambda t: ember.full((3,), 4.0, out=t),
    "out=rand": lambda t: ember.rand(3, out=t),
}

SAME_WHEN_NOTHING_TO_DO = {
    "to_same_dtype": lambda t: t.to(ember.float32),
    "to_cpu": lambda t: t.to("cpu"),
    "cpu": lambda t: t.cpu(),
    "float": lambda t: t.float(),
    "contiguous": lambda t: t.contiguous(),
    "resolve_conj": lambda t: t.resolve_conj(),
    "resolve_neg": lambda t: t.resolve_neg(),
    "conj_of_real": lambda t: t.conj(),
}


@pytest.mark.parametrize("op", list(IN_PLACE) + list(SAME_WHEN_NOTHING_TO_DO))
def test_returns_self_and_keeps_attributes(op):
    fn = IN_PLACE.get(op) or SAME_WHEN_NOTHING_TO_DO[op]
    t = ember.zeros(3)
    t.foo = "bar"
    result = fn(t)
    assert result is t
    assert result.foo == "bar"
    if torch is not None:
        tt = torch.zeros(3)
        torch_fn = {
            "copy_": lambda x: x.copy_(torch.ones(3)),
            "copy_broadcast": lambda x: x.copy_(torch.tensor(2.0)),
            "out=zeros": lambda x: torch.zeros(3, out=x),
            "out=arange": lambda x: torch.arange(3.0, out=x),
            "out=full": lambda x: torch.full((3,), 4.0, out=x),
            "out=rand": lambda x: torch.rand(3, out=x),
            "to_same_dtype": lambda x: x.to(torch.float32),
        }.get(op, fn)
        assert torch_fn(tt) is tt


@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.view(3),
        lambda t: t[...],
        lambda t: t[:],
        lambda t: t.detach(),
        lambda t: t.clone(),
        lambda t: t.to(ember.float64),
        lambda t: t.to(ember.float32, copy=True),
        lambda t: t.reshape(3),
        lambda t: t.flatten(),
        lambda t: ember.tensor(t),
        lambda t: ember.from_dlpack(t),
    ],
)
def test_new_tensors_are_new_objects(op):
    t = ember.zeros(3)
    t.foo = 1
    result = op(t)
    assert result is not t
    assert not hasattr(result, "foo")


def test_views_keep_their_own_identity():
    t = ember.zeros(4, 3)
    row = t[1]
    row.label = "row"
    assert row.fill_(2) is row and row.label == "row"
    assert row.copy_(ember.arange(3.0)) is row
    assert t[1] is not row  # each indexing makes a new view object
    assert t.tolist()[1] == [0.0, 1.0, 2.0]


def test_subclass_survives_round_trips():
    class Tagged(ember.Tensor):
        def describe(self):
            return f"tagged {tuple(self.shape)}"

    t = Tagged()
    assert isinstance(t, Tagged) and t.shape == (0,)
    ember.zeros(2, 2, out=t)
    assert type(t) is Tagged and t.shape == (2, 2)
    assert type(t.fill_(3)) is Tagged
    assert t.fill_(3).describe() == "tagged (2, 2)"
    assert type(t.requires_grad_()) is Tagged
    # New tensors are plain ember tensors.
    assert type(t.view(4)) is ember.Tensor
    assert type(t.clone()) is ember.Tensor


def test_grad_returns_the_assigned_object():
    t = ember.zeros(3, requires_grad=True)
    g = ember.ones(3)
    g.note = "gradient"
    t.grad = g
    assert t.grad is g and t.grad.note == "gradient"
    t.grad = None
    assert t.grad is None
    if torch is not None:
        tt = torch.zeros(3, requires_grad=True)
        tg = torch.ones(3)
        tt.grad = tg
        assert tt.grad is tg


def test_generator_methods_return_self():
    g = ember.Generator()
    assert g.manual_seed(3) is g
    assert ember.manual_seed(3) is ember.default_generator
    if torch is not None:
        tg = torch.Generator()
        assert tg.manual_seed(3) is tg


def test_weak_references_and_lifetime():
    t = ember.zeros(3)
    ref = weakref.ref(t)
    assert ref() is t
    view = t[1:]
    del t
    gc.collect()
    # The object (and its TensorImpl) is gone; the view keeps only the
    # storage they shared.
    assert ref() is None
    assert view.fill_(1) is view
    assert view.tolist() == [1.0, 1.0]
