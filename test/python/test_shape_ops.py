"""Shape and layout ops against torch (CPU, used only as an oracle): tril/triu,
flip/roll/repeat/constant_pad_nd. Values travel torch -> NumPy -> ember.
"""

import pytest

import ember
from ember.autograd import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

from torch_oracle import E, assert_close, leaf, rand  # noqa: E402


# ---- tril / triu ---------------------------------------------------------------


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("shape", [(4, 5), (5, 3), (2, 3, 4)], ids=str)
@pytest.mark.parametrize("diagonal", [0, 1, 2, -1, -3, 10, -10])
def test_tri_values(op, shape, diagonal):
    x = rand(*shape)
    expected = getattr(torch, op)(x, diagonal=diagonal)
    assert_close(getattr(ember, op)(E(x), diagonal=diagonal), expected)
    y = E(x)
    assert getattr(y, op + "_")(diagonal=diagonal) is y
    assert_close(y, expected)
    out = ember.empty(shape, dtype=ember.float64)
    assert getattr(ember, op)(E(x), diagonal=diagonal, out=out) is out
    assert_close(out, expected)


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("diagonal", [0, 1, -1])
def test_tri_gradcheck(op, diagonal):
    assert gradcheck(lambda t: getattr(ember, op)(t, diagonal=diagonal), (leaf(2, 3, 4),))


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_tri_1d_raises(op):
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        getattr(torch, op)(torch.ones(3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        getattr(ember, op)(ember.ones(3))


# ---- flip / roll / repeat / constant_pad_nd ------------------------------------

FLIP = [(0,), (1,), (0, 2), (-1,), (-1, -3), (0, 1, 2)]
ROLL = [(1, 0), (-2, 1), ((1, 2), (0, 2)), ((-1, 3), (-1, -2)), (5, None), (-3, None), ((2,), (1,))]
REPEAT = [(1, 1, 1), (2, 1, 3), (2, 1, 1, 2), (3, 2, 2, 1, 1), (1, 0, 1)]
PAD = [((1, 1), 0.0), ((2, 0, 1, 3), 1.5), ((-1, 1), 0.0), ((1, -2, -1, 2), -3.0), ((0, 0, 0, 0, 1, 1), 2.0)]


@pytest.mark.parametrize("dims", FLIP, ids=str)
def test_flip(dims):
    x = rand(2, 3, 4)
    assert_close(ember.flip(E(x), dims), torch.flip(x, dims))
    assert gradcheck(lambda t: ember.flip(t, dims), (leaf(2, 3, 2),))


def _roll(mod, t, shifts, dims):
    return mod.roll(t, shifts) if dims is None else mod.roll(t, shifts, dims)


@pytest.mark.parametrize("shifts,dims", ROLL, ids=str)
def test_roll(shifts, dims):
    x = rand(3, 4, 5)
    assert_close(_roll(ember, E(x), shifts, dims), _roll(torch, x, shifts, dims))
    assert gradcheck(lambda t: _roll(ember, t, shifts, dims), (leaf(3, 2, 2),))


@pytest.mark.parametrize("repeats", REPEAT, ids=str)
def test_repeat(repeats):
    x = rand(2, 1, 3)
    assert_close(E(x).repeat(*repeats), x.repeat(*repeats))
    assert_close(E(x).repeat(repeats), x.repeat(repeats))
    assert gradcheck(lambda t: t.repeat(*repeats), (leaf(2, 1, 2),))


@pytest.mark.parametrize("pad,value", PAD, ids=str)
def test_constant_pad_nd(pad, value):
    x = rand(3, 4, 5)
    assert_close(ember.constant_pad_nd(E(x), pad, value), torch.constant_pad_nd(x, pad, value))
    assert gradcheck(lambda t: ember.constant_pad_nd(t, pad, value), (leaf(3, 3, 4),))
