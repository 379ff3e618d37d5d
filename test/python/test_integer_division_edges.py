"""Integer division at the edges of the integer range.

The most negative int32/int64 divided by -1 overflows, and the hardware
division traps (SIGFPE, the whole process dies) instead of wrapping. Ember
never divides by -1: the quotient wraps to the most negative value, as
torch's CPU kernels give, and the remainder is 0. (torch itself dies on
div(rounding_mode='trunc'), so that case is checked against the values.)
"""

import pytest

import ember


@pytest.mark.parametrize("dtype,bits", [(ember.int64, 64), (ember.int32, 32), (ember.int16, 16), (ember.int8, 8)])
def test_most_negative_over_minus_one(dtype, bits):
    lo = -(2 ** (bits - 1))
    a = ember.tensor([lo, lo + 1, -7, 0, 7], dtype=dtype)
    minus_one = ember.tensor(-1, dtype=dtype)
    want_quotient = [lo, -(lo + 1), 7, 0, -7]
    assert (a // minus_one).tolist() == want_quotient
    assert ember.div(a, minus_one, rounding_mode="floor").tolist() == want_quotient
    assert ember.div(a, minus_one, rounding_mode="trunc").tolist() == want_quotient
    assert (a % minus_one).tolist() == [0, 0, 0, 0, 0]
    assert ember.remainder(a, -1).tolist() == [0, 0, 0, 0, 0]
    # The other divisors keep Python's floor semantics.
    assert (a[2:] // 2).tolist() == [-4, 0, 3]
    assert (a[2:] % -2).tolist() == [-1, 0, -1]


def test_division_by_zero_is_an_error_not_a_crash():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ember.tensor([-(2 ** 63)]) // 0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ember.tensor([5], dtype=ember.int32) % 0


def test_integer_pow_with_negative_exponents_matches_torch():
    # Elementwise (torch's kernel): 1/base^k truncates to 0, a zero base included, unless |base| is 1.
    # (This was an error raised inside the kernel, which crashed the sanitizer build: a fuzz-smoke find.)
    base = ember.tensor([0, 2, 1, -1, -1], dtype=ember.int8)
    exponent = ember.tensor([-1, -1, -3, -3, -2], dtype=ember.int8)
    assert base.pow(exponent).tolist() == [0, 0, 1, -1, 1]
    assert ember.pow(2147483648, ember.tensor([-1, 2], dtype=ember.int8)).tolist() == [0, 0]
    # A Python number as the exponent is torch's pow.Tensor_Scalar, with its check.
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        base.pow(-1)
