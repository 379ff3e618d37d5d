"""Elementwise operators, tested over the OpInfo database in opdb/pointwise.py.

Every test is parametrized by OpInfo and dtype. NumPy (float64/complex128,
int64) is the reference for values; torch, when installed, is the oracle
for result dtypes (type promotion), strides and exception types.

Known Ember bugs are strict xfails of exactly the cases they break (the
XFail entries in opdb/pointwise.py); deliberate
differences from torch are documented where a test leaves them out.
"""

import numpy as np
import pytest

import ember
from opdb import pointwise as oi
from ember_testing import to_numpy, torch

ALL = oi.ALL


def E(d):
    return getattr(ember, d)


def need_torch():
    if torch is None:
        pytest.skip("torch is not installed")
    return torch


def params(test, ops, dtypes=lambda op: op.dtypes):
    """pytest params (op, dtype), with the op's XFail for `test` as a strict xfail."""
    out = []
    for op in ops:
        for d in dtypes(op):
            out.append(pytest.param(op, d, id=f"{op.name}-{d}", marks=marks_for(op.xfail_for(test, d))))
    return out


def marks_for(xfail):
    if xfail is None or (xfail.needs_torch and torch is None):
        return []
    if xfail.skip:
        return [pytest.mark.skip(reason=xfail.reason)]
    return [pytest.mark.xfail(reason=xfail.reason, strict=True)]


def op_params(test, ops):
    return [pytest.param(op, id=op.name, marks=marks_for(op.xfail_for(test))) for op in ops]


def torch_numpy(t):
    t = t.detach().resolve_conj()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def as_compared(array, d):
    """A result array in the dtype assert_close compares it in."""
    if d in oi.COMPLEX:
        return array.astype(np.complex128)
    if d in oi.FLOATS:
        return array.astype(np.float64)
    return array


def assert_same(a, b, msg=""):
    """Two ember tensors with the same shape, dtype and values: exactly for
    integers and bools, within the dtype's tolerance for floats (a strided loop
    may round differently from the vectorized contiguous one), NaN == NaN."""
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape, msg)
    assert a.dtype == b.dtype, (a.dtype, b.dtype, msg)
    d = oi.dtype_name(a.dtype)
    oi.assert_close(as_compared(to_numpy(a), d), as_compared(to_numpy(b), d), d, msg=repr(msg))


def assert_like_reference(result, op, sample, args, kwargs):
    d = oi.dtype_name(result.dtype)
    expected = oi.reference_result(op, sample, args, kwargs, to_numpy)
    assert tuple(result.shape) == expected.shape, (result.shape, expected.shape, sample)
    oi.assert_close(as_compared(to_numpy(result), d), oi.expected_as(expected, d), d, msg=repr(sample))


def assert_like_torch_result(e, t, sample):
    d = oi.dtype_name(e.dtype)
    assert d == oi.dtype_name(t.dtype), f"result dtype {e.dtype} != torch's {t.dtype} for {sample}"
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape, sample)
    oi.assert_close(as_compared(to_numpy(e), d), as_compared(torch_numpy(t), d), d, msg=repr(sample))


def torch_quirk(op, sample):
    """Samples where torch's values are off and NumPy's are right: Ember follows
    NumPy (checked by the reference tests) and the torch comparison skips them."""
    # (1-2j) / bfloat16_tensor: torch rounds the quotient to bfloat16 precision
    # although the result is complex64.
    if op.name == "__rtruediv__" and isinstance(sample.args[1], complex) and sample.args[0].dtype == "bfloat16":
        return True
    # torch's half/bfloat16 logit is off by an ulp or two more than Ember's (within the reference's tolerance).
    if op.aten == "logit" and sample.args[0].dtype in ("float16", "bfloat16"):
        return True
    return False


def can_cast(src, dst):
    """torch.can_cast on dtype names: no float->integral, complex->real or non-bool->bool."""
    order = {"b": 0, "i": 1, "f": 2, "c": 3}
    return order[oi.KIND[src]] <= order[oi.KIND[dst]]


