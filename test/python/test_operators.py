"""Tensor's Python operators (python/src/operators.cpp) against torch: the
values and dtypes of every binary operator with tensor and number operands,
the NotImplemented protocol for other objects, in-place identity, and the
version counters that in-place operators bump."""

import operator
import threading

import numpy as np
import pytest
import torch

import ember

BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<<": operator.lshift, ">>": operator.rshift, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
INTEGER_ONLY = {"&", "|", "^", "<<", ">>"}
IN_PLACE = {
    "+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv, "//": operator.ifloordiv,
    "%": operator.imod, "**": operator.ipow, "&": operator.iand, "|": operator.ior, "^": operator.ixor,
    "<<": operator.ilshift, ">>": operator.irshift,
}


def _pair(lib, integer):
    if integer:
        return lib.tensor([[5, -7, 3], [2, 9, -4]]), lib.tensor([2, 3, 1])
    return lib.tensor([[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]]), lib.tensor([2.0, -0.5, 1.5])


def _same(e, t):
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor)
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-6, equal_nan=True)
    else:
        assert e == t


@pytest.mark.parametrize("symbol", sorted(BINARY))
@pytest.mark.parametrize("integer", [False, True])
@pytest.mark.parametrize("operands", ["tensor", "number", "reflected"])
def test_binary_operators_match_torch(symbol, integer, operands):
    if symbol in INTEGER_ONLY and not integer:
        pytest.skip("bitwise operators take integers")
    f = BINARY[symbol]
    results = []
    for lib in (ember, torch):
        a, b = _pair(lib, integer)
        number = 3 if integer else 1.5
        if operands == "tensor":
            results.append(f(a, b))
        elif operands == "number":
            results.append(f(a, number))
        else:
            results.append(f(number, b))
    _same(*results)


@pytest.mark.parametrize("symbol", sorted(IN_PLACE))
def test_in_place_operators_keep_the_object(symbol):
    integer = symbol in INTEGER_ONLY
    results = []
    for lib in (ember, torch):
        a, b = _pair(lib, integer)
        a = a.double() if not integer else a
        before = id(a)
        a = IN_PLACE[symbol](a, b)
        assert id(a) == before
        assert a._version == 1
        results.append(a)
    _same(*results)


def test_matmul_operator():
    a, b = ember.ones(2, 3), ember.ones(3, 4)
    assert (a @ b).tolist() == [[3.0] * 4] * 2
    with pytest.raises(TypeError, match="unsupported operand type"):
        a @ 3
    with pytest.raises(TypeError, match="unsupported operand type"):
        3 @ a


class Reflecting:
    """Another library's object: Tensor's operators must leave it the last word."""

    def __radd__(self, other):
        return "radd"

    def __rmul__(self, other):
        return "rmul"

    def __rmatmul__(self, other):
        return "rmatmul"

    def __gt__(self, other):
        return "reflected lt"


def test_other_objects_get_their_reflected_methods():
    a = ember.ones(2)
    assert a + Reflecting() == "radd"
    assert a * Reflecting() == "rmul"
    assert a @ Reflecting() == "rmatmul"
    assert (a < Reflecting()) == "reflected lt"


@pytest.mark.parametrize("expr, message", [
    ("a + 'x'", "unsupported operand type"),
    ("a - None", "unsupported operand type"),
    ("a < 'x'", "not supported between instances"),
])
def test_unsupported_operands_raise_pythons_type_error(expr, message):
    for lib in (ember, torch):
        a = lib.ones(2)
        with pytest.raises(TypeError, match=message):
            eval(expr)


def test_in_place_with_an_unsupported_operand():
    a = ember.ones(2)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+="):
        a += "x"
    assert a.tolist() == [1.0, 1.0]


def test_equality_with_other_objects_falls_back_to_identity():
    a = ember.ones(2)
    assert (a == "x") is False
    assert (a != "x") is True
    assert hash(a) == object.__hash__(a)
    assert {a: 1}[a] == 1


def test_unary_operators():
    a = ember.tensor([1, -2, 3])
    assert (-a).tolist() == [-1, 2, -3]
    assert abs(a).tolist() == [1, 2, 3]
    assert (+a) is a
    assert (~a).tolist() == [-2, 1, -4]
    with pytest.raises(TypeError, match="only supported for integer and boolean tensors, got ember.float32"):
        ~ember.ones(2)


def test_a_subclass_stays_itself_through_in_place_operators():
    class Tagged(ember.Tensor):
        pass

    t = ember.ones(2).as_subclass(Tagged)
    t.note = "kept"
    t += 1
    assert type(t) is Tagged and t.note == "kept" and t.tolist() == [2.0, 2.0]


# ---- version counters (made on first use, shared with views) -------------------

def test_version_counters_are_shared_by_views_and_start_at_zero():
    a = ember.zeros(4)
    assert a._version == 0
    v = a.view(2, 2)
    w = a[1:]
    v.add_(1)
    assert a._version == v._version == w._version == 1
    b = a + 1  # a result has a counter of its own
    assert b._version == 0
    b.mul_(2)
    assert (a._version, b._version) == (1, 1)
    d = a.data  # shares memory, not the counter (as torch)
    d.add_(1)
    assert a._version == 1 and d._version == 1


def test_views_made_on_many_threads_share_one_counter():
    for _ in range(20):
        base = ember.zeros(64)
        views = [None] * 8
        start = threading.Barrier(8)

        def take(i):
            start.wait()
            views[i] = base[i:]

        threads = [threading.Thread(target=take, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        views[3].add_(1)
        assert base._version == 1
        assert all(v._version == 1 for v in views)


def test_saved_tensor_modified_in_place_is_caught():
    w = ember.ones(3, requires_grad=True)
    x = ember.ones(3)
    y = (w * x).sum()
    x.add_(1)  # x was saved by mul before it had a version counter
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
