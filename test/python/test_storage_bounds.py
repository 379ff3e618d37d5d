"""Views and strided tensors whose storage extent overflows int64.

The extent a view needs (offset + sum of (size - 1) * stride, times the
item size) used to wrap around to a small number, pass the bounds check and
give a view reaching far outside its storage (reading it crashed). It is
now computed with overflow checks; torch rejects the same inputs.
"""

import pytest

import ember

torch = pytest.importorskip("torch")

CASES = {
    "as_strided stride 2^62": lambda m: m.zeros(4).as_strided((2,), (2 ** 62,)),
    "as_strided stride 2^61, float64": lambda m: m.zeros(4, dtype=m.float64).as_strided((2,), (2 ** 61,)),
    "as_strided large offset": lambda m: m.zeros(4).as_strided((2,), (1,), 2 ** 62),
    "empty_strided strides 2^62": lambda m: m.empty_strided((2, 3), (2 ** 62, 2 ** 62)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_overflowing_extent_is_an_error(name):
    with pytest.raises(RuntimeError, match="overflows|out of bounds"):
        CASES[name](ember)
    with pytest.raises(Exception):
        CASES[name](torch)


def test_views_inside_the_storage_still_work():
    x = ember.arange(6.0)
    assert x.as_strided((2, 2), (3, 1)).tolist() == [[0.0, 1.0], [3.0, 4.0]]
    assert x.as_strided((3,), (2,), 1).tolist() == [1.0, 3.0, 5.0]
