import math
import numbers

import ember

# Default (rtol, atol) per dtype, torch's values.
_TOLERANCES = {
    ember.float16: (1e-3, 1e-5), ember.bfloat16: (1.6e-2, 1e-5), ember.float32: (1.3e-6, 1e-5),
    ember.float64: (1e-7, 1e-7), ember.complex64: (1.3e-6, 1e-5), ember.complex128: (1e-7, 1e-7),
}


def _tolerances(dtype):
    return _TOLERANCES.get(dtype, (0.0, 0.0))


def _as_tensor(value):
    if isinstance(value, ember.Tensor):
        return value
    return ember.as_tensor(value)


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_stride, path):
    where = f" at {path}" if path else ""
    if tuple(actual.shape) != tuple(expected.shape):
        raise AssertionError(f"The values for attribute 'shape' do not match{where}: {actual.shape} != "
                             f"{expected.shape}.")
    if check_dtype and actual.dtype != expected.dtype:
        raise AssertionError(f"The values for attribute 'dtype' do not match{where}: {actual.dtype} != "
                             f"{expected.dtype}.")
    if check_device and actual.device != expected.device:
        raise AssertionError(f"The values for attribute 'device' do not match{where}: {actual.device} != "
                             f"{expected.device}.")
    if check_stride and actual.stride() != expected.stride():
        raise AssertionError(f"The values for attribute 'stride()' do not match{where}: {actual.stride()} != "
                             f"{expected.stride()}.")
    if rtol is None:
        rtol = max(_tolerances(actual.dtype)[0], _tolerances(expected.dtype)[0])
        atol = max(_tolerances(actual.dtype)[1], _tolerances(expected.dtype)[1])
    a = actual.detach().cpu().resolve_conj()
    e = expected.detach().cpu().resolve_conj()
    if a.dtype != e.dtype:
        common = ember.promote_types(a.dtype, e.dtype)
        a, e = a.to(common), e.to(common)
    if a.dtype == ember.bool or not (a.is_floating_point() or a.is_complex()):
        mismatched = a != e
    else:
        a64 = a.to(ember.complex128 if a.is_complex() else ember.float64)
        e64 = e.to(a64.dtype)
        close = ember.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=equal_nan)
        mismatched = ~close
    count = int(mismatched.sum())
    if count == 0:
        return
    total = a.numel()
    kind = "Scalars" if total == 1 and a.dim() == 0 else "Tensor-likes"
    lines = [f"{kind} are not {'equal' if rtol == 0 and atol == 0 else 'close'}!{where}", "",
             f"Mismatched elements: {count} / {total} ({100.0 * count / total:.1f}%)"]
    if a.is_floating_point() or a.is_complex():
        diff = (a.to(ember.complex128 if a.is_complex() else ember.float64) -
                e.to(ember.complex128 if a.is_complex() else ember.float64)).abs()
        diff = diff.masked_fill(~mismatched, 0)
        index = int(diff.reshape(-1).argmax())
        lines.append(f"Greatest absolute difference: {float(diff.reshape(-1)[index])} at index "
                     f"{_unravel(index, a.shape)} (up to {atol} allowed)")
    raise AssertionError("\n".join(lines))


def _unravel(flat, shape):
    out = []
    for size in reversed(tuple(shape)):
        out.append(flat % size)
        flat //= size
    return tuple(reversed(out))


def _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_stride, path):
    if isinstance(actual, ember.Tensor) or isinstance(expected, ember.Tensor):
        if not (isinstance(actual, ember.Tensor) and isinstance(expected, ember.Tensor)):
            if not isinstance(actual, ember.Tensor) or not isinstance(expected, ember.Tensor):
                raise TypeError(f"Both inputs have to be tensors (or the same kind of value), got "
                                f"{type(actual).__name__} and {type(expected).__name__}.")
        _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_stride, path)
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            raise AssertionError(f"The keys of the mappings do not match: {sorted(map(str, actual))} != "
                                 f"{sorted(map(str, expected))}")
        for key in actual:
            _compare(actual[key], expected[key], rtol, atol, equal_nan, check_device, check_dtype, check_stride,
                     f"{path}[{key!r}]")
        return
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_device, check_dtype, check_stride, f"{path}[{i}]")
        return
    if isinstance(actual, numbers.Number) and isinstance(expected, numbers.Number):
        if check_dtype and type(actual) is not type(expected):
            raise AssertionError(f"The values for attribute 'dtype' do not match: {type(actual).__name__} != "
                                 f"{type(expected).__name__}.")
        r = 1.3e-6 if rtol is None else rtol
        t = 1e-5 if atol is None else atol
        if isinstance(actual, (bool, int)) and isinstance(expected, (bool, int)):
            r = t = 0.0
        both_nan = equal_nan and isinstance(actual, float) and isinstance(expected, float) and \
            math.isnan(actual) and math.isnan(expected)
        if not both_nan and not abs(actual - expected) <= t + r * abs(expected):
            raise AssertionError(f"Scalars are not close!{' at ' + path if path else ''}\n\nExpected {expected} but "
                                 f"got {actual}.\nAbsolute difference: {abs(actual - expected)}")
        return
    if actual != expected:
        raise AssertionError(f"{actual!r} != {expected!r}{' at ' + path if path else ''}")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raises AssertionError unless actual and expected are close: same shape (and dtype, device unless the
    checks are off), |actual - expected| <= atol + rtol * |expected| elementwise. rtol and atol default by dtype
    and must be given together."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_stride, "")
    except AssertionError as error:
        if msg is None:
            raise
        raise AssertionError(msg(str(error)) if callable(msg) else msg) from None


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False, noncontiguous=False):
    """A random tensor of shape and dtype with values in [low, high) (defaults by dtype)."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if dtype == ember.bool:
        result = ember.randint(0, 2, shape, device=device).to(ember.bool)
    elif dtype.is_floating_point or dtype.is_complex:
        lo, hi = (-9.0 if low is None else low), (9.0 if high is None else high)
        result = (ember.rand(shape, device=device, dtype=dtype) * (hi - lo) + lo)
    else:
        lo, hi = (-9 if low is None else int(low)), (10 if high is None else int(high))
        result = ember.randint(lo, hi, shape, device=device, dtype=dtype)
    if noncontiguous and result.numel() > 1:
        doubled = ember.repeat_interleave(result.reshape(-1), 2)
        result = doubled[::2].reshape(shape)
    if requires_grad:
        result.requires_grad_()
    return result
