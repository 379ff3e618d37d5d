"""ember.fft against torch.fft (values, dtypes, shapes), gradients by
finite differences, and the errors torch raises."""

import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck

C2C = ["fft", "ifft"]
C2C_N = ["fftn", "ifftn", "fft2", "ifft2"]
R2C = ["rfft", "ihfft"]
R2C_N = ["rfftn", "ihfftn", "rfft2", "ihfft2"]
C2R = ["irfft", "hfft"]
C2R_N = ["irfftn", "hfftn", "irfft2", "hfft2"]
NORMS = [None, "backward", "ortho", "forward"]


def values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype({"float32": np.float32, "float64": np.float64, "complex64": np.complex64,
                     "complex128": np.complex128, "int64": np.int64}[dtype])


def both(name, a, *args, **kwargs):
    got = getattr(ember.fft, name)(ember.tensor(a), *args, **kwargs)
    want = getattr(torch.fft, name)(torch.tensor(a), *args, **kwargs)
    return got, want


def check(got, want, tol=None):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    w = want.resolve_conj().numpy()
    tol = tol or (1e-4 if w.dtype in (np.float32, np.complex64) else 1e-10)
    np.testing.assert_allclose(got.resolve_conj().numpy(), w, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
@pytest.mark.parametrize("name", C2C + R2C + C2R)
@pytest.mark.parametrize("norm", NORMS)
def test_one_dim_transforms_match_torch(name, dtype, norm):
    if name in R2C and dtype.startswith("complex"):
        pytest.skip("real input only")
    a = values((3, 10), dtype)
    check(*both(name, a, norm=norm))
    for n in (4, 7, 13):
        check(*both(name, a, n=n, dim=0 if n == 4 else -1, norm=norm))


@pytest.mark.parametrize("name", C2C_N + R2C_N + C2R_N)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_multi_dim_transforms_match_torch(name, norm, dtype):
    if name in R2C_N and dtype.startswith("complex"):
        pytest.skip("real input only")
    a = values((2, 5, 6), dtype)
    check(*both(name, a, norm=norm))
    check(*both(name, a, s=(4, 8), norm=norm))
    if not name.endswith("2"):
        check(*both(name, a, dim=(0, 2), norm=norm))
        check(*both(name, a, s=(3, -1, 4), norm=norm))


@pytest.mark.parametrize("shape", [(1,), (2,), (7,), (8,), (3, 1), (4, 5, 6)])
def test_full_spectrum_of_real_signals_is_hermitian(shape):
    a = values(shape, "float64")
    for name in ("fft", "ifft", "fftn", "ifftn"):
        check(*both(name, a))
        np.testing.assert_allclose(getattr(ember.fft, name)(ember.tensor(a)).resolve_conj().numpy(),
                                   getattr(np.fft, name)(a), atol=1e-10)


def test_strided_and_batched_inputs():
    base = values((6, 8, 10), "complex128")
    for view in (lambda t: t.transpose(0, 2), lambda t: t[::2, :, 1::3], lambda t: t.conj()):
        got = ember.fft.fftn(view(ember.tensor(base)), dim=(0, 1))
        want = torch.fft.fftn(view(torch.tensor(base)), dim=(0, 1))
        check(got, want)
    real = values((6, 8), "float32")
    check(ember.fft.rfft(ember.tensor(real).t()), torch.fft.rfft(torch.tensor(real).t()))


def test_out_and_frequencies_and_shifts():
    a = values((4, 6), "complex64")
    out = ember.empty(0, dtype=ember.complex64)
    result = ember.fft.fft(ember.tensor(a), out=out)
    assert result is out
    check(out, torch.fft.fft(torch.tensor(a)))
    for n, d in ((5, 1.0), (8, 0.25), (1, 2.0)):
        check(ember.fft.fftfreq(n, d), torch.fft.fftfreq(n, d))
        check(ember.fft.rfftfreq(n, d), torch.fft.rfftfreq(n, d))
    assert ember.fft.fftfreq(4, dtype=ember.float64).dtype == ember.float64
    x = np.arange(30).reshape(5, 6)
    for dim in (None, 0, (1,), (0, 1)):
        np.testing.assert_array_equal(ember.fft.fftshift(ember.tensor(x), dim).numpy(), np.fft.fftshift(x, dim))
        np.testing.assert_array_equal(ember.fft.ifftshift(ember.tensor(x), dim).numpy(), np.fft.ifftshift(x, dim))


def test_round_trips():
    a = values((4, 9), "float64")
    x = ember.tensor(a)
    np.testing.assert_allclose(ember.fft.irfft(ember.fft.rfft(x), n=9).numpy(), a, atol=1e-12)
    np.testing.assert_allclose(ember.fft.ifftn(ember.fft.fftn(x)).real.numpy(), a, atol=1e-12)
    np.testing.assert_allclose(ember.fft.hfft(ember.fft.ihfft(x), n=9).numpy(), a, atol=1e-12)


@pytest.mark.parametrize("name", C2C + C2C_N + R2C + R2C_N + C2R + C2R_N)
def test_gradients_match_finite_differences(name):
    complex_input = name in C2C + C2C_N + C2R + C2R_N
    a = values((3, 4), "complex128" if complex_input else "float64", seed=3)
    x = ember.tensor(a, requires_grad=True)
    fn = getattr(ember.fft, name)
    kwargs = {"norm": "ortho"} if name.endswith("n") else {}
    assert gradcheck(lambda t: fn(t, **kwargs), (x,))


def test_gradients_of_real_input_to_complex_transforms():
    x = ember.tensor(values((5,), "float64"), requires_grad=True)
    assert gradcheck(lambda t: ember.fft.fft(t), (x,))
    assert gradcheck(lambda t: ember.fft.fftn(t.view(1, 5), s=(2, 7)), (x,))


def test_gradients_match_torch():
    a = values((4, 6), "float32")
    e = ember.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    (ember.fft.irfft(ember.fft.rfft(e) * 2j, n=6).pow(2).sum() + ember.fft.fft2(e).abs().sum()).backward()
    (torch.fft.irfft(torch.fft.rfft(t) * 2j, n=6).pow(2).sum() + torch.fft.fft2(t).abs().sum()).backward()
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_meta_shapes():
    x = ember.empty(3, 8, device="meta")
    assert ember.fft.rfft(x).shape == (3, 5) and ember.fft.rfft(x).device.type == "meta"
    assert ember.fft.fft2(x).shape == (3, 8)
    assert ember.fft.irfft(ember.empty(3, 5, dtype=ember.complex64, device="meta")).shape == (3, 8)


def test_errors_name_the_problem():
    x = ember.randn(4)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\)"):
        ember.fft.fft(x, n=0)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\)"):
        ember.fft.fft(ember.randn(0))
    with pytest.raises(ValueError, match="Invalid normalization mode"):
        ember.fft.fft(x, norm="sideways")
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.fft.fft(x, dim=1)
    with pytest.raises(RuntimeError, match="dims must be unique"):
        ember.fft.fftn(ember.randn(2, 2), dim=(0, 0))
    with pytest.raises(RuntimeError, match="must have the same length"):
        ember.fft.fftn(ember.randn(2, 2), s=(2,), dim=(0, 1))
    with pytest.raises(RuntimeError, match="expects a real input"):
        ember.fft.rfft(ember.randn(4, dtype=ember.complex64))
    with pytest.raises(RuntimeError, match="Unsupported dtype"):
        ember.fft.fft(ember.randn(4, dtype=ember.float16))
    with pytest.raises(RuntimeError, match="Invalid number of data points"):
        ember.fft.irfft(ember.randn(1, dtype=ember.complex64))
    # a batch of nothing is no error
    assert ember.fft.fft(ember.randn(0, 4)).shape == (0, 4)


