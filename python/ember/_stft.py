"""Short-time Fourier transforms (stft, istft) and the Kaiser window, as
torch's: frames cut with unfold, windowed, and transformed by ember.fft;
istft overlap-adds with fold and divides by the summed squared window.
Autograd comes through those ops."""

import ember as _e
from ember import _C
from ember.amp._python_ops import autocast_op


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """The Kaiser window I0(beta sqrt(1 - (2n/N - 1)^2)) / I0(beta), N = length (periodic) or length - 1."""
    if window_length < 0:
        raise RuntimeError(f"kaiser_window requires non-negative window_length, got window_length={window_length}")
    dtype = dtype or _C.get_default_dtype()
    if window_length == 0:
        return _C.empty(0, dtype=dtype, device=device).requires_grad_(requires_grad)
    if window_length == 1:
        return _C.ones(1, dtype=dtype, device=device).requires_grad_(requires_grad)
    n = window_length + 1 if periodic else window_length
    k = _C.arange(n, dtype=_C.float64, device=device)
    ratio = (2 * k / (n - 1) - 1).clamp(-1, 1)
    w = _C.i0(beta * (1 - ratio * ratio).clamp(min=0).sqrt()) / _C.i0(_C.tensor(float(beta), dtype=_C.float64))
    if periodic:
        w = w[:-1]
    return w.to(dtype).requires_grad_(requires_grad)


def _padded_window(window, win_length, n_fft, like):
    if window is None:
        window = _C.ones(win_length, dtype=like.real.dtype if like.is_complex() else like.dtype, device=like.device)
    if window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {tuple(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _C.constant_pad_nd(window, [left, n_fft - win_length - left], 0)
    return window


def _check_lengths(name, n_fft, hop_length, win_length, signal_length=None):
    if n_fft <= 0 or (signal_length is not None and n_fft > signal_length):
        raise RuntimeError(f"{name}: expected 0 < n_fft < {signal_length}, but got n_fft={n_fft}"
                           if signal_length is not None else f"{name}: expected 0 < n_fft, but got n_fft={n_fft}")
    if hop_length <= 0:
        raise RuntimeError(f"{name}: expected hop_length > 0, but got hop_length={hop_length}")
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError(f"{name}: expected 0 < win_length <= n_fft, but got win_length={win_length}")


# torch's Python stft pads for `center` itself and calls the plain overload;
# stft.center is the same function with the padding done by the op.
@autocast_op(lambda *a, **k: "stft", names=("stft", "stft.center"))
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform: frames of n_fft samples every hop_length, windowed, transformed.
    Result (..., n_fft // 2 + 1 or n_fft, n_frames)."""
    if return_complex is None:
        if not (input.is_complex() or (window is not None and window.is_complex())):
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    batched = input.dim() == 2
    x = input if batched else input.unsqueeze(0)
    if center:
        pad = n_fft // 2
        x = _e.nn.functional.pad(x.unsqueeze(1), [pad, pad], mode=pad_mode).squeeze(1)
    _check_lengths("stft", n_fft, hop_length, win_length, x.shape[-1])
    w = _padded_window(window, win_length, n_fft, x)
    frames = x.unfold(-1, n_fft, hop_length) * w
    complex_signal = x.is_complex() or w.is_complex()
    onesided = (not complex_signal) if onesided is None else onesided
    if onesided and complex_signal:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spectrum = _e.fft.rfft(frames, norm=norm) if onesided else _e.fft.fft(frames, norm=norm)
    spectrum = spectrum.transpose(-1, -2)
    if not batched:
        spectrum = spectrum.squeeze(0)
    return spectrum if return_complex else _C.view_as_real(spectrum.resolve_conj())


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of stft: each frame inverse-transformed, windowed and overlap-added, divided by the
    summed squared window."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor.")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex values, but got "
                           f"{input.dim()}D")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    _check_lengths("istft", n_fft, hop_length, win_length)
    batched = input.dim() == 3
    spec = input if batched else input.unsqueeze(0)
    n_freq, n_frames = spec.shape[-2], spec.shape[-1]
    onesided = (n_freq != n_fft) if onesided is None else onesided
    if onesided and n_freq != n_fft // 2 + 1:
        raise RuntimeError(f"istft: expected the frequency dimension (size {n_freq}) of the input to equal "
                           f"n_fft / 2 + 1 when onesided=True, but got n_fft={n_fft}")
    if not onesided and n_freq != n_fft:
        raise RuntimeError(f"istft: expected the frequency dimension (size {n_freq}) of the input to equal n_fft "
                           f"when onesided=False, but got n_fft={n_fft}")
    if onesided and return_complex:
        raise RuntimeError("cannot have onesided output if window or input is complex")
    w = _padded_window(window, win_length, n_fft, spec)
    norm = "ortho" if normalized else "backward"
    frames_spec = spec.transpose(-1, -2)
    if onesided:
        frames = _e.fft.irfft(frames_spec, n=n_fft, norm=norm)
    else:
        frames = _e.fft.ifft(frames_spec, n=n_fft, norm=norm)
        if not return_complex:
            frames = frames.real
    frames = frames * w
    total = n_fft + hop_length * (n_frames - 1)
    y = _overlap_add(frames, total, hop_length)
    envelope = _overlap_add((w * w).expand(1, n_frames, n_fft).abs(), total, hop_length)
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    end = min(end, total)
    y = y[..., start:end]
    envelope = envelope[..., start:end]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError("istft: window overlap add min: the window's squared sum vanishes somewhere "
                           "(nonzero overlap add is required for the inverse; check window and hop_length)")
    y = y / envelope
    if length is not None and y.shape[-1] < length:
        y = _C.constant_pad_nd(y, [0, length - y.shape[-1]], 0)
    return y if batched else y.squeeze(0)


def _overlap_add(frames, total, hop_length):
    """Sum of frames [B, n_frames, n_fft] placed every hop_length samples: [B, total]."""
    if frames.is_complex():
        real = _overlap_add(frames.real, total, hop_length)
        imag = _overlap_add(frames.imag, total, hop_length)
        return _C.complex(real, imag)
    n_fft = frames.shape[-1]
    columns = frames.transpose(-1, -2)  # [B, n_fft, n_frames]
    folded = _e.nn.functional.fold(columns, output_size=(1, total), kernel_size=(1, n_fft), stride=(1, hop_length))
    return folded.reshape(frames.shape[0], total)


__all__ = ["stft", "istft", "kaiser_window"]