UNARY = [op for op in oi.OPS if op.kind == "unary"]
BINARY = [op for op in oi.OPS if op.kind == "binary"]
FLOAT_SPECIAL_OPS = [op for op in oi.OPS if op.specials and not op.reflected]


def special_sample(op, d):
    if op.kind == "unary":
        return oi.SampleInput((oi.TensorSpec(oi.special_values(d), d),), desc="specials")
    return oi.sample_special_binary(op, d)


# ---- 1. values against NumPy ------------------------------------------------------


@pytest.mark.parametrize("op, dtype", params("test_reference_values", oi.OPS))
def test_reference_values(op, dtype):
    for sample in op.samples(dtype):
        args, kwargs = sample.materialize(ember)
        result = op(ember, *args, **kwargs)
        assert_like_reference(result, op, sample, args, kwargs)
        if op.promotes_int_to_float and oi.common_dtype(op, sample) == "float32" and dtype in oi.INTEGRAL:
            assert result.dtype == ember.float32, sample


@pytest.mark.parametrize("op, dtype", params("test_special_values", FLOAT_SPECIAL_OPS,
                                             lambda op: [d for d in op.dtypes if d in oi.FLOATS]))
def test_special_values(op, dtype):
    """NaN, +-inf and -0 (a grid of all pairs for binary ops): NaN positions must
    match NumPy's and torch's."""
    sample = special_sample(op, dtype)
    args, kwargs = sample.materialize(ember)
    result = op(ember, *args, **kwargs)
    assert_like_reference(result, op, sample, args, kwargs)
    # torch turns a float NaN into a bfloat16 NaN with the sign bit set (Ember keeps the sign): ops that
    # read NaN's sign (signbit, copysign) differ there, a representation choice rather than a value.
    if torch is not None and not (op.aten in ("signbit", "copysign") and dtype == "bfloat16"):
        targs, tkwargs = sample.materialize(torch)
        expected = op(torch, *targs, **tkwargs)
        if op.aten == "gelu":
            # torch's gelu(+inf) is nan (its vectorized erf); NumPy and Ember give +inf.
            keep = ~np.isposinf(to_numpy(args[0]))
            assert np.isposinf(to_numpy(result)[~keep]).all()
            result = ember.from_numpy(np.ascontiguousarray(to_numpy(result)[keep])).to(result.dtype)
            expected = expected[torch.from_numpy(keep)]
        assert_like_torch_result(result, expected, sample)


# ---- 2. against torch: values and result dtypes (type promotion) --------------------


@pytest.mark.parametrize("op, dtype", params("test_like_torch", oi.OPS))
def test_like_torch(op, dtype):
    need_torch()
    for sample in op.samples(dtype):
        if torch_quirk(op, sample):
            continue
        args, kwargs = sample.materialize(ember)
        targs, tkwargs = sample.materialize(torch)
        assert_like_torch_result(op(ember, *args, **kwargs), op(torch, *targs, **tkwargs), sample)


@pytest.mark.parametrize("op, dtype", params("test_method", [op for op in oi.OPS if op.method]))
def test_method(op, dtype):
    """Tensor.<op>(...) gives what ember.<op>(...) gives."""
    for sample in op.samples(dtype)[::3]:
        args, kwargs = sample.materialize(ember)
        if not isinstance(sample.args[0], oi.TensorSpec) and op.method_call is None:
            continue
        assert_same(op.call_method(args, kwargs), op(ember, *args, **kwargs), sample)


# ---- layouts ----------------------------------------------------------------------


