"""Tensor.set_ against torch: the tensor (same object) takes a tensor's or a storage's memory at a
geometry, shares it, bumps its version, and refuses what torch refuses."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def call(lib, how):
    """Runs one set_ spelling in lib; returns the tensor set and the source it shares memory with."""
    base = lib.arange(12.0)
    view = base[2:]
    target = lib.zeros(3)
    if how == "tensor":
        target.set_(view)
    elif how == "tensor geometry":
        target.set_(view, 1, (2, 3), (1, 2))
    elif how == "untyped storage":
        target.set_(base.untyped_storage())
    elif how == "untyped storage geometry":
        target.set_(base.untyped_storage(), 2, (2, 3), (3, 1))
    elif how == "untyped storage size only":
        target.set_(base.untyped_storage(), 4, (2, 2))
    elif how == "typed storage":
        target.set_(base.storage(), 0, (3, 4))
    elif how == "keywords":
        target.set_(source=base.untyped_storage(), storage_offset=0, size=(4,))
    elif how == "empty":
        target.set_()
    return target, base


HOWS = ["tensor", "tensor geometry", "untyped storage", "untyped storage geometry", "untyped storage size only",
        "typed storage", "keywords", "empty"]


@pytest.mark.parametrize("how", HOWS)
def test_set_takes_the_memory_and_geometry_torch_does(how):
    got, got_base = call(ember, how)
    want, want_base = call(torch, how)
    assert tuple(got.shape) == tuple(want.shape)
    assert tuple(got.stride()) == tuple(want.stride())
    assert got.storage_offset() == want.storage_offset()
    assert got._version == want._version == 1
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    if got.numel():
        got_base.add_(100)  # shared memory: the set tensor sees writes to the source
        want_base.add_(100)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_set_beyond_the_storage_raises_torchs_error_instead_of_reading_past_it():
    # torch 2.13 raises this only sometimes (it grows a resizable storage and reads uninitialized memory)
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[2, 3\], strides \[3, 1\], storage offset 8, and "
                                           r"itemsize 4 requiring a storage size of 56 are out of bounds for "
                                           r"storage of size 40"):
        ember.zeros(3).set_(ember.arange(10.0).untyped_storage(), 8, (2, 3), (3, 1))


@pytest.mark.parametrize("case", ["leaf requiring grad", "dtype", "not a source"])
def test_set_refuses_what_torch_refuses(case):
    def run(lib):
        if case == "leaf requiring grad":
            lib.zeros(3, requires_grad=True).set_(lib.ones(2))
        elif case == "dtype":
            lib.zeros(3).set_(lib.ones(2, dtype=lib.float64))
        else:
            lib.zeros(3).set_(5)

    with pytest.raises((RuntimeError, TypeError)) as theirs:
        run(torch)
    with pytest.raises(type(theirs.value)) as ours:
        run(ember)
    if case != "not a source":
        assert str(ours.value) == str(theirs.value)


def test_set_under_no_grad_keeps_requires_grad_as_torch():
    x = ember.zeros(3, requires_grad=True)
    with ember.no_grad():
        x.set_(ember.ones(5))
    assert x.requires_grad and x.is_leaf and tuple(x.shape) == (5,)
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(5, dtype=np.float32))