@pytest.mark.parametrize("call", [
    lambda x: ember._fft_r2c(x, [0, -2, 2], 2, False),
    lambda x: ember._fft_c2c(x.to(ember.complex64), [0], 0, True),
    lambda x: ember._fft_c2r(x.to(ember.complex64), [-1], 0, 4),
    lambda x: ember.fft.rfft(x),
])
def test_zero_dim_inputs_raise_instead_of_crashing(call):
    # Found by the fuzz smoke: a 0-d input indexed past the dims' table.
    with pytest.raises(IndexError, match="[Dd]imension"):
        call(ember.randn([]))


# Large enough (32K+ output elements) to be shared out over the threads: whole transforms per thread
# where the batch allows, else one pass per dimension (the last one's lines split over the threads).
THREADED = [((256, 256), None), ((3, 128, 96), None), ((96, 40, 36), None), ((2, 200, 180), (1, 2)),
            ((300, 140), (0,)), ((64, 48, 40), (0, 2))]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape,dim", THREADED, ids=str)
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "hfftn"])
def test_transforms_shared_over_threads_match_torch(name, shape, dim, threads):
    before = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        a = values(shape, "complex64" if name in ("fftn", "ifftn", "irfftn", "hfftn") else "float32")
        check(*both(name, a, dim=dim), tol=2e-3)
        # a transposed input: the passes run on the output's own strides
        t = np.ascontiguousarray(a.T).T
        got = getattr(ember.fft, name)(ember.tensor(np.ascontiguousarray(a.T)).permute(*reversed(range(a.ndim))),
                                        dim=dim)
        check(got, getattr(torch.fft, name)(torch.tensor(t), dim=dim), tol=2e-3)
    finally:
        ember.set_num_threads(before)