@pytest.mark.parametrize("op, dtype", params("test_noncontiguous", oi.OPS))
def test_noncontiguous(op, dtype):
    """Results for non-contiguous operands equal those for contiguous copies."""
    samples = [s for s in op.samples(dtype) if s.noncontiguous]
    assert samples
    for sample in samples:
        args, kwargs = sample.materialize(ember)
        contiguous = [a.contiguous() if isinstance(a, ember.Tensor) else a for a in args]
        kw_contiguous = {k: v.contiguous() if isinstance(v, ember.Tensor) else v for k, v in kwargs.items()}
        assert any(isinstance(a, ember.Tensor) and not a.is_contiguous() for a in args), sample
        assert_same(op(ember, *args, **kwargs), op(ember, *contiguous, **kw_contiguous), sample)


def _layout_dtype(op):
    return next(d for d in ("float32", "int32", "bool") if d in op.dtypes)


def _arange(lib, d, *shape):
    n = int(np.prod(shape))
    values = (np.arange(n) % 7 + 1).reshape(shape)
    return oi.TensorSpec(oi.cast_like(values, d), d).make(lib)


# name -> (unary operand | binary operands) built on a module
UNARY_LAYOUTS = {
    "transposed": lambda m, d: (_arange(m, d, 4, 3).t(),),
    "permuted": lambda m, d: (_arange(m, d, 4, 2, 3).permute(1, 2, 0),),
    "transposed-sliced": lambda m, d: (_arange(m, d, 8, 3).t()[:, ::2],),
    "expanded": lambda m, d: (_arange(m, d, 1, 4).expand(3, 4),),
}
BINARY_LAYOUTS = {
    "transposed+transposed": lambda m, d: (_arange(m, d, 4, 3).t(), _arange(m, d, 4, 3).t()),
    "transposed+contiguous": lambda m, d: (_arange(m, d, 4, 3).t(), _arange(m, d, 3, 4)),
    "contiguous+transposed": lambda m, d: (_arange(m, d, 3, 4), _arange(m, d, 4, 3).t()),
    "transposed+row": lambda m, d: (_arange(m, d, 4, 3).t(), _arange(m, d, 4)),
    "column+transposed": lambda m, d: (_arange(m, d, 3, 1), _arange(m, d, 4, 3).t()),
    "expanded+transposed": lambda m, d: (_arange(m, d, 1, 4).expand(3, 4), _arange(m, d, 4, 3).t()),
    "0d+transposed": lambda m, d: (_arange(m, d), _arange(m, d, 4, 3).t()),
    "permuted+2d": lambda m, d: (_arange(m, d, 4, 2, 3).permute(1, 2, 0), _arange(m, d, 3, 4)),
    "2d+permuted": lambda m, d: (_arange(m, d, 3, 4), _arange(m, d, 4, 2, 3).permute(1, 2, 0)),
    "transposed-sliced+scalar": lambda m, d: (_arange(m, d, 8, 3).t()[:, ::2], 2),
}
def layout_params():
    out = []
    for op in oi.OPS:
        if op.sample_fn is not None or op.reflected:
            continue
        cases = UNARY_LAYOUTS if op.kind == "unary" else {
            k: v for k, v in BINARY_LAYOUTS.items()
            if (op.tensor_other or k.endswith("scalar")) and (op.scalar_other or not k.endswith("scalar"))}
        for case in cases:
            out.append(pytest.param(op, case, id=f"{op.name}-{case}"))
    return out


@pytest.mark.parametrize("op, case", layout_params())
def test_layout_like_torch(op, case):
    """The output of a non-contiguous input has torch's strides."""
    need_torch()
    make = (UNARY_LAYOUTS if op.kind == "unary" else BINARY_LAYOUTS)[case]
    d = _layout_dtype(op)
    e, t = op(ember, *make(ember, d)), op(torch, *make(torch, d))
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride(), f"strides {e.stride()} != torch's {t.stride()}"
    assert_like_torch_result(e, t, case)


# ---- 3. out= ---------------------------------------------------------------------

OUT_OPS = [op for op in oi.OPS if op.supports_out]
WIDER = {"bool": "float32", "uint8": "int64", "int8": "int64", "int16": "int64", "int32": "int64",
         "int64": "float64", "float16": "float64", "bfloat16": "float64", "float32": "float64",
         "float64": "complex128", "complex64": "complex128", "complex128": None}


