"""The tensor-construction API older and everyday torch scripts use:
Tensor.new_* and the legacy type names (ember.FloatTensor, ...), checked
against torch."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def described(t):
    return (str(t.dtype).split(".")[-1], tuple(t.shape), t.requires_grad)


NEW = [
    lambda L, x: x.new_zeros(2, 3),
    lambda L, x: x.new_zeros((2, 3), dtype=L.int64),
    lambda L, x: x.new_ones([4]),
    lambda L, x: x.new_full((2, 2), 7),
    lambda L, x: x.new_full((1,), 2.5, dtype=L.float64),
    lambda L, x: x.new_empty(0),
    lambda L, x: x.new_zeros(3, requires_grad=True),
    lambda L, x: x.new_tensor([1, 2]),
    lambda L, x: x.new_tensor([[1.5]], dtype=L.float64, requires_grad=True),
]


def _self(L, dtype):
    """A self of the dtype; "grad" is float32 requiring grad (whose new_* results must not)."""
    if dtype == "grad":
        return L.ones(2, requires_grad=True)
    return L.ones(2, dtype=getattr(L, dtype))


@pytest.mark.parametrize("case", range(len(NEW)))
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "grad"])
def test_new_factories_match_torch(case, dtype):
    try:
        theirs = NEW[case](torch, _self(torch, dtype))
    except RuntimeError as error:  # requires_grad on an integer dtype
        with pytest.raises(RuntimeError, match=str(error)):
            NEW[case](ember, _self(ember, dtype))
        return
    mine = NEW[case](ember, _self(ember, dtype))
    assert described(mine) == described(theirs)
    if "empty" not in str(NEW[case].__code__.co_names):
        np.testing.assert_array_equal(np.asarray(mine.tolist()), np.asarray(theirs.tolist()))


def test_new_factories_do_not_depend_on_self_layout():
    x = ember.ones(3, 4).t()
    assert x.new_zeros(2, 2).is_contiguous() and x.new_zeros(2, 2).tolist() == [[0, 0], [0, 0]]


LEGACY = [
    lambda L: L.FloatTensor(2, 3).shape,
    lambda L: L.FloatTensor(L.Size([2])).shape,
    lambda L: L.FloatTensor().shape,
    lambda L: L.LongTensor([1.7, 2]).tolist(),
    lambda L: L.DoubleTensor([[1, 2]]).dtype,
    lambda L: L.ByteTensor([3]).dtype,
    lambda L: L.BoolTensor([1, 0]).tolist(),
    lambda L: (isinstance(L.ones(2), L.FloatTensor), isinstance(L.ones(2).long(), L.FloatTensor),
               isinstance(L.ones(2).long(), L.LongTensor)),
    lambda L: L.ones(2).type(L.LongTensor).dtype,
    lambda L: L.FloatTensor.dtype,
]


@pytest.mark.parametrize("case", range(len(LEGACY)))
def test_legacy_types_match_torch(case):
    mine, theirs = LEGACY[case](ember), LEGACY[case](torch)
    assert str(mine).replace("ember", "torch") == str(theirs)


def test_legacy_type_errors():
    x = ember.tensor([1.0, 2.0])
    assert ember.FloatTensor(x) is x
    with pytest.raises(TypeError, match="expected FloatTensor"):
        ember.FloatTensor(ember.tensor([1, 2]))
    with pytest.raises(TypeError, match="new\\(\\): invalid data type 'str'"):
        ember.FloatTensor("a")
    with pytest.raises(RuntimeError, match="negative dimension"):
        ember.FloatTensor(-1)
