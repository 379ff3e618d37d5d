"""Memory formats in every operator that takes one: the strides each gives,
next to torch's for the same call."""

import pickle

import numpy as np
import pytest

import ember
from ember_testing import torch

pytestmark = pytest.mark.skipif(torch is None, reason="needs torch as the oracle")

FORMATS = ["contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]


def inputs(lib):
    """4-d and 5-d tensors: contiguous, channels-last, permuted and sliced (not dense)."""
    x4 = lib.arange(2 * 3 * 4 * 5, dtype=lib.float32).reshape(2, 3, 4, 5)
    x5 = lib.arange(2 * 3 * 2 * 4 * 5, dtype=lib.float32).reshape(2, 3, 2, 4, 5)
    return {
        "4d": x4,
        "4d_channels_last": x4.contiguous(memory_format=lib.channels_last),
        "4d_permuted": x4.permute(0, 3, 1, 2),
        "4d_sliced": x4[:, :, ::2],
        "5d_channels_last": x5.contiguous(memory_format=lib.channels_last_3d),
        "2d_transposed": lib.arange(6.0).reshape(2, 3).t(),
    }


CALLS = {
    "clone": lambda lib, x, f: x.clone(memory_format=f),
    "empty_like": lambda lib, x, f: lib.empty_like(x, memory_format=f),
    "zeros_like": lambda lib, x, f: lib.zeros_like(x, memory_format=f),
    "ones_like": lambda lib, x, f: lib.ones_like(x, memory_format=f),
    "full_like": lambda lib, x, f: lib.full_like(x, 7, memory_format=f),
    "rand_like": lambda lib, x, f: lib.rand_like(x, memory_format=f),
    "randn_like": lambda lib, x, f: lib.randn_like(x, memory_format=f),
    "randint_like": lambda lib, x, f: lib.randint_like(x, 5, memory_format=f),
    "contiguous": lambda lib, x, f: x.contiguous(memory_format=f),
    "to": lambda lib, x, f: x.to(lib.float64, memory_format=f),
}


def outcome(lib, call, name, fmt):
    x = inputs(lib)[name]
    try:
        y = call(lib, x, getattr(lib, fmt))
    except RuntimeError as e:
        return "error", "required rank" in str(e) or "preserve memory format" in str(e)
    values = y.numpy() if call in (CALLS["clone"], CALLS["contiguous"], CALLS["to"]) else None
    return y.stride(), tuple(y.shape), (y is x), values


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(inputs(ember)))
@pytest.mark.parametrize("op", list(CALLS))
def test_strides_match_torch(op, name, fmt):
    e = outcome(ember, CALLS[op], name, fmt)
    t = outcome(torch, CALLS[op], name, fmt)
    assert e[:3] == t[:3]
    if len(e) > 3 and e[3] is not None:
        np.testing.assert_array_equal(e[3], t[3])


@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last"])
def test_is_contiguous_matches_torch(fmt):
    for name in inputs(ember):
        e, t = inputs(ember)[name], inputs(torch)[name]
        try:
            expected = t.is_contiguous(memory_format=getattr(torch, fmt))
        except RuntimeError:
            continue
        assert e.is_contiguous(memory_format=getattr(ember, fmt)) == expected, name


def test_formats_are_singletons_that_pickle_by_name():
    for fmt in FORMATS:
        f = getattr(ember, fmt)
        assert repr(f) == f"ember.{fmt}" and pickle.loads(pickle.dumps(f)) is f
        assert isinstance(f, ember.memory_format)


def test_a_wrong_type_names_the_argument():
    with pytest.raises(TypeError, match="memory_format"):
        ember.ones(2).clone(memory_format="channels_last")


def test_clone_in_a_format_is_differentiable():
    x = ember.randn(1, 2, 3, 4, requires_grad=True)
    y = x.clone(memory_format=ember.channels_last)
    (y * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((1, 2, 3, 4), 2.0))


def test_python_kernels_get_keyword_only_arguments_by_keyword_when_given():
    seen = []
    with ember.library.Library("aten", "IMPL", "CPU") as lib:
        lib.impl("clone", lambda self, **kw: seen.append(kw) or ember.zeros(self.shape))
        ember.clone(ember.ones(2))
        ember.ones(1, 1, 1, 1).clone(memory_format=ember.channels_last)
    assert seen == [{}, {"memory_format": ember.channels_last}]