def out_samples(op, dtype, limit=8):
    """Tensor-only samples (the .Scalar overloads have no out=), at most `limit`,
    always including the empty, broadcasting and mixed-dtype ones."""
    samples = [s for s in op.samples(dtype) if s.tensor_only]
    keep = [s for s in samples if "0, 3" in s.desc or "mixed" in s.desc or "(3, 1) with" in s.desc]
    rest = [s for s in samples if s not in keep]
    return (keep + rest)[:limit]


@pytest.mark.parametrize("op, dtype", params("test_out", OUT_OPS))
def test_out(op, dtype):
    """out= returns the out tensor itself, resized from empty, holding the functional result."""
    for sample in out_samples(op, dtype):
        args, kwargs = sample.materialize(ember)
        expected = op(ember, *args, **kwargs)
        out = ember.empty(0, dtype=expected.dtype)
        result = op(ember, *args, out=out, **kwargs)
        assert result is out, sample
        assert_same(out, expected, sample)
        # A right-sized out is written in place.
        out2 = ember.empty(tuple(expected.shape), dtype=expected.dtype)
        assert op(ember, *args, out=out2, **kwargs) is out2
        assert_same(out2, expected, sample)


@pytest.mark.parametrize("op, dtype", params("test_out_wider_dtype", OUT_OPS))
def test_out_wider_dtype(op, dtype):
    """The result is cast into an out of a wider dtype (as torch does)."""
    if op.aten == "float_power":
        pytest.skip("float_power takes only an out of its result's dtype, as torch (test_pointwise_ops.py)")
    for sample in out_samples(op, dtype, limit=5):
        args, kwargs = sample.materialize(ember)
        expected = op(ember, *args, **kwargs)
        wider = WIDER[oi.dtype_name(expected.dtype)]
        if wider is None:
            continue
        out = ember.empty(0, dtype=E(wider))
        assert op(ember, *args, out=out, **kwargs) is out
        assert_same(out, expected.to(E(wider)), sample)


@pytest.mark.parametrize("op, dtype", params("test_out_unsafe_cast_raises", OUT_OPS))
def test_out_unsafe_cast_raises(op, dtype):
    """An out that cannot hold the result (float into int, complex into real,
    numbers into bool) raises RuntimeError, like torch."""
    checked = 0
    for sample in out_samples(op, dtype)[:4]:
        args, kwargs = sample.materialize(ember)
        result_dtype = oi.dtype_name(op(ember, *args, **kwargs).dtype)
        for bad in ("bool", "int64", "float64"):
            if can_cast(result_dtype, bad):
                continue
            with pytest.raises(RuntimeError):
                op(ember, *args, out=ember.empty(0, dtype=E(bad)), **kwargs)
            if torch is not None and op.torch_supports_out:
                targs, tkwargs = sample.materialize(torch)
                with pytest.raises(RuntimeError):
                    op(torch, *targs, out=torch.empty(0, dtype=getattr(torch, bad)), **tkwargs)
            checked += 1
    if not checked:
        pytest.skip("every dtype can hold this op's results")


SCALAR_OUT_OPS = [op for op in OUT_OPS if op.kind == "binary" and op.scalar_other and op.sample_fn is None
                  and not op.reflected]


@pytest.mark.parametrize("op", [pytest.param(op, id=op.name) for op in SCALAR_OUT_OPS])
def test_out_with_python_scalar(op):
    d = _layout_dtype(op)
    t = _arange(ember, d, 3, 4)
    expected = op(ember, t, 2)
    out = ember.empty(0, dtype=expected.dtype)
    assert op(ember, t, 2, out=out) is out
    assert_same(out, expected)


@pytest.mark.parametrize("op", op_params("test_out_overload_like_torch", [
    op for op in oi.OPS if op.torch_supports_out and not op.supports_out]))
