"""Convolution and pooling over 1, 2 or 3 spatial dims, composed from the
native 2-d convolution and from sliding windows (Tensor.unfold): conv3d,
transposed convolutions, 3-d and power-average pooling, max-unpooling and
3-d adaptive pooling. Autograd comes from the ops they are built of.

The public names are re-exported by ember.nn.functional.
"""

import itertools
import math

import ember

from . import functional as F
from .functional import _ntuple
from ember.amp._python_ops import autocast_op

_triple = _ntuple(3, "_triple")


def _tuple(value, n, name):
    t = _ntuple(n, name)(value)
    if len(t) != n:
        raise RuntimeError(f"{name} must be an int or a tuple of {n} ints, got {value}")
    return tuple(int(v) for v in t)


def _spatial_input(op, input, nd):
    """The batched form of ``input`` ((N, C, *spatial)) and whether it came unbatched."""
    if not isinstance(input, ember.Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{op}: expected a {nd + 1}D (unbatched) or {nd + 2}D (batched) input, but got an input "
                           f"of size {list(input.shape)}")
    unbatched = input.dim() == nd + 1
    return (input.unsqueeze(0) if unbatched else input), unbatched


# ---- convolution ------------------------------------------------------------------------


@autocast_op("conv3d")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution: the depth taps become extra input channels of one 2-d
    convolution over (batch x output depth) images."""
    stride, dilation = _tuple(stride, 3, "stride"), _tuple(dilation, 3, "dilation")
    x, unbatched = _spatial_input("conv3d", input, 3)
    if weight.dim() != 5:
        raise RuntimeError(f"conv3d: expected a 5D weight (out_channels, in_channels/groups, kD, kH, kW), but got "
                           f"size {list(weight.shape)}")
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            x = F.pad(x, F._same_padding(weight, dilation, 3))
            padding = 0
        else:
            raise RuntimeError(f"Invalid padding string '{padding}'")
    pad_d, pad_h, pad_w = _tuple(padding, 3, "padding")
    n, channels = x.shape[0], x.shape[1]
    out_channels, group_channels, kd, kh, kw = weight.shape
    if groups <= 0 or channels != group_channels * groups:
        raise RuntimeError(f"conv3d: expected input with {group_channels * groups} channels (weight {list(weight.shape)}"
                           f", groups={groups}), but got an input of size {list(x.shape)}")
    if pad_d:
        x = F.pad(x, (0, 0, 0, 0, pad_d, pad_d))
    depth = x.shape[2]
    out_depth = (depth - dilation[0] * (kd - 1) - 1) // stride[0] + 1
    if out_depth <= 0:
        raise RuntimeError(f"conv3d: the padded input depth {depth} is smaller than the dilated kernel depth "
                           f"{dilation[0] * (kd - 1) + 1}")
    span = (out_depth - 1) * stride[0] + 1
    taps = [x.narrow(2, k * dilation[0], span)[:, :, ::stride[0]] for k in range(kd)]  # each (N, C, Do, H, W)
    h, w = x.shape[3], x.shape[4]
    # Channels ordered (group, tap, channel) so that each group sees its own taps.
    stacked = ember.stack(taps, 2).reshape([n, groups, group_channels, kd, out_depth, h, w])
    stacked = stacked.permute(0, 4, 1, 3, 2, 5, 6).reshape([n * out_depth, groups * kd * group_channels, h, w])
    flat_weight = weight.permute(0, 2, 1, 3, 4).reshape([out_channels, kd * group_channels, kh, kw])
    out = ember.conv2d(stacked, flat_weight, bias, list(stride[1:]), [pad_h, pad_w], list(dilation[1:]), groups)
    out = out.reshape([n, out_depth, out_channels, out.shape[2], out.shape[3]]).permute(0, 2, 1, 3, 4).contiguous()
    return out.squeeze(0) if unbatched else out


def _zero_insert(x, dim, stride):
    """stride-1 zeros between neighbours along ``dim`` (a transposed convolution's input dilation)."""
    if stride == 1:
        return x
    n = x.shape[dim]
    zeros_shape = list(x.shape)
    zeros_shape.insert(dim + 1, stride - 1)
    z = ember.zeros(zeros_shape, dtype=x.dtype, device=x.device)
    y = ember.cat([x.unsqueeze(dim + 1), z], dim + 1)
    new_shape = list(x.shape)
    new_shape[dim] = n * stride
    return y.reshape(new_shape).narrow(dim, 0, (n - 1) * stride + 1)


_CONV = {1: lambda *a: F.conv1d(*a), 2: lambda *a: F.conv2d(*a), 3: lambda *a: conv3d(*a)}


def conv_transpose(nd, input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of an nd-d convolution: zero-insert the input by stride, pad
    it by d*(k-1)-p (plus output_padding on the right) and convolve with the
    spatially flipped kernel, in/out channels swapped per group."""
    op = f"conv_transpose{nd}d"
    stride, padding = _tuple(stride, nd, "stride"), _tuple(padding, nd, "padding")
    output_padding, dilation = _tuple(output_padding, nd, "output_padding"), _tuple(dilation, nd, "dilation")
    x, unbatched = _spatial_input(op, input, nd)
    if weight.dim() != nd + 2:
        raise RuntimeError(f"{op}: expected a {nd + 2}D weight, but got size {list(weight.shape)}")
    in_channels, group_out, *kernel = weight.shape
    if groups <= 0 or in_channels % groups or x.shape[1] != in_channels:
        raise RuntimeError(f"{op}: expected input with {in_channels} channels (weight {list(weight.shape)}, "
                           f"groups={groups}), but got an input of size {list(x.shape)}")
    for i in range(nd):
        if output_padding[i] >= max(stride[i], dilation[i]):
            raise RuntimeError(f"{op}: output padding must be smaller than either stride or dilation, but got "
                               f"output_padding={output_padding[i]}, stride={stride[i]}, dilation={dilation[i]}")
    # (Cin, Cout/g, *k) -> (Cout, Cin/g, *k), flipped in every spatial dim.
    w = weight.reshape([groups, in_channels // groups, group_out, *kernel]).transpose(1, 2)
    w = w.reshape([groups * group_out, in_channels // groups, *kernel]).flip(list(range(2, nd + 2)))
    for i in range(nd):
        x = _zero_insert(x, 2 + i, stride[i])
    pads = []
    for i in reversed(range(nd)):
        p = dilation[i] * (kernel[i] - 1) - padding[i]
        pads += [p, p + output_padding[i]]
    out = _CONV[nd](F.pad(x, pads), w, bias, 1, 0, dilation, groups)
    return out.squeeze(0) if unbatched else out


@autocast_op("conv_transpose1d")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


@autocast_op("conv_transpose3d.input")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return conv_transpose(3, input, weight, bias, stride, padding, output_padding, groups, dilation)


# ---- pooling over windows -------------------------------------------------------------------


def _pool_geometry(op, x, nd, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _tuple(kernel_size, nd, "kernel_size")
    step = kernel if stride is None or (isinstance(stride, (list, tuple)) and not stride) else \
        _tuple(stride, nd, "stride")
    pad, dil = _tuple(padding, nd, "padding"), _tuple(dilation, nd, "dilation")
    if min(kernel) <= 0 or min(step) <= 0 or min(dil) <= 0 or min(pad) < 0:
        raise RuntimeError(f"{op}: kernel_size, stride and dilation must be positive and padding non-negative, got "
                           f"kernel_size={kernel}, stride={step}, padding={pad}, dilation={dil}")
    if any(p * 2 > k for p, k in zip(pad, kernel)):
        raise RuntimeError(f"{op}: pad should be at most half of effective kernel size, but got pad={pad}, "
                           f"kernel_size={kernel}")
    sizes = x.shape[2:]
    out = []
    for size, k, s, p, d in zip(sizes, kernel, step, pad, dil):
        span = size + 2 * p - d * (k - 1) - 1
        o = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (o - 1) * s >= size + p:  # the last window must start inside the input or left padding
            o -= 1
        if o <= 0:
            raise RuntimeError(f"{op}: output size is too small (input {list(sizes)}, kernel {kernel}, stride "
                               f"{step}, padding {pad}, dilation {dil})")
        out.append(o)
    return kernel, step, pad, dil, out


def _windows(x, kernel, step, pad, dil, out, fill):
    """(N, C, *out, *kernel): every pooling window of x padded with ``fill``."""
    nd = len(kernel)
    pads = []
    for i in reversed(range(nd)):
        needed = (out[i] - 1) * step[i] + dil[i] * (kernel[i] - 1) + 1
        pads += [pad[i], max(0, needed - x.shape[2 + i] - pad[i])]
    windows = F.pad(x, pads, value=fill) if any(pads) else x
    for i in range(nd):
        windows = windows.unfold(2 + i, dil[i] * (kernel[i] - 1) + 1, step[i])
    if any(d != 1 for d in dil):
        windows = windows[(Ellipsis,) + tuple(slice(None, None, d) for d in dil)]
    return windows


def _max_pool(nd, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    op = f"max_pool{nd}d"
    x, unbatched = _spatial_input(op, input, nd)
    kernel, step, pad, dil, out = _pool_geometry(op, x, nd, kernel_size, stride, padding, dilation, ceil_mode)
    windows = _windows(x, kernel, step, pad, dil, out, -math.inf)
    flat = windows.reshape(list(windows.shape[:2 + nd]) + [-1])
    place = flat.argmax(-1, keepdim=True)  # the first largest (NaN counts as largest), as torch picks
    values = flat.gather(-1, place).squeeze(-1)
    if not return_indices:
        return values.squeeze(0) if unbatched else values
    # The flat index into the input's spatial dims of each chosen element.
    index = ember.zeros(values.shape, dtype=ember.int64, device=x.device)
    remaining = place.squeeze(-1)
    for i in reversed(range(nd)):
        tap = remaining % kernel[i]
        remaining = remaining // kernel[i]
        shape = [1] * (2 + nd)
        shape[2 + i] = out[i]
        start = (ember.arange(out[i], device=x.device) * step[i] - pad[i]).reshape(shape)
        coordinate = start + tap * dil[i]
        stride_in_input = math.prod(x.shape[3 + i:])
        index = index + coordinate * stride_in_input
    if unbatched:
        return values.squeeze(0), index.squeeze(0)
    return values, index


def _window_counts(size, k, s, p, d, o, include_pad):
    """How many taps of each window along one dim fall inside the input (or its padding)."""
    lo, hi = (-p, size + p) if include_pad else (0, size)
    return [sum(1 for j in range(k) if lo <= i * s - p + j * d < hi) for i in range(o)]


def _avg_pool(nd, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
              divisor_override=None):
    op = f"avg_pool{nd}d"
    x, unbatched = _spatial_input(op, input, nd)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{op}: divisor must be not zero")
    kernel, step, pad, dil, out = _pool_geometry(op, x, nd, kernel_size, stride, padding, 1, ceil_mode)
    windows = _windows(x, kernel, step, pad, dil, out, 0.0)
    total = windows.sum(list(range(2 + nd, 2 + 2 * nd)))
    if divisor_override is not None:
        result = total / divisor_override
    else:
        divisor = None
        for i in range(nd):
            counts = _window_counts(x.shape[2 + i], kernel[i], step[i], pad[i], 1, out[i], count_include_pad)
            shape = [1] * nd
            shape[i] = out[i]
            c = ember.tensor(counts, dtype=x.dtype, device=x.device).reshape(shape)
            divisor = c if divisor is None else divisor * c
        result = total / divisor
    return result.squeeze(0) if unbatched else result


@autocast_op("max_pool3d")
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@autocast_op("avg_pool3d")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _lp_pool(nd, input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x^p over each window)^(1/p), windows without padding."""
    kernel = _tuple(kernel_size, nd, "kernel_size")
    powered = input.pow(norm_type)
    if nd == 3:
        averaged = _avg_pool(3, powered, kernel, stride, 0, ceil_mode)
    elif nd == 2:
        averaged = F.avg_pool2d(powered, kernel, stride, 0, ceil_mode)
    else:
        averaged = F.avg_pool1d(powered, kernel[0], stride, 0, ceil_mode)
    # The window average of x^p times the window size is the sum; sign * relu(abs)
    # keeps a negative sum (odd p) from turning into NaN, as torch does.
    summed = averaged.sign() * F.relu(averaged.abs()) * math.prod(kernel)
    return summed.pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def max_unpool(nd, input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Each value put back at the flat spatial index max_pool returned for it; zeros elsewhere."""
    op = f"max_unpool{nd}d"
    x, unbatched = _spatial_input(op, input, nd)
    idx = indices.unsqueeze(0) if unbatched else indices
    if tuple(idx.shape) != tuple(x.shape):
        raise RuntimeError(f"{op}: Expected shape of indices to be same as that of the input tensor "
                           f"({list(x.shape)}) but got indices tensor with shape: {list(idx.shape)}")
    if idx.dtype != ember.int64:
        raise RuntimeError(f"{op}: expected indices to have dtype int64, but got {idx.dtype}")
    kernel = _tuple(kernel_size, nd, "kernel_size")
    step = kernel if stride is None else _tuple(stride, nd, "stride")
    pad = _tuple(padding, nd, "padding")
    default = [(x.shape[2 + i] - 1) * step[i] - 2 * pad[i] + kernel[i] for i in range(nd)]
    if output_size is None:
        size = default
    else:
        size = [int(s) for s in list(output_size)[-nd:]]
        if len(size) != nd:
            raise ValueError(f"{op}: output_size must have {nd} or {nd + 2} elements, got {list(output_size)}")
        for i in range(nd):
            lo, hi = default[i] - step[i], default[i] + step[i]
            if not lo < size[i] < hi:
                raise ValueError(f"{op}: invalid output_size {list(output_size)} (dim {i} must be between {lo + 1} "
                                 f"and {hi - 1})")
    numel = math.prod(size)
    flat_idx = idx.reshape([x.shape[0], x.shape[1], -1])
    if flat_idx.numel() and (int(flat_idx.min()) < 0 or int(flat_idx.max()) >= numel):
        raise RuntimeError(f"{op}: Found an invalid max index: {int(flat_idx.max())} (output volumes are of size "
                           f"{'x'.join(str(s) for s in size)})")
    out = ember.zeros([x.shape[0], x.shape[1], numel], dtype=x.dtype, device=x.device)
    out = out.scatter(2, flat_idx, x.reshape([x.shape[0], x.shape[1], -1]))
    out = out.reshape([x.shape[0], x.shape[1], *size])
    return out.squeeze(0) if unbatched else out


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


@autocast_op("max_unpool2d")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


@autocast_op("max_unpool3d")
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# ---- adaptive 3-d pooling -----------------------------------------------------------------


def _adaptive_pool3d(op, input, output_size, reduce):
    x, unbatched = _spatial_input(op, input, 3)
    sizes = list(x.shape[2:])
    requested = _triple(output_size)
    out = [s if o is None else int(o) for o, s in zip(requested, sizes)]
    if min(out) < 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 but received {out}")

    def bounds(size, o, i):
        start = (i * size) // o
        return start, -((-(i + 1) * size) // o) - start

    planes = []
    for a in range(out[0]):
        d0, dl = bounds(sizes[0], out[0], a)
        rows = []
        for b in range(out[1]):
            h0, hl = bounds(sizes[1], out[1], b)
            cells = [reduce(x.narrow(2, d0, dl).narrow(3, h0, hl).narrow(4, *bounds(sizes[2], out[2], c)))
                     for c in range(out[2])]
            rows.append(ember.stack(cells, -1))
        planes.append(ember.stack(rows, -2))
    if not planes or not out[1] or not out[2]:
        result = ember.empty([x.shape[0], x.shape[1], *out], dtype=x.dtype, device=x.device)
    else:
        result = ember.stack(planes, -3)
    return result.squeeze(0) if unbatched else result


@autocast_op("adaptive_avg_pool3d")
def adaptive_avg_pool3d(input, output_size):
    return _adaptive_pool3d("adaptive_avg_pool3d", input, output_size, lambda t: t.mean([2, 3, 4]))


@autocast_op("adaptive_max_pool3d")
def adaptive_max_pool3d(input, output_size, return_indices=False):
    if return_indices:
        return adaptive_max_with_indices("adaptive_max_pool3d", input, 3, output_size)
    # max(dim) gives one element the gradient, as torch; amax would share it among ties.
    return _adaptive_pool3d("adaptive_max_pool3d", input, output_size, lambda t: t.flatten(2).max(-1).values)


# ---- fractional max pooling -------------------------------------------------------------


def _fractional_starts(sample, size, out, kernel, dtype):
    """torch's pseudo-random window starts along one dim for per-plane samples u in [0, 1):
    floor((i + u) * alpha) - floor(u * alpha), alpha = (size - kernel) / (out - 1), the last at size - kernel."""
    starts = [ember.full_like(sample, size - kernel, dtype=ember.int64)] if out > 0 else []
    if out > 1:
        alpha = ember.tensor(size - kernel, dtype=dtype) / ember.tensor(out - 1, dtype=dtype)
        steps = ember.arange(out - 1, dtype=dtype, device=sample.device)
        first = ((steps + sample.unsqueeze(-1)) * alpha).to(ember.int64) - (sample * alpha).to(ember.int64).unsqueeze(-1)
        return ember.cat([first, starts[0].unsqueeze(-1)], -1)
    return starts[0].unsqueeze(-1) if starts else ember.zeros(list(sample.shape) + [0], dtype=ember.int64)


def _fractional_max_pool(nd, input, kernel_size, output_size, output_ratio, return_indices, _random_samples):
    op = f"fractional_max_pool{nd}d"
    x, unbatched = _spatial_input(op, input, nd)
    kernel = _tuple(kernel_size, nd, "kernel_size")
    sizes = list(x.shape[2:])
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
        ratio = _ntuple(nd)(output_ratio)
        output_size = [int(s * r) for s, r in zip(sizes, ratio)]
    out = list(_tuple(output_size, nd, "output_size"))
    for s, k, o in zip(sizes, kernel, out):
        if o + k - 1 > s:
            raise RuntimeError(f"{op}: out (={o}) + kernel_size (={k}) - 1 must be at most the input size (={s})")
    n, c = x.shape[0], x.shape[1]
    if _random_samples is None:
        samples = ember.rand(n, c, nd, dtype=x.dtype, device=x.device)
    else:
        samples = _random_samples if not unbatched or _random_samples.dim() == 3 else _random_samples.unsqueeze(0)
        if tuple(samples.shape) != (n, c, nd):
            raise RuntimeError(f"{op}: expected _random_samples of shape ({n}, {c}, {nd}), got "
                               f"{list(samples.shape)}")
    # torch reads sample 0 for the last dim in 2-d (width, then height) and for the first in 3-d.
    order = [1, 0] if nd == 2 else [0, 1, 2]
    flat = None
    for d in range(nd):
        starts = _fractional_starts(samples[:, :, order[d]], sizes[d], out[d], kernel[d], x.dtype)  # (N, C, out)
        positions = starts.unsqueeze(-1) + ember.arange(kernel[d], device=x.device)  # (N, C, out, k)
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + d], shape[2 + nd + d] = out[d], kernel[d]
        term = positions.reshape(shape) * math.prod(sizes[d + 1:])
        flat = term if flat is None else flat + term
    flat = flat.expand([n, c] + out + list(kernel)).reshape([n, c, -1])
    windows = x.reshape([n, c, -1]).gather(2, flat).reshape([n, c] + out + [math.prod(kernel)])
    place = windows.argmax(-1, keepdim=True)
    values = windows.gather(-1, place).squeeze(-1)
    if not return_indices:
        return values.squeeze(0) if unbatched else values
    index = flat.reshape([n, c] + out + [math.prod(kernel)]).gather(-1, place).squeeze(-1)
    return (values.squeeze(0), index.squeeze(0)) if unbatched else (values, index)


@autocast_op("fractional_max_pool2d")
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


@autocast_op("fractional_max_pool3d")
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def adaptive_max_with_indices(op, input, nd, output_size):
    """Adaptive max pooling over nd dims with the flat spatial index of each maximum (the first, as torch)."""
    x, unbatched = _spatial_input(op, input, nd)
    n, c, sizes = x.shape[0], x.shape[1], list(x.shape[2:])
    out = [s if o is None else int(o) for o, s in zip(_ntuple(nd)(output_size), sizes)]
    if min(out) <= 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than 0 but received {out}")

    def bounds(size, o, i):
        start = (i * size) // o
        return start, -((-(i + 1) * size) // o) - start

    values, indices = [], []
    for cell in itertools.product(*(range(o) for o in out)):
        starts, lengths = zip(*(bounds(sizes[d], out[d], cell[d]) for d in range(nd)))
        region = x
        for d in range(nd):
            region = region.narrow(2 + d, starts[d], lengths[d])
        best, place = region.flatten(2).max(-1)
        flat, rest = None, place
        coordinates = []
        for d in reversed(range(nd)):
            coordinates.append(rest % lengths[d] + starts[d])
            rest = rest // lengths[d]
        for d, coordinate in enumerate(reversed(coordinates)):
            flat = coordinate if flat is None else flat * sizes[d] + coordinate
        values.append(best)
        indices.append(flat)
    value = ember.stack(values, -1).reshape([n, c, *out])
    index = ember.stack(indices, -1).reshape([n, c, *out])
    return (value.squeeze(0), index.squeeze(0)) if unbatched else (value, index)
