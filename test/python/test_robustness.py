"""Bad input of every kind gets a Python exception, never a crash, a hang or
a runaway allocation: one case per class of issue 14, and a sweep over the
OpInfo database and every binding.

Each case runs in a forked child (test/fuzz/forked.py), so a crash fails the
test instead of killing pytest, and a hang is cut short.
"""

import ctypes
import os
import sys

import pytest

import ember
from opdb import pointwise as oi
from opdb import structured

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from test.fuzz.forked import run_forked  # noqa: E402

# What a refusal may be; anything else (SystemError, a crash) means Ember broke.
PYTHON_ERRORS = {"RuntimeError", "TypeError", "ValueError", "IndexError", "NotImplementedError", "MemoryError"}


def expect_error(fn, error_type, *fragments):
    outcome = run_forked(fn)
    assert outcome.kind == "error", f"expected {error_type}, got {outcome}"
    assert outcome.error_type == error_type, str(outcome)
    for fragment in fragments:
        assert fragment in outcome.message, f"{fragment!r} not in: {outcome.message}"
    return outcome.message


def expect_ok(fn):
    """fn runs to the end (its own asserts check the result) without crashing."""
    outcome = run_forked(fn)
    assert outcome.kind == "ok", str(outcome)


# ---- zero or negative window parameters ------------------------------------------

F = ember.nn.functional


@pytest.mark.parametrize("call, fragment", [
    (lambda: F.conv2d(ember.ones(1, 1, 4, 4), ember.ones(1, 1, 2, 2), stride=0), "conv2d"),
    (lambda: F.conv2d(ember.ones(1, 1, 4, 4), ember.ones(1, 1, 2, 2), dilation=-1), "conv2d"),
    (lambda: F.max_pool2d(ember.ones(1, 1, 4, 4), kernel_size=0), "max_pool2d"),
    (lambda: F.avg_pool2d(ember.ones(1, 1, 4, 4), 2, stride=-1), "avg_pool2d"),
    (lambda: F.adaptive_avg_pool2d(ember.ones(1, 1, 4, 4), (-1, 2)), "adaptive_avg_pool2d"),
])
def test_window_parameters(call, fragment):
    expect_error(call, "RuntimeError", fragment)


# ---- integer arithmetic that overflows in the hardware ---------------------------