def test_out_overload_like_torch(op):
    """Where torch has an out= form, Ember has one too."""
    d = _layout_dtype(op)
    sample = op.samples(d)[0]
    if torch is not None:
        targs, tkwargs = sample.materialize(torch)
        expected = op(torch, *targs, **tkwargs)
        op(torch, *targs, out=torch.empty(0, dtype=expected.dtype), **tkwargs)
    args, kwargs = sample.materialize(ember)
    expected = op(ember, *args, **kwargs)
    out = ember.empty(0, dtype=expected.dtype)
    assert op(ember, *args, out=out, **kwargs) is out
    assert_same(out, expected)


# ---- 4. in-place -----------------------------------------------------------------

INPLACE_OPS = [op for op in oi.OPS if op.has_inplace]


def _has_inplace_method(op):
    return op.inplace is not None or hasattr(ember.Tensor, op.aten + "_")


def _inplace_samples(op, dtype):
    """(sample, args, kwargs, functional result) for the samples whose first
    operand is a tensor; skips the test if the op has no in-place method."""
    if not _has_inplace_method(op):
        pytest.skip(f"Tensor.{op.aten}_ is missing (see test_variants_like_torch)")
    for sample in op.samples(dtype):
        if isinstance(sample.args[0], oi.TensorSpec):
            args, kwargs = sample.materialize(ember)
            yield sample, args, kwargs, op(ember, *args, **kwargs)


@pytest.mark.parametrize("op, dtype", params("test_inplace", INPLACE_OPS))
def test_inplace(op, dtype):
    """t.op_(...) returns t, bumps its version once and holds the functional
    result, whenever that result has t's dtype and shape."""
    checked = 0
    for sample, args, kwargs, expected in _inplace_samples(op, dtype):
        if expected.dtype != args[0].dtype or tuple(expected.shape) != tuple(args[0].shape):
            continue
        for call in ("method", "function") if op.function_inplace else ("method",):
            t = args[0].clone()
            version = t._version
            if call == "method":
                result = op.call_inplace(ember, [t] + args[1:], kwargs)
            else:
                result = getattr(ember, op.aten + "_")(t, *args[1:], **{**op.kwargs, **kwargs})
            assert result is t, sample
            assert t._version == version + 1, (t._version, version, sample)
            assert_same(t, expected, sample)
        checked += 1
    if not checked:
        pytest.skip("no sample keeps the input's dtype")


@pytest.mark.parametrize("op, dtype", params("test_inplace_unsafe_cast_raises", INPLACE_OPS))
def test_inplace_unsafe_cast_raises(op, dtype):
    """In-place ops whose promoted result cannot be cast into t (int_tensor.add_(1.5))
    or whose broadcast shape is larger than t's raise RuntimeError."""
    checked = 0
    for sample, args, kwargs, expected in _inplace_samples(op, dtype):
        if can_cast(oi.dtype_name(expected.dtype), dtype) and tuple(expected.shape) == tuple(args[0].shape):
            continue
        t = args[0].clone()
        version = t._version
        with pytest.raises(RuntimeError):
            op.call_inplace(ember, [t] + args[1:], kwargs)
        assert t._version == version, "a refused in-place op must leave the tensor alone"
        checked += 1
    if not checked:
        pytest.skip("every sample can be computed in place")


@pytest.mark.parametrize("op, dtype", params("test_inplace_like_torch",
                                             [op for op in INPLACE_OPS if op.torch_has_inplace]))
def test_inplace_like_torch(op, dtype):
    """In-place results (values, and errors for unsafe casts) match torch's,
    including results cast into t's dtype."""
    need_torch()
    if not _has_inplace_method(op):
        pytest.skip(f"Tensor.{op.aten}_ is missing (see test_variants_like_torch)")
    for sample in op.samples(dtype):
        if not isinstance(sample.args[0], oi.TensorSpec) or torch_quirk(op, sample):
            continue
        args, kwargs = sample.materialize(ember)
        targs, tkwargs = sample.materialize(torch)
        t, tt = args[0].clone(), targs[0].clone()
        try:
            op.call_inplace(torch, [tt] + targs[1:], tkwargs)
        except Exception as error:
            with pytest.raises(type(error)):
                op.call_inplace(ember, [t] + args[1:], kwargs)
            continue
        assert op.call_inplace(ember, [t] + args[1:], kwargs) is t
        assert_like_torch_result(t, tt, sample)


