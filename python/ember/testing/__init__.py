"""Assertions for tests, as torch.testing: assert_close compares tensors (or
nested sequences and mappings of them) with dtype-dependent tolerances."""

import warnings

from ._comparison import assert_close, make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated form of assert_close: expected takes actual's dtype, strides are not compared."""
    warnings.warn("`ember.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `ember.testing.assert_close()` instead.", FutureWarning, stacklevel=2)
    import ember

    if not isinstance(actual, ember.Tensor):
        actual = ember.tensor(actual)
    if not isinstance(expected, ember.Tensor):
        expected = ember.tensor(expected, dtype=actual.dtype)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)