def test_most_negative_integer_divided_by_minus_one():
    def run():
        lo = ember.tensor([-(2**63)])
        minus_one = ember.tensor([-1])
        assert (lo // minus_one).tolist() == [-(2**63)]  # wraps, as torch's CPU result
        assert ember.div(lo, minus_one, rounding_mode="trunc").tolist() == [-(2**63)]
        assert (lo % minus_one).tolist() == [0]
        i32 = ember.tensor([-(2**31)], dtype=ember.int32)
        assert (i32 // -1).tolist() == [-(2**31)]
    expect_ok(run)


def test_shifts_by_any_amount():
    def run():
        x = ember.tensor([1, -8, 2**62])
        assert (x << 64).tolist() == [0, 0, 0]
        assert (x << -1).tolist() == [0, 0, 0]
        assert (x >> 200).tolist() == [0, -1, 0]
        assert (ember.tensor([3], dtype=ember.int8) << 7).tolist() == [-128]
    expect_ok(run)


def test_integer_arithmetic_wraps_around():
    # torch's results; in C++ the signed overflow would be undefined behaviour
    # (scripts/sanitize.sh stops on it).
    def run():
        big = ember.tensor([2**62, -3])
        assert (big * 2**62).tolist() == [0, -(2**62) * 3 + 2**64]
        assert (big * ember.tensor([34, 1])).tolist() == [-(2**63), -3]
        assert (ember.tensor([2**62]) + ember.tensor([2**62])).tolist() == [-(2**63)]
        assert (ember.tensor([-(2**62)]) - ember.tensor([2**62 + 1])).tolist() == [2**63 - 1]
        assert ember.add(ember.tensor([1]), ember.tensor([2**62]), alpha=4).tolist() == [1]
        i32 = ember.tensor([2**30], dtype=ember.int32)
        assert (i32 * 4).tolist() == [0]
        u8 = ember.tensor([255], dtype=ember.uint8)
        assert (u8 * u8).tolist() == [1]
        i16 = ember.tensor([-(2**15)], dtype=ember.int16)
        assert (i16 * i16).tolist() == [0]
    expect_ok(run)


@pytest.mark.parametrize("name, call", [
    ("sum", lambda m: m.tensor([2**62, 2**62, 2**62]).sum()),
    ("sum dim", lambda m: m.tensor([[2**62] * 4] * 3).sum(0)),
    ("nansum", lambda m: m.tensor([2**62, 2**62]).nansum()),
    ("prod", lambda m: m.tensor([2**62, 2**62, 3]).prod()),
    ("cumsum", lambda m: m.tensor([2**62, 2**62, 2**62]).cumsum(0)),
    ("cumprod", lambda m: m.tensor([2**62, 4, 3]).cumprod(0)),
    ("neg", lambda m: -m.tensor([-(2**63), 5])),
    ("abs", lambda m: m.tensor([-(2**63), -5]).abs()),
    ("pow", lambda m: m.tensor([2**62, 3]) ** 3),
    ("square", lambda m: m.tensor([2**62, -(2**40)]).square()),
    ("dot", lambda m: m.tensor([2**62, 2**62]).dot(m.tensor([2**62, 3]))),
    ("mm", lambda m: m.tensor([[2**62, 7]]).mm(m.tensor([[2**62], [2**61]]))),
    ("lcm", lambda m: m.lcm(m.tensor([2**62]), m.tensor([2**62 - 1]))),
    ("addcmul", lambda m: m.addcmul(m.tensor([1]), m.tensor([2**62]), m.tensor([2**62]), value=3)),
])
def test_integer_reductions_and_products_wrap_as_torch(name, call):
    import torch

    assert call(ember).tolist() == call(torch).tolist()


@pytest.mark.parametrize("call, fragment", [
    (lambda: ember.diag_embed(ember.ones(3), 2**63 - 1), "offset"),
    (lambda: ember.diagflat(ember.ones(3), -(2**63)), "offset"),
    (lambda: ember.ones(0, 2).unfold(0, -3, 2**62), "size is -3"),
])
def test_shape_parameters_at_the_integer_limits(call, fragment):
    expect_error(call, "RuntimeError", fragment)


def test_steps_past_the_end():
    def run():
        assert ember.ones(3, 2, 2).unfold(0, 2, 2**62).shape == (1, 2, 2, 2)
        assert ember.arange(5)[1::2**62].tolist() == [1]
        assert ember.arange(5)[5::2**62].tolist() == []
    expect_ok(run)


@pytest.mark.parametrize("call, fragment", [
    (lambda: ember.empty(2**62).as_strided([2, 2], [2**62, 2**62]), "overflows"),
    (lambda: ember.ones(4).as_strided([3], [1], 2**63 - 2), "overflows"),
    (lambda: ember.empty(2**31, 2**31, 2**31), "numel"),
    (lambda: ember.ones(1).expand(2**40, 2**40, 2**40), "numel"),
    (lambda: ember.ones(2).view(2**62, 2**62, 1), "is invalid for input of size 2"),
    (lambda: ember.ones(2).resize_(2**40, 2**40), "numel"),
    (lambda: ember.ones(5, dtype=ember.uint8).repeat(5, 2**62, 2**62), "repeat: integer multiplication overflow"),
    (lambda: ember.ones(3, 5).unflatten(-1, [2, 2**63 - 1, 2]), "unflatten: Provided sizes"),
])
def test_shape_products_that_overflow(call, fragment):
    expect_error(call, "RuntimeError", fragment)


@pytest.mark.parametrize("call", [
    lambda: ember.empty(2**61),
    lambda: ember.empty(2**63 - 1, dtype=ember.bfloat16),  # 2**64 - 2 bytes: rounding up wrapped around
    lambda: ember.full([2**62], 1.0),
    lambda: ember.zeros(3).resize_(2**60),
    lambda: F.interpolate(ember.ones(1, 1, 2, 2), size=(2**31, 2**31)),
])
def test_huge_sizes_fail_fast(call):
    # "not enough memory: you tried to allocate N bytes", or "size ... in bytes overflows"
    expect_error(call, "RuntimeError", "bytes")


# ---- malformed foreign memory ------------------------------------------------------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


def capsule(shape=(3,), data="buffer", ndim=None, byte_offset=0, strides=None, bits=32, null_shape=False):
    """A DLPack capsule made by hand, saying whatever the test wants it to say."""
    buffer = (ctypes.c_float * 16)()
    shape_array = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    strides_array = (ctypes.c_int64 * len(strides))(*strides) if strides else None
    managed = DLManagedTensor()
    managed.dl_tensor.data = ctypes.cast(buffer, ctypes.c_void_p) if data == "buffer" else data
    managed.dl_tensor.device = DLDevice(1, 0)  # kDLCPU
    managed.dl_tensor.ndim = len(shape) if ndim is None else ndim
    managed.dl_tensor.dtype = DLDataType(2, bits, 1)  # float
    managed.dl_tensor.shape = None if null_shape else ctypes.cast(shape_array, ctypes.POINTER(ctypes.c_int64))
    if strides_array is not None:
        managed.dl_tensor.strides = ctypes.cast(strides_array, ctypes.POINTER(ctypes.c_int64))
    managed.dl_tensor.byte_offset = byte_offset
    capsule._keep = (buffer, shape_array, strides_array, managed)  # alive for the child's lifetime
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new_capsule(ctypes.addressof(managed), b"dltensor", None)


def test_a_well_formed_hand_made_capsule_works():
    expect_ok(lambda: ember.from_dlpack(capsule((2, 3))).sum().item())


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(data=None), "null pointer"),
    (dict(null_shape=True, shape=(2, 2)), "null pointer"),
    (dict(ndim=-1), "ndim"),
    (dict(ndim=100000), "ndim"),
    (dict(shape=(-2, 3)), "negative size"),
    (dict(shape=(2**62, 2**62)), "overflows"),
    (dict(shape=(3,), strides=(2**62,)), "overflow"),
    (dict(byte_offset=2), "byte_offset"),
    (dict(bits=12), "Unsupported DLPack dtype"),
])
def test_malformed_dlpack_capsules(kwargs, fragment):
    expect_error(lambda: ember.from_dlpack(capsule(**kwargs)), "RuntimeError", fragment)