# ---- 5. meta ---------------------------------------------------------------------


@pytest.mark.parametrize("op, dtype", params("test_meta", oi.OPS))
def test_meta(op, dtype):
    """On meta inputs: the CPU result's shape, dtype and strides, without data."""
    for sample in op.samples(dtype)[::2]:
        args, kwargs = sample.materialize(ember)
        margs, mkwargs = sample.materialize(ember, device="meta")
        cpu, meta = op(ember, *args, **kwargs), op(ember, *margs, **mkwargs)
        assert meta.is_meta, sample
        assert (tuple(meta.shape), meta.dtype, meta.stride()) == (tuple(cpu.shape), cpu.dtype, cpu.stride()), sample
        if op.supports_out and sample.tensor_only:
            out = ember.empty(0, dtype=cpu.dtype, device="meta")
            assert op(ember, *margs, out=out, **mkwargs) is out
            assert (tuple(out.shape), out.dtype, out.is_meta) == (tuple(cpu.shape), cpu.dtype, True), sample
        if op.has_inplace and isinstance(args[0], ember.Tensor):
            _check_inplace_on_meta(op, sample, args, kwargs, margs, mkwargs)


def _check_inplace_on_meta(op, sample, args, kwargs, margs, mkwargs):
    """The in-place form on meta: the same geometry as on CPU, or the same error."""
    try:
        cpu = op.call_inplace(ember, [args[0].clone()] + list(args[1:]), kwargs)
    except Exception as e:  # e.g. a float result into an integer tensor
        with pytest.raises(type(e)):
            op.call_inplace(ember, [margs[0].clone()] + list(margs[1:]), mkwargs)
        return
    meta = op.call_inplace(ember, [margs[0].clone()] + list(margs[1:]), mkwargs)
    assert meta.is_meta, sample
    assert (tuple(meta.shape), meta.dtype, meta.stride()) == (tuple(cpu.shape), cpu.dtype, cpu.stride()), sample


# ---- 5b. overloads that take Python numbers ------------------------------------------


@pytest.mark.parametrize("op, dtype", params("test_number_overloads", oi.OPS))
def test_number_overloads(op, dtype):
    """The Scalar overloads give what Python's spelling gives for the same numbers (or its error)."""
    for sample in op.samples(dtype):
        if sample.tensor_only:
            continue
        args, kwargs = sample.materialize(ember)
        for overload, call, python_spelling in oi.number_overload_calls(op, ember, args, kwargs):
            try:
                expected = python_spelling()
            except Exception as e:
                with pytest.raises(type(e)):
                    call()
                continue
            assert_same(call(), expected, (overload, sample))


# ---- 6. unsupported dtypes ---------------------------------------------------------


@pytest.mark.parametrize("op, dtype", params("test_unsupported_dtypes", oi.OPS,
                                             lambda op: [d for d in ALL if d not in op.dtypes]))
def test_unsupported_dtypes(op, dtype):
    """Dtypes outside op.dtypes raise, with torch's exception type (and torch,
    when installed, confirms the dtype list by raising too)."""
    samples = op.samples(dtype)
    if not samples:
        pytest.skip("no sample for this dtype")
    sample = samples[0]
    args, kwargs = sample.materialize(ember)
    with pytest.raises(Exception) as error:
        op(ember, *args, **kwargs)
    if torch is not None:
        targs, tkwargs = sample.materialize(torch)
        with pytest.raises(Exception) as terror:
            op(torch, *targs, **tkwargs)
        assert type(error.value) is type(terror.value), (
            f"Ember raised {type(error.value).__name__}: {error.value}; "
            f"torch {type(terror.value).__name__}: {terror.value}")
    else:
        assert isinstance(error.value, (RuntimeError, NotImplementedError, TypeError)), error.value


