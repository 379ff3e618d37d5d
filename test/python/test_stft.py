"""stft/istft and kaiser_window against torch, the round trip, gradients."""

import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck


def both(fn, x, **kwargs):
    return fn(ember, ember.tensor(x), **kwargs), fn(torch, torch.tensor(x), **kwargs)


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(got.resolve_conj().numpy(), want.resolve_conj().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("length, beta", [(0, 12.0), (1, 12.0), (7, 12.0), (16, 5.0)])
def test_kaiser_window_matches_torch(length, beta, periodic):
    close(ember.kaiser_window(length, periodic, beta), torch.kaiser_window(length, periodic, beta))


@pytest.mark.parametrize("kwargs", [
    dict(n_fft=16),
    dict(n_fft=16, hop_length=5, center=False),
    dict(n_fft=16, win_length=10, window="hann"),
    dict(n_fft=15, hop_length=3, pad_mode="constant", normalized=True),
    dict(n_fft=16, onesided=False, window="hamming"),
])
@pytest.mark.parametrize("shape", [(100,), (2, 64)])
def test_stft_matches_torch(kwargs, shape):
    x = np.random.default_rng(0).standard_normal(shape)
    def run(lib, t):
        k = dict(kwargs)
        if k.get("window") == "hann":
            k["window"] = lib.hann_window(k.get("win_length", k["n_fft"]), dtype=t.dtype)
        elif k.get("window") == "hamming":
            k["window"] = lib.hamming_window(k["n_fft"], dtype=t.dtype)
        return lib.stft(t, return_complex=True, **k)
    got, want = both(run, x)
    assert tuple(got.shape) == tuple(want.shape)
    close(got, want, 1e-9)


@pytest.mark.parametrize("length", [None, 90, 130])
def test_istft_inverts_stft_like_torch(length):
    x = np.random.default_rng(1).standard_normal((2, 120))
    def run(lib, t):
        w = lib.hann_window(32, dtype=t.dtype)
        spec = lib.stft(t, 32, 8, window=w, return_complex=True)
        return lib.istft(spec, 32, 8, window=w, length=length)
    got, want = both(run, x)
    close(got, want, 1e-9)
    if length is None:
        np.testing.assert_allclose(got.numpy(), x[:, :got.shape[-1]], atol=1e-9)


def test_stft_gradients_and_errors():
    x = ember.tensor(np.random.default_rng(2).standard_normal(24), requires_grad=True)
    w = ember.hann_window(8, dtype=ember.float64)
    assert gradcheck(lambda t: ember.view_as_real(ember.stft(t, 8, 4, window=w, return_complex=True)), (x,))
    with pytest.raises(RuntimeError, match="requires the return_complex parameter"):
        ember.stft(ember.randn(32), 8)
    with pytest.raises(RuntimeError, match="expected 0 < n_fft"):
        ember.stft(ember.randn(4), 16, center=False, return_complex=True)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        spec = ember.stft(ember.randn(64), 16, 16, window=ember.hann_window(16), return_complex=True, center=False)
        ember.istft(spec, 16, 16, window=ember.hann_window(16), center=False)