def test_a_capsule_is_consumed_once():
    def run():
        c = ember.arange(3.0).__dlpack__()
        ember.from_dlpack(c)
        ember.from_dlpack(c)
    expect_error(run, "RuntimeError", "from_dlpack", "consumed")


def test_array_interface_that_lies_is_not_read():
    class Liar:
        __array_interface__ = {"shape": (10**9,), "typestr": "<f4", "data": (16, False), "version": 3}
    expect_error(lambda: ember.tensor(Liar()), "TypeError", "invalid data type")


# ---- None or a wrong type where a Tensor is expected ------------------------------

def test_none_for_a_tensor_names_the_op_and_argument():
    assert "mm(): argument 'mat2' (position 2) must be Tensor, not NoneType" in expect_error(
        lambda: ember.mm(ember.ones(2, 2), None), "TypeError")
    assert "add(): argument 'other' (position 1)" in expect_error(lambda: ember.ones(2).add(None), "TypeError")
    expect_error(lambda: ember.cat([ember.ones(2), None]), "TypeError", "cat()", "'tensors'", "NoneType at pos 1")
    expect_error(lambda: ember.ops.aten.mul.Tensor(None, ember.ones(1)), "TypeError", "aten::mul.Tensor()", "'self'")


@pytest.mark.parametrize("name", sorted(ember._C._generated_functions))
def test_every_function_refuses_none_and_strings(name):
    fn = getattr(ember, name)

    def run():
        for args in [(None,), (None, None), ("x", "y", "z")]:
            try:
                fn(*args)
            except (TypeError, ValueError, RuntimeError) as e:
                assert name in str(e), f"{type(e).__name__}: {e}"
    expect_ok(run)