# ---- API surface -----------------------------------------------------------------


@pytest.mark.parametrize("op", op_params("test_variants_like_torch", [
    op for op in oi.OPS
    if op.fn is None and op.name == op.aten and op.aten not in {"silu", "gelu"} | oi.NN_ACTIVATIONS]))
def test_variants_like_torch(op):
    """ember.<op>, Tensor.<op> and Tensor.<op>_ exist where torch has them."""
    assert hasattr(ember, op.aten)
    if op.method:
        assert hasattr(ember.Tensor, op.aten)
    if op.has_inplace:
        assert hasattr(ember.Tensor, op.aten + "_"), f"Tensor.{op.aten}_"
    if op.function_inplace:
        assert hasattr(ember, op.aten + "_"), f"ember.{op.aten}_"
    if torch is not None:  # the database's view of torch is right
        assert hasattr(torch.Tensor, op.aten) == op.method
        assert hasattr(torch.Tensor, op.aten + "_") == (op.has_inplace and op.torch_has_inplace)
        assert hasattr(torch, op.aten + "_") == op.function_inplace


# ---- 7. broadcasting errors ------------------------------------------------------

BROADCAST_ERRORS = {
    "add (3,) (4,)": (lambda m: m.add(m.ones(3), m.ones(4)), ["3", "4"]),
    "mul (2,3) (3,2)": (lambda m: m.ones(2, 3) * m.ones(3, 2), ["2", "3"]),
    "eq (2,3) (4,)": (lambda m: m.eq(m.ones(2, 3), m.ones(4)), ["3", "4"]),
    "where (2,) (3,)": (lambda m: m.where(m.ones(2, dtype=m.bool), m.ones(3), m.ones(3)), ["2", "3"]),
    "clamp bound (3,) for (2,)": (lambda m: m.clamp(m.ones(2), m.ones(3)), ["2", "3"]),
    "in-place (3,) += (2,3)": (lambda m: m.ones(3).add_(m.ones(2, 3)), ["[3]", "[2, 3]"]),
    "in-place (2,1) *= (1,3)": (lambda m: m.ones(2, 1).mul_(m.ones(1, 3)), ["[2, 1]", "[2, 3]"]),
}


@pytest.mark.parametrize("case", list(BROADCAST_ERRORS))
def test_broadcast_errors(case):
    fn, sizes = BROADCAST_ERRORS[case]
    with pytest.raises(RuntimeError) as error:
        fn(ember)
    for size in sizes:
        assert size in str(error.value), (size, str(error.value))
    if torch is not None:
        with pytest.raises(RuntimeError):
            fn(torch)


def test_out_of_wrong_shape_is_resized():
    out = ember.empty(2, 2)
    assert ember.add(ember.ones(3), ember.ones(3), out=out) is out
    assert tuple(out.shape) == (3,)
    np.testing.assert_array_equal(to_numpy(out), [2.0, 2.0, 2.0])


# ---- known bugs with minimal repros (strict xfails) ------------------------------


def _eq_inplace_into_float():
    t = ember.tensor([1.0, 2.0])
    t.eq_(1)
    np.testing.assert_array_equal(to_numpy(t), [1.0, 0.0])


def _lt_out_int():
    out = ember.full((3,), -1, dtype=ember.int64)
    ember.lt(ember.tensor([0, 0, 0]), ember.tensor([1, 1, 1]), out=out)
    np.testing.assert_array_equal(to_numpy(out), [1, 1, 1])  # gets [-255, -255, -255]


def _logical_not_inplace_float():
    t = ember.zeros(3)
    t.logical_not_()
    np.testing.assert_array_equal(to_numpy(t), [1.0, 1.0, 1.0])  # gets 1.4e-45 (bool byte in a float)


def _clamp_nan_min():
    np.testing.assert_array_equal(to_numpy(ember.clamp(ember.tensor([1.0, 2.0]), min=float("nan"))),
                                  [np.nan, np.nan])


def _clamp_nan_tensor_bound():
    r = ember.clamp(ember.tensor([1.0, 2.0]), ember.tensor([float("nan"), 0.0]))
    np.testing.assert_array_equal(to_numpy(r), [np.nan, 2.0])


def _relu_nan():
    assert np.isnan(to_numpy(ember.relu(ember.tensor([float("nan")])))).all()


def _clamp_inplace_int_float_bounds():
    with pytest.raises(RuntimeError):
        ember.tensor([1, 2, 3]).clamp_(0.5, 1.5)


def _where_out_wrong_dtype():
    with pytest.raises(RuntimeError):
        c = ember.tensor([True, False])
        ember.where(c, ember.tensor([1.5, 2.0]), ember.tensor([1.0, 2.0]), out=ember.empty(0, dtype=ember.int64))


def _abs_complex_out_int():
    with pytest.raises(RuntimeError):
        ember.abs(ember.tensor([3 + 4j]), out=ember.empty(0, dtype=ember.int32))


def _abs_inplace_complex():
    with pytest.raises(RuntimeError):
        ember.tensor([1 + 1j]).abs_()


def _pow_tensor_negative_int_exponent():
    # torch: integer ** negative integer tensor exponent is 0 (1 and -1 excepted); it
    # only raises for a Python-number exponent.
    r = ember.pow(ember.tensor([2, 1, -1]), ember.tensor([-1, -2, -3]))
    np.testing.assert_array_equal(to_numpy(r), [0, 1, -1])


def _div_bad_rounding_mode_type():
    with pytest.raises(RuntimeError):
        ember.div(ember.tensor([5]), 2, rounding_mode="round")


def _gelu_bad_approximate_type():
    with pytest.raises(RuntimeError):
        ember.gelu(ember.ones(2), approximate="x")


def _true_divide_scalar():
    np.testing.assert_array_equal(to_numpy(ember.true_divide(ember.tensor([1, 2]), 2)), [0.5, 1.0])


def _where_two_scalars():
    np.testing.assert_array_equal(to_numpy(ember.where(ember.tensor([True, False]), 1.0, 0)), [1.0, 0.0])


def _broadcast_message_like_torch():
    with pytest.raises(RuntimeError, match=r"tensor a \(3\) must match the size of tensor b \(2\) at "
                                           r"non-singleton dimension 1"):
        ember.ones(2, 3) * ember.ones(3, 2)


# Bugs this suite found, kept as regressions now that they are fixed.
REGRESSIONS = {
    "eq_ into a float tensor": _eq_inplace_into_float,
    "lt out= int64": _lt_out_int,
    "logical_not_ on float": _logical_not_inplace_float,
    "clamp NaN min": _clamp_nan_min,
    "clamp NaN tensor bound": _clamp_nan_tensor_bound,
    "relu NaN": _relu_nan,
    "clamp_ int with float bounds": _clamp_inplace_int_float_bounds,
    "where out= of another dtype": _where_out_wrong_dtype,
    "abs(complex, out=int)": _abs_complex_out_int,
    "abs_ on complex": _abs_inplace_complex,
    "pow with negative int exponent tensor": _pow_tensor_negative_int_exponent,
    "div rounding_mode error type": _div_bad_rounding_mode_type,
    "gelu approximate error type": _gelu_bad_approximate_type,
    "broadcast error names torch's dimension": _broadcast_message_like_torch,
    "true_divide(t, number)": _true_divide_scalar,
    "where(cond, number, number)": _where_two_scalars,
}


@pytest.mark.parametrize("case", list(REGRESSIONS))
def test_regression(case):
    REGRESSIONS[case]()