TENSOR_METHODS = sorted(n for n in dir(ember.Tensor) if not n.startswith("__") and callable(getattr(ember.Tensor, n)))


@pytest.mark.parametrize("name", TENSOR_METHODS)
def test_every_tensor_method_survives_none(name):
    def run():
        for args in [(None,), (None, None)]:
            t = ember.ones(2, 3)
            try:
                getattr(t, name)(*args)
            except Exception:  # noqa: BLE001 - any exception is an answer; only a crash fails
                pass
    expect_ok(run)


# ---- indices from the user in backward-only paths -----------------------------------

@pytest.mark.parametrize("index", [1000, -1])
def test_pool_backward_checks_user_indices(index):
    def run():
        grad, x = ember.ones(1, 1, 2, 2), ember.randn(1, 1, 4, 4)
        indices = ember.full((1, 1, 2, 2), index, dtype=ember.int64)
        ember.ops.aten.max_pool2d_with_indices_backward(grad, x, [2, 2], [2, 2], [0, 0], [1, 1], False, indices)
    expect_error(run, "IndexError", "max_pool2d_with_indices_backward", "out of bounds")


def test_nll_loss_backward_checks_targets():
    def run():
        x = ember.randn(3, 4)
        ember.ops.aten.nll_loss_backward(ember.tensor(1.0), x, ember.tensor([0, 9, 1]), None, 1, -100,
                                         ember.tensor(3.0))
    expect_error(run, "IndexError", "out of bounds")


# ---- deep structures ----------------------------------------------------------------

def test_deeply_nested_lists():
    def run():
        nested = [1.0]
        for _ in range(200_000):
            nested = [nested]
        ember.tensor(nested)
    expect_error(run, "ValueError", "too many dimensions 'list'")


def test_a_list_that_contains_itself():
    def run():
        loop = []
        loop.append(loop)
        ember.tensor(loop)
    expect_error(run, "ValueError", "too many dimensions")


# ---- every op of the operator database, given awkward operands --------------------------

def _variants(op):
    """(description, transform of a materialized tensor argument list)."""
    wrong = [d for d in oi.ALL if d not in op.dtypes]

    def zero_size(t):
        return ember.empty((0,) + tuple(t.shape[1:]), dtype=t.dtype) if t.dim() else ember.empty(0, dtype=t.dtype)

    def non_contiguous(t):
        return ember.stack([t, t], -1)[..., 0] if t.dim() else t

    def wrong_dtype(t):
        return t.to(getattr(ember, wrong[0])) if wrong else t

    def meta(t):
        return t.to("meta")

    return [("zero-size", zero_size, False), ("non-contiguous", non_contiguous, False),
            ("wrong dtype", wrong_dtype, False), ("wrong device", meta, True)]


# Where an op's error names something other than the op's own name: ops that
# decompose into other aten ops (whose names their checks give), and torch's
# worded messages for `-` and item().
_ALSO_NAMED = {"floor_divide": ("div",), "true_divide": ("div",), "rsub": ("sub",), "neg": ("the `-` operator",),
               "sub": ("the `-` operator",), "matmul": ("mm", "bmm", "dot", "mv"), "linear": ("matmul", "addmm"),
               "masked_fill": ("where",), "mse_loss": ("sub",), "l1_loss": ("sub",),
               "mv": ("mm",), "dot": ("mm",), "cross_entropy_loss": ("log_softmax", "nll_loss", "_cross_entropy_rows"),
               "addmv": ("addmm",), "addr": ("addmm",), "addbmm": ("addmm",), "baddbmm": ("bmm",), "bucketize": ("searchsorted",),
               "float_power": ("pow",), "square": ("pow",), "argwhere": ("nonzero",), "ger": ("outer",),
               "inner": ("mm",), "vdot": ("dot",), "var_mean": ("std and var",), "std_mean": ("std and var",),
               "clamp_min": ("clamp",), "clamp_max": ("clamp",), "select_scatter": ("select",),
               "slice_scatter": ("slice",),
               # torch's wording, which names no op
               "item": ("cannot be converted to Scalar",)}


def _names_of(op):
    names = [op.name.split(".")[0].strip("_"), op.aten or op.name]
    if op.name in oi.ALIASES:  # another name runs its op, whose checks name that op
        names.append(oi.ALIASES[op.name].split(".")[0])
    for n in names:  # grows as it goes: rsub runs sub, whose message names `-`
        names += [m for m in _ALSO_NAMED.get(n, ()) if m not in names]
    return tuple(names)


def _entry_call(op):
    """call(args, kwargs) for a pointwise or a structured database entry."""
    if isinstance(op, oi.OpInfo):
        return lambda args, kwargs: op(ember, *args, **kwargs)
    return lambda args, kwargs: op.call(ember, args, kwargs)


@pytest.mark.parametrize("op", oi.OPS + structured.OPS, ids=lambda op: op.name)
def test_database_ops_with_awkward_operands(op):
    """Each awkward operand either works or gets an exception naming the op."""
    samples = op.samples(op.dtypes[0])
    if not samples:
        pytest.skip("no sample")
    sample = samples[0]
    call = _entry_call(op)
    for desc, transform, last_only in _variants(op):
        def run():
            args, kwargs = sample.materialize(ember)
            tensors = [i for i, a in enumerate(args) if isinstance(a, ember.Tensor)]
            for i in tensors[-1:] if last_only else tensors:
                args[i] = transform(args[i])
            repr(call(args, kwargs))
        outcome = run_forked(run)
        assert outcome.kind in ("ok", "error"), f"{desc}: {outcome}"
        if outcome.kind == "error":
            assert outcome.error_type in PYTHON_ERRORS, f"{desc}: {outcome}"
            assert any(n in outcome.message for n in _names_of(op)), f"{desc}: names none of {_names_of(op)}: {outcome}"


@pytest.mark.parametrize("op", oi.OPS + structured.OPS, ids=lambda op: op.name)
def test_database_ops_with_a_sparse_operand(op):
    """A sparse COO tensor in place of each tensor argument: the op works or raises, never crashes (a kernel
    written for strided memory that is reached anyway raises "Sparse tensors do not have strides")."""
    samples = [s for s in op.samples(op.dtypes[-1])
               if any(isinstance(a, ember.Tensor) and a.dim() > 0 for a in s.materialize(ember)[0])]
    if not samples:
        pytest.skip("no sample with a tensor argument of at least one dim")
    sample = samples[0]
    call = _entry_call(op)

    def run():
        args, kwargs = sample.materialize(ember)
        for i, a in enumerate(args):
            if isinstance(a, ember.Tensor) and a.dim() > 0 and a.layout == ember.strided:
                args[i] = a.to_sparse()
                try:
                    repr(call(args, kwargs))
                except Exception as error:  # noqa: BLE001  (any Python exception is an answer)
                    if type(error).__name__ not in PYTHON_ERRORS:
                        raise
                args[i] = a
    outcome = run_forked(run)
    assert outcome.kind in ("ok", "error"), outcome
    if outcome.kind == "error":
        assert outcome.error_type in PYTHON_ERRORS, outcome
