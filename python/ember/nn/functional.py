"""ember.nn.functional: the stateless layer functions (mirrors ``torch.nn.functional``).

Most functions forward to the native Ember operators; the few Ember lacks
(non-constant pad modes, group_norm, the binary cross-entropies, scaled_dot_product_attention,
adaptive pooling with non-divisible sizes, ...) are composed from
differentiable operators so that autograd works through them unchanged.
"""

import collections.abc
import math
import numbers
import warnings

import ember
from ember import _C
from ember.amp._python_ops import autocast_op

Tensor = _C.Tensor

__all__ = [
    "linear", "bilinear", "conv1d", "conv2d", "conv_transpose2d", "max_pool1d", "max_pool2d", "avg_pool1d",
    "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "relu", "relu_", "relu6",
    "leaky_relu", "elu", "selu", "gelu", "silu", "mish", "hardtanh", "hardsigmoid", "hardswish", "softplus",
    "logsigmoid", "softsign", "tanhshrink", "tanh", "sigmoid", "glu", "prelu", "softmax", "softmin", "log_softmax",
    "dropout", "dropout1d", "dropout2d", "layer_norm", "group_norm", "rms_norm", "batch_norm", "embedding",
    "one_hot", "pad", "normalize", "interpolate", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "cross_entropy", "linear_cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
    "scaled_dot_product_attention", "multi_head_attention_forward", "celu", "threshold", "threshold_", "hardshrink",
    "softshrink", "rrelu", "rrelu_", "pixel_shuffle", "pixel_unshuffle", "dropout3d", "instance_norm",
    "local_response_norm", "pairwise_distance", "cosine_similarity", "margin_ranking_loss", "hinge_embedding_loss",
    "soft_margin_loss", "multilabel_soft_margin_loss", "cosine_embedding_loss", "poisson_nll_loss",
    "gaussian_nll_loss", "triplet_margin_loss", "multi_margin_loss", "alpha_dropout", "feature_alpha_dropout",
    "channel_shuffle", "native_channel_shuffle", "triplet_margin_with_distance_loss", "multilabel_margin_loss",
    "unfold", "fold", "conv3d", "conv_transpose1d", "conv_transpose3d", "max_pool3d", "avg_pool3d", "lp_pool1d",
    "lp_pool2d", "lp_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d",
    "adaptive_max_pool3d", "embedding_bag", "hardtanh_", "leaky_relu_", "elu_", "selu_", "celu_",
    "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices", "upsample", "upsample_nearest",
    "upsample_bilinear", "pdist", "gumbel_softmax", "affine_grid", "grid_sample", "ctc_loss",
    "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d_with_indices", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
]


# ---- argument helpers ------------------------------------------------------------


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple([x] * n)

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")


def _reverse_repeat_tuple(t, n):
    """(1, 2) -> (2, 2, 1, 1): the F.pad order for per-dimension paddings."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    if isinstance(out_size, (int, numbers.Integral)):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _legacy_get_string(size_average, reduce, emit_warning=True):
    warning = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(warning.format(ret), stacklevel=3)
    return ret


def _resolve_reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _legacy_get_string(size_average, reduce)
    return reduction


def _apply_reduction(loss, reduction):
    mode = _reduction_enum(reduction)
    return loss if mode == _REDUCTIONS["none"] else loss.mean() if mode == _REDUCTIONS["mean"] else loss.sum()


# ---- linear and convolution ---------------------------------------------------------


def linear(input, weight, bias=None):
    return ember.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    """y = x1^T A x2 + b, with ``weight`` of shape (out, in1, in2)."""
    return ember.bilinear(input1, input2, weight, bias)


def _same_padding(weight, dilation, ndim):
    """torch's padding='same': total d*(k-1) per dim, the odd extra on the right."""
    pads = []
    for i in reversed(range(ndim)):
        k = weight.shape[2 + i]
        total = dilation[i] * (k - 1)
        left = total // 2
        pads += [left, total - left]
    return pads


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    stride, dilation = _pair(stride), _pair(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = _same_padding(weight, dilation, 2)
            if pads[0] == pads[1] and pads[2] == pads[3]:
                padding = (pads[2], pads[0])
            else:
                input = pad(input, pads)
                padding = (0, 0)
        else:
            raise RuntimeError(f"Invalid padding string '{padding}'")
    return ember.conv2d(input, weight, bias, list(stride), list(_pair(padding)), list(dilation), groups)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    (stride,), (dilation,) = _single(stride), _single(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            if stride != 1:
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            total = dilation * (weight.shape[-1] - 1)
            left = total // 2
            if total - left != left:
                input = pad(input, [left, total - left])
                padding = 0
            else:
                padding = left
        else:
            raise RuntimeError(f"Invalid padding string '{padding}'")
    (padding,) = _single(padding)
    return _C.conv1d(input, weight, bias, [stride], [padding], [dilation], groups)


# ---- pooling ------------------------------------------------------------------------------


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    stride = [] if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else list(_pair(stride))
    args = (input, list(_pair(kernel_size)), stride, list(_pair(padding)), list(_pair(dilation)), ceil_mode)
    if return_indices:
        return ember.max_pool2d_with_indices(*args)
    if input.requires_grad and ember.is_grad_enabled():
        # The backward needs where the maxima were: found once here, not again in the backward.
        return ember.max_pool2d_with_indices(*args)[0]
    return ember.max_pool2d(*args)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    (k,) = _single(kernel_size)
    s = k if stride is None else _single(stride)[0]
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _single(padding)[0]), (1, _single(dilation)[0]),
                     ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    stride = [] if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else list(_pair(stride))
    return ember.avg_pool2d(input, list(_pair(kernel_size)), stride, list(_pair(padding)), ceil_mode,
                            count_include_pad, divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    (k,) = _single(kernel_size)
    s = k if stride is None else _single(stride)[0]
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _single(padding)[0]), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def _adaptive_bounds(in_size, out_size, i):
    start = (i * in_size) // out_size
    end = -((-(i + 1) * in_size) // out_size)  # ceil
    return start, end - start


def _adaptive_pool2d(op, input, output_size, reduce_fn, pool_fn):
    if input.dim() not in (3, 4):
        raise ValueError(f"{op}: expected a 3D or 4D input, got {input.dim()}D")
    h, w = input.shape[-2], input.shape[-1]
    oh, ow = _pair(_list_with_default(output_size, list(input.shape)))
    oh = h if oh is None else oh
    ow = w if ow is None else ow
    if oh < 0 or ow < 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{oh}, {ow}}}")
    if oh == 0 or ow == 0:
        return ember.empty(*input.shape[:-2], oh, ow, dtype=input.dtype, device=input.device)
    if oh == 1 and ow == 1:
        return reduce_fn(input, [-2, -1])
    if h % oh == 0 and w % ow == 0:
        return pool_fn(input, (h // oh, w // ow))
    rows = []
    for i in range(oh):
        hs, hl = _adaptive_bounds(h, oh, i)
        band = input.narrow(-2, hs, hl)
        cols = []
        for j in range(ow):
            ws, wl = _adaptive_bounds(w, ow, j)
            cols.append(reduce_fn(band.narrow(-1, ws, wl), [-2, -1]))
        rows.append(ember.cat(cols, -1))
    return ember.cat(rows, -2)


def adaptive_avg_pool2d(input, output_size):
    if input.dim() not in (3, 4):
        raise ValueError(f"adaptive_avg_pool2d: expected a 3D or 4D input, got {input.dim()}D")
    oh, ow = _pair(_list_with_default(output_size, list(input.shape)))
    return ember.adaptive_avg_pool2d(input, [input.shape[-2] if oh is None else oh, input.shape[-1] if ow is None else ow])


def adaptive_max_pool2d(input, output_size, return_indices=False):
    if return_indices:
        return _adaptive_max_with_indices("adaptive_max_pool2d", input, 2, output_size)
    return _adaptive_pool2d("adaptive_max_pool2d", input, output_size, lambda t, d: t.amax(d, keepdim=True),
                            lambda t, k: max_pool2d(t, k))


def adaptive_avg_pool1d(input, output_size):
    (o,) = _single(output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    if return_indices:
        return _adaptive_max_with_indices("adaptive_max_pool1d", input, 1, output_size)
    (o,) = _single(output_size)
    return adaptive_max_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)


def _fold_geometry(name, kernel_size, dilation, padding, stride):
    kernel, dil, pad_, step = (_pair(v) for v in (kernel_size, dilation, padding, stride))
    if min(kernel) <= 0 or min(dil) <= 0 or min(step) <= 0 or min(pad_) < 0:
        raise RuntimeError(f"{name}: expected kernel_size, dilation and stride to be positive and padding "
                           f"non-negative, got kernel_size={kernel}, dilation={dil}, padding={pad_}, stride={step}")
    return kernel, dil, pad_, step


def _blocks(name, size, kernel, dil, pad_, step):
    blocks = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, d, p, st in zip(size, kernel, dil, pad_, step)]
    if min(blocks) <= 0:
        raise RuntimeError(f"{name}: the padded input of spatial size {list(size)} is smaller than the dilated "
                           f"kernel {[d * (k - 1) + 1 for k, d in zip(kernel, dil)]}: no blocks")
    return blocks


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a (N, C, H, W) input as columns: (N, C * kh * kw, number of blocks)."""
    kernel, dil, pad_, step = _fold_geometry("unfold", kernel_size, dilation, padding, stride)
    if input.dim() not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c = x.shape[0], x.shape[1]
    blocks = _blocks("unfold", x.shape[2:], kernel, dil, pad_, step)
    x = pad(x, (pad_[1], pad_[1], pad_[0], pad_[0]))
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dil)]
    patches = x.unfold(2, spans[0], step[0]).unfold(3, spans[1], step[1])  # N, C, bh, bw, span_h, span_w
    patches = patches[..., ::dil[0], ::dil[1]]
    cols = patches.permute(0, 1, 4, 5, 2, 3).reshape([n, c * kernel[0] * kernel[1], blocks[0] * blocks[1]])
    return cols if input.dim() == 4 else cols.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold: columns (N, C * kh * kw, L) summed back into a (N, C, H, W) image."""
    kernel, dil, pad_, step = _fold_geometry("fold", kernel_size, dilation, padding, stride)
    size = _pair(output_size)
    if input.dim() not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.dim()}D)")
    x = input if input.dim() == 3 else input.unsqueeze(0)
    n, ck, length = x.shape
    per_channel = kernel[0] * kernel[1]
    if ck % per_channel != 0:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={ck} and kernel_size={kernel}")
    blocks = _blocks("fold", size, kernel, dil, pad_, step)
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation={dil}, padding={pad_}, "
                           f"stride={step}, expected size of input's dimension 2 to match the calculated number of "
                           f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={length}.")
    c = ck // per_channel
    hp, wp = size[0] + 2 * pad_[0], size[1] + 2 * pad_[1]
    # Flat position in the padded image of kernel offset (i, j) at block (by, bx).
    rows = (ember.arange(kernel[0]) * dil[0]).reshape([-1, 1, 1, 1]) + \
        (ember.arange(blocks[0]) * step[0]).reshape([1, 1, -1, 1])
    cols = (ember.arange(kernel[1]) * dil[1]).reshape([1, -1, 1, 1]) + \
        (ember.arange(blocks[1]) * step[1]).reshape([1, 1, 1, -1])
    positions = (rows * wp + cols).reshape([1, 1, -1]).expand([n, c, per_channel * length]).to(x.device)
    image = ember.zeros([n, c, hp * wp], dtype=x.dtype, device=x.device)
    image = image.scatter_add(2, positions, x.reshape([n, c, per_channel * length]))
    image = image.reshape([n, c, hp, wp])[:, :, pad_[0]:pad_[0] + size[0], pad_[1]:pad_[1] + size[1]]
    return image if input.dim() == 3 else image.squeeze(0)


# ---- activations ----------------------------------------------------------------------


def relu(input, inplace=False):
    return ember.relu_(input) if inplace else ember.relu(input)


def relu_(input):
    return ember.relu_(input)


def _maybe_inplace(input, function, inplace):
    """function(input), written into input where inplace. Under autograd the
    function reads a copy, so whatever its graph keeps for backward is not
    the tensor about to change (torch's in-place activations keep a clone
    or their result the same way)."""
    if not inplace:
        return function(input)
    source = input.clone() if input.requires_grad and ember.is_grad_enabled() else input
    return input.copy_(function(source))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return (ember.hardtanh_ if inplace else ember.hardtanh)(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return (ember.leaky_relu_ if inplace else ember.leaky_relu)(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input, alpha=1.0, inplace=False):
    return (ember.elu_ if inplace else ember.elu)(input, alpha)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    return (ember.selu_ if inplace else ember.selu)(input)


def selu_(input):
    return selu(input, inplace=True)


def gelu(input, approximate="none"):
    return ember.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return ember.silu_(input) if inplace else ember.silu(input)


def softplus(input, beta=1.0, threshold=20.0):
    return ember.softplus(input, beta, threshold)


def mish(input, inplace=False):
    return _maybe_inplace(input, lambda x: x * ember.tanh(softplus(x)), inplace)


def hardsigmoid(input, inplace=False):
    return (ember.hardsigmoid_ if inplace else ember.hardsigmoid)(input)


def hardswish(input, inplace=False):
    return (ember.hardswish_ if inplace else ember.hardswish)(input)


def logsigmoid(input):
    return input.clamp(max=0.0) - ember.log1p(ember.exp(-input.abs()))


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - ember.tanh(input)


def tanh(input):
    return ember.tanh(input)


def sigmoid(input):
    return ember.sigmoid(input)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    a, b = input.chunk(2, dim)
    return a * ember.sigmoid(b)


@autocast_op("prelu")
def prelu(input, weight):
    if weight.numel() != 1 and input.dim() >= 2:
        shape = [1] * input.dim()
        shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return ember.where(input > 0, input, input * weight)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
                  "argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return ember.softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return ember.softmax(-input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return ember.log_softmax(input, dim, dtype)


def celu(input, alpha=1.0, inplace=False):
    return (ember.celu_ if inplace else ember.celu)(input, alpha)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def threshold(input, threshold, value, inplace=False):
    """input where it exceeds threshold, value elsewhere."""
    return (ember.threshold_ if inplace else ember.threshold)(input, threshold, value)


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, inplace=True)


def hardshrink(input, lambd=0.5):
    return input * (input.abs() > lambd).to(input.dtype)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return input - input.clamp(-lambd, lambd)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training, and is their
    mean otherwise."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    slopes = ember.empty_like(input).uniform_(lower, upper)
    return _maybe_inplace(input, lambda x: ember.where(x >= 0, x, x * slopes), inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def channel_shuffle(input, groups):
    """(N, C, *) with its channels regrouped: channel g * (C / groups) + k moves to k * groups + g."""
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = input.shape[0], input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = list(input.shape[2:])
    return input.reshape([n, groups, c // groups] + rest).transpose(1, 2).reshape([n, c] + rest)


native_channel_shuffle = channel_shuffle


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    *lead, c, h, w = input.shape
    if r <= 0 or c % (r * r) != 0:
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(lead)
    x = input.reshape(lead + [c // (r * r), r, r, h, w])
    x = x.permute(list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return x.reshape(lead + [c // (r * r), h * r, w * r])


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    *lead, c, h, w = input.shape
    if r <= 0 or h % r != 0 or w % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but "
                           f"got {h} and {w} for a factor of {r}")
    n = len(lead)
    x = input.reshape(lead + [c, h // r, r, w // r, r])
    x = x.permute(list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return x.reshape(lead + [c * r * r, h // r, w // r])


# ---- dropout ----------------------------------------------------------------------------


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _maybe_inplace(input, lambda x: ember.dropout(x, p, training), inplace)


def _channel_dropout(input, p, training, inplace, batched_dim):
    _check_p(p)
    if not training or p == 0.0:
        return input
    batched = input.dim() == batched_dim
    shape = list(input.shape[:2] if batched else input.shape[:1]) + [1] * (input.dim() - (2 if batched else 1))
    if p == 1.0:
        mask = ember.zeros(shape, dtype=input.dtype, device=input.device)
    else:
        keep = ember.rand(shape, dtype=input.dtype, device=input.device) >= p
        mask = keep.to(input.dtype) / (1.0 - p)
    return _maybe_inplace(input, lambda x: x * mask, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    if input.dim() not in (4, 5):
        raise RuntimeError(f"dropout3d: Expected 4D or 5D input, but received a {input.dim()}D input")
    return _channel_dropout(input, p, training, inplace, batched_dim=5)


def _alpha_dropout(input, p, training, inplace, feature):
    # Dropped values go to SELU's negative saturation and an affine map keeps mean and variance (torch's rule).
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return _maybe_inplace(input, lambda x: x * ember.zeros([], dtype=x.dtype, device=x.device), inplace)
    if feature:
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    else:
        shape = list(input.shape)
    keep = (ember.rand(shape, dtype=input.dtype, device=input.device) >= p).to(input.dtype)
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    b = (keep - 1) * (alpha * a) + alpha * a * p
    return _maybe_inplace(input, lambda x: x * (keep * a) + b, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, feature=True)


def dropout1d(input, p=0.5, training=True, inplace=False):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout(input, p, training, inplace, 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout(input, p, training, inplace, 4)


# ---- normalization ------------------------------------------------------------------


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return ember.layer_norm(input, list(normalized_shape), weight, bias, eps)


@autocast_op("rms_norm")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    if eps is None:
        eps = ember.finfo(input.dtype).eps
    dims = list(range(-len(normalized_shape), 0))
    out = input * ember.rsqrt((input * input).mean(dims, keepdim=True) + eps)
    if weight is not None:
        out = out * weight
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return ember.group_norm(input, num_groups, weight, bias, eps)


def _verify_batch_size(size):
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        _verify_batch_size(input.size())
    return ember.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = ember.norm(input, p, [dim], True).clamp(min=eps).expand_as(input)
    result = input / denom
    if out is not None:
        out.copy_(result)
        return out
    return result


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Normalizes each (sample, channel) over its spatial positions: batch norm over a batch of one whose
    channels are all the (sample, channel) pairs."""
    if input.dim() < 3:
        raise ValueError(f"instance_norm: expected an input of at least 3 dimensions (N, C, ...), got {input.dim()}")
    n, c = input.shape[0], input.shape[1]
    spatial = 1
    for size in input.shape[2:]:
        spatial *= size
    if use_input_stats and spatial <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
    repeat = lambda t: None if t is None else t.repeat([n])  # noqa: E731
    mean, var = repeat(running_mean), repeat(running_var)
    out = batch_norm(input.reshape([1, n * c] + list(input.shape[2:])), mean, var, repeat(weight), repeat(bias),
                     training=use_input_stats or running_mean is None, momentum=momentum, eps=eps)
    if use_input_stats and running_mean is not None:
        with ember.no_grad():
            running_mean.copy_(mean.reshape([n, c]).mean(0))
            running_var.copy_(var.reshape([n, c]).mean(0))
    return out.reshape(input.shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of the squares over `size` neighbouring channels) ** beta."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    if input.numel() == 0:
        return input
    squares = (input * input).movedim(1, -1)
    padded = pad(squares, (size // 2, (size - 1) // 2))
    window_mean = padded.unfold(-1, size, 1).mean(-1).movedim(-1, 1)
    return input / (window_mean * alpha + k).pow(beta)


# ---- embedding, one_hot, pad ---------------------------------------------------------------


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return ember.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    # Rescale (in place, without recording) the rows that input uses whose norm exceeds max_norm.
    with ember.no_grad():
        idx = input.reshape([-1])
        rows = weight.index_select(0, idx)
        norms = ember.norm(rows, norm_type, [1], True)
        scale = ember.where(norms > max_norm, max_norm / (norms + 1e-7), ember.ones_like(norms))
        weight.index_put_([idx], rows * scale)
    return weight


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != ember.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() > 0 else 0
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if tensor.numel() > 0:
        if int(tensor.min().item()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(tensor.max().item()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    out = ember.zeros(list(tensor.shape) + [num_classes], dtype=ember.int64, device=tensor.device)
    return out.scatter(-1, tensor.unsqueeze(-1), 1)


def _pad_op(input, pad, mode="constant", value=None):
    kind = {"reflect": "reflection", "replicate": "replication"}.get(mode)
    return f"{kind}_pad{len(pad) // 2}d" if kind else None


def _interpolate_op(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                    recompute_scale_factor=None, antialias=False):
    d = input.dim() - 2
    if antialias and mode in ("bilinear", "bicubic"):
        return f"_upsample_{mode}2d_aa"
    return {"nearest": f"upsample_nearest{d}d", "nearest-exact": f"_upsample_nearest_exact{d}d",
            "linear": "upsample_linear1d", "bilinear": "upsample_bilinear2d", "bicubic": "upsample_bicubic2d",
            "trilinear": "upsample_trilinear3d"}.get(mode)


@autocast_op(_pad_op, names=[f"{kind}_pad{d}d" for kind in ("reflection", "replication") for d in (1, 2, 3)])
def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad)//2 dims: pad = (left_last, right_last, left_prev, right_prev, ...)."""
    pad = list(pad)
    if len(pad) % 2 != 0:
        raise ValueError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise ValueError("Padding length should be less than or equal to two times the input dimension but got "
                         f"padding length {len(pad)} and input of dimension {input.dim()}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and value is not None and value != 0:
        raise ValueError(f'Padding mode "{mode}" doesn\'t take in value argument.')
    if mode == "constant":
        return ember.constant_pad_nd(input, [int(p) for p in pad], 0.0 if value is None else value)
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        if left == 0 and right == 0:
            continue
        n = out.shape[dim]
        # Negative padding crops first; the positive side then pads the cropped tensor (torch's order).
        if left < 0:
            out = out.narrow(dim, -left, n + left)
            n += left
            left = 0
        if right < 0:
            out = out.narrow(dim, 0, n + right)
            n += right
            right = 0
        if left == 0 and right == 0:
            continue
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({left}, {right}) at dimension {dim} of input {list(input.shape)}")
        if mode == "circular" and (left > n or right > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        index = []
        for j in range(-left, n + right):
            if mode == "replicate":
                k = min(max(j, 0), n - 1)
            elif mode == "reflect":
                k = -j if j < 0 else (2 * (n - 1) - j if j >= n else j)
            else:  # circular
                k = j % n
            index.append(k)
        out = out.index_select(dim, ember.tensor(index, dtype=ember.int64, device=out.device))
    return out


def _check_interpolate_sizes(in_sizes, out_sizes):
    if any(i <= 0 for i in in_sizes) or any(o <= 0 for o in out_sizes):
        raise ValueError(f"Input and output sizes should be greater than 0, but got input {tuple(in_sizes)} "
                         f"output {tuple(out_sizes)}")


_INTERPOLATING_MODES = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3, "lanczos": 2}


@autocast_op(_interpolate_op, names=[f"upsample_nearest{d}d" for d in (1, 2, 3)] + [
    f"_upsample_nearest_exact{d}d" for d in (1, 2, 3)] + ["upsample_linear1d", "upsample_bilinear2d", "upsample_bicubic2d",
                                                       "upsample_trilinear3d", "_upsample_bilinear2d_aa",
                                                       "_upsample_bicubic2d_aa"])
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resizes the spatial dims: 'nearest' (torch's legacy nearest), 'nearest-exact', 'area', and 'linear' /
    'bilinear' / 'bicubic' / 'trilinear' (separable, one dimension after the other); with antialias=True,
    'bilinear', 'bicubic' and 'lanczos' widen their kernel when shrinking, as torch's."""
    if mode not in ("nearest", "nearest-exact", "area") and mode not in _INTERPOLATING_MODES:
        raise NotImplementedError(f"interpolate mode '{mode}' is not supported in Ember yet (nearest, "
                                  "nearest-exact, area, linear, bilinear, bicubic, trilinear and lanczos are)")
    if antialias and (mode not in ("bilinear", "bicubic", "lanczos") or input.dim() != 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    if antialias and not input.is_floating_point():
        raise NotImplementedError(f"\"compute_index_ranges_weights\" not implemented for "
                                  f"'{input.dtype._legacy_name[:-len('Tensor')]}'")
    spatial = input.dim() - 2
    if mode in _INTERPOLATING_MODES and _INTERPOLATING_MODES[mode] != spatial:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_INTERPOLATING_MODES[mode] + 2}D input")
    if align_corners is not None and mode not in _INTERPOLATING_MODES:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    align_corners = bool(align_corners)
    in_sizes = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out_sizes = list(_ntuple(spatial)(size))
        _check_interpolate_sizes(in_sizes, out_sizes)
        scales = [i / o for i, o in zip(in_sizes, out_sizes)]
    elif scale_factor is not None:
        factors = list(_ntuple(spatial)(scale_factor))
        out_sizes = [int(math.floor(i * f)) for i, f in zip(in_sizes, factors)]
        _check_interpolate_sizes(in_sizes, out_sizes)
        scales = ([i / o for i, o in zip(in_sizes, out_sizes)] if recompute_scale_factor
                  else [1.0 / f for f in factors])
    else:
        raise ValueError("either size or scale_factor should be defined")
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[spatial - 1](input, out_sizes)
    out = input
    for d, (i, o, s) in enumerate(zip(in_sizes, out_sizes, scales)):
        # Source positions are computed as tensors (an impossible size fails at
        # once with the allocator's error instead of building a Python list).
        dst = ember.arange(o, dtype=ember.float64)
        if mode == "nearest":
            out = out.index_select(2 + d, (dst * s).floor().clamp(max=i - 1).long().to(out.device))
        elif mode == "nearest-exact":
            out = out.index_select(2 + d, ((dst + 0.5) * s).floor().clamp(max=i - 1).long().to(out.device))
        elif antialias:
            if align_corners:
                s = (i - 1) / (o - 1) if o > 1 else 0.0
            out = _antialiased_resize(out, 2 + d, i, o, s, mode)
        elif mode == "bicubic":
            out = _cubic_resize(out, 2 + d, i, o, s, align_corners)
        else:
            out = _linear_resize(out, 2 + d, i, o, s, align_corners)
    return out


def _source_positions(in_size, out_size, scale, align_corners):
    """Where each output position samples the input (torch's rule), as float64."""
    dst = ember.arange(out_size, dtype=ember.float64)
    if align_corners:
        return dst * ((in_size - 1) / (out_size - 1)) if out_size > 1 else dst * 0
    return (dst + 0.5) * scale - 0.5


_ANTIALIAS_HALF_WIDTH = {"bilinear": 1.0, "bicubic": 2.0, "lanczos": 3.0}
# Weight matrices up to this many entries (64 MiB of float32) are applied as a matrix product.
_DENSE_RESAMPLING_LIMIT = 1 << 24


def _antialias_filter(mode, x):
    """The resampling kernel at the float64 array x: a triangle for bilinear, Keys' cubic with a = -0.5
    for bicubic, sinc(x) sinc(x / 3) for lanczos."""
    import numpy as np

    x = np.abs(x)
    if mode == "bilinear":
        return np.maximum(0.0, 1.0 - x)
    if mode == "lanczos":
        return np.where(x < 3, np.sinc(x) * np.sinc(x / 3), 0.0)
    a = -0.5
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def _antialiased_resize(x, dim, in_size, out_size, scale, mode):
    """Resampling along one dim with the kernel stretched by the scale when shrinking (so every input
    pixel contributes and nothing aliases), each output's weights normalized to sum to 1. Output i reads
    the taps first[i] .. first[i] + taps - 1 (weight 0 past its window), applied as a matrix product or,
    for very large sizes, as a gather of out_size x taps positions, a product and a sum (either gives
    the gradient)."""
    import numpy as np

    half_width = _ANTIALIAS_HALF_WIDTH[mode]
    support = half_width * scale if scale >= 1 else half_width
    stretch = 1.0 / scale if scale >= 1 else 1.0
    center = scale * (np.arange(out_size, dtype=np.float64) + 0.5)
    first = np.maximum((center - support + 0.5).astype(np.int64), 0)
    last = np.minimum((center + support + 0.5).astype(np.int64), in_size)
    taps = int(max((last - first).max(), 1))
    position = first[:, None] + np.arange(taps)[None, :]
    weight = _antialias_filter(mode, (position - center[:, None] + 0.5) * stretch) * (position < last[:, None])
    total = weight.sum(1, keepdims=True)
    weight = np.divide(weight, total, out=weight, where=total != 0)
    dtype = x.dtype if x.is_floating_point() else ember.float32
    position = np.minimum(position, in_size - 1)
    if scale >= 1 and out_size * in_size <= _DENSE_RESAMPLING_LIMIT:
        # Shrinking (wide windows): one matrix product with the out_size x in_size weights, at BLAS's
        # speed; enlarging reads 2 to 6 taps an output, which the gather below does in fewer operations.
        dense = np.zeros((out_size, in_size))
        np.add.at(dense, (np.repeat(np.arange(out_size), taps), position.reshape(-1)), weight.reshape(-1))
        dense = ember.from_numpy(dense).to(device=x.device, dtype=dtype)
        if dim == x.dim() - 1:
            return x @ dense.t()
        return (dense @ x.movedim(dim, -2)).movedim(-2, dim)
    # One gather along dim itself per tap (copies of whole contiguous runs below dim), weighted and summed.
    rest = [1] * (x.dim() - dim - 1)
    out = None
    for t in range(taps):
        picked = x.index_select(dim, ember.from_numpy(np.ascontiguousarray(position[:, t])).to(x.device))
        term = picked * ember.from_numpy(np.ascontiguousarray(weight[:, t])).to(device=x.device, dtype=dtype).reshape(
            out_size, *rest)
        out = term if out is None else out + term
    return out


def _linear_resize(x, dim, in_size, out_size, scale, align_corners):
    """Linear interpolation along one dim, with torch's source-index rule."""
    src = _source_positions(in_size, out_size, scale, align_corners).clamp(min=0)
    low = src.floor().clamp(max=in_size - 1)
    weight = (src - low).to(x.dtype)
    low = low.long()
    high = (low + 1).clamp(max=in_size - 1)
    shape = [1] * x.dim()
    shape[dim] = out_size
    a = x.index_select(dim, low.to(x.device))
    b = x.index_select(dim, high.to(x.device))
    return a + (b - a) * weight.reshape(shape).to(x.device)


def _cubic_resize(x, dim, in_size, out_size, scale, align_corners, A=-0.75):
    """Cubic convolution along one dim (Keys' kernel with a = -0.75, as torch):
    four taps around each source position, clamped at the borders."""
    src = _source_positions(in_size, out_size, scale, align_corners)
    base = src.floor()
    t = src - base

    def near(d):  # |d| <= 1
        return ((A + 2) * d - (A + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A

    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    shape = [1] * x.dim()
    shape[dim] = out_size
    out = None
    for k, w in zip(range(-1, 3), weights):
        taps = (base + k).clamp(0, in_size - 1).long().to(x.device)
        term = x.index_select(dim, taps) * w.to(x.dtype).reshape(shape).to(x.device)
        out = term if out is None else out + term
    return out


# ---- losses -------------------------------------------------------------------------------------


def _check_sizes_for_broadcast(input, target, name, stacklevel=3):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=stacklevel)
        return ember.broadcast_tensors(input, target)
    return input, target


def _weighted_reduction(loss, weight, input, reduction):
    # torch's weighted mse/l1: 'mean' divides by the total weight, not the element count.
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return _apply_reduction(loss, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _resolve_reduction(size_average, reduce, reduction)
    input, target = _check_sizes_for_broadcast(input, target, "mse_loss")
    if weight is not None:
        d = input - target
        return _weighted_reduction(d * d, weight, input, reduction)
    return ember.mse_loss(input, target, _reduction_enum(reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _resolve_reduction(size_average, reduce, reduction)
    input, target = _check_sizes_for_broadcast(input, target, "l1_loss")
    if weight is not None:
        return _weighted_reduction((input - target).abs(), weight, input, reduction)
    return ember.l1_loss(input, target, _reduction_enum(reduction))


@autocast_op("smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _resolve_reduction(size_average, reduce, reduction)
    input, target = _check_sizes_for_broadcast(input, target, "smooth_l1_loss")
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = (input - target).abs()
    if beta == 0.0:
        return _apply_reduction(d, reduction)
    loss = ember.where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)
    return _apply_reduction(loss, reduction)


@autocast_op("huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    input, target = _check_sizes_for_broadcast(input, target, "huber_loss")
    d = (input - target).abs()
    loss = ember.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        loss = loss * weight
    return _apply_reduction(loss, reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _resolve_reduction(size_average, reduce, reduction)
    return ember.cross_entropy_loss(input, target, weight, _reduction_enum(reduction), ignore_index, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _resolve_reduction(size_average, reduce, reduction)
    return ember.nll_loss(input, target, weight, _reduction_enum(reduction), ignore_index)


@autocast_op("binary_cross_entropy")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _resolve_reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    # torch clamps each log term at -100 so that 0 * log(0) stays finite.
    loss = -(target * ember.log(input).clamp(min=-100.0) + (1 - target) * ember.log(1 - input).clamp(min=-100.0))
    if weight is not None:
        loss = loss * weight.expand(ember.broadcast_shapes(target.shape, weight.shape))
    return _apply_reduction(loss, reduction)


@autocast_op("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = _resolve_reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    # torch's stable form: (1 - t) x + (1 + (pw - 1) t) (log1p(exp(-|x|)) + max(-x, 0)).
    softplus_neg = ember.log1p(ember.exp(-input.abs())) + (-input).clamp(min=0.0)
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * softplus_neg
    else:
        loss = (1 - target) * input + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _apply_reduction(loss, reduction)


@autocast_op("kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if log_target:
        loss = ember.exp(target) * (target - input)
    else:
        positive = target > 0
        safe = ember.where(positive, target, ember.ones_like(target))
        loss = ember.where(positive, target * (ember.log(safe) - input), -target * input)
    if reduction == "batchmean":
        return loss.sum() / input.size(0) if input.dim() != 0 else loss.sum()
    return _apply_reduction(loss, reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps over the last dimension."""
    return _vector_norm(x1 - x2 + eps, p, -1, keepdim)


def _vector_norm(x, p, dim, keepdim):
    if p == 2:
        return (x * x).sum(dim, keepdim=keepdim).sqrt()
    if p == 1:
        return x.abs().sum(dim, keepdim=keepdim)
    if p == math.inf:
        return x.abs().amax(dim, keepdim=keepdim)
    if p == 0:
        return (x != 0).to(x.dtype).sum(dim, keepdim=keepdim)
    return x.abs().pow(p).sum(dim, keepdim=keepdim).pow(1.0 / p)


@autocast_op("cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between x1 and x2 along dim (norms clamped below at eps)."""
    x1, x2 = ember.broadcast_tensors(x1, x2)
    n1 = _vector_norm(x1, 2, dim, True).clamp(min=eps)
    n2 = _vector_norm(x2, 2, dim, True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@autocast_op("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {list(input1.shape)}, input2: {list(input2.shape)}, target: {list(target.shape)} ")
    return _apply_reduction((-target * (input1 - input2) + margin).clamp(min=0), reduction)


@autocast_op("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    zeros = ember.zeros_like(input)
    from_margin = ember.where(target != 1, (margin - input).clamp(min=0), zeros)
    from_input = ember.where(target != -1, input, zeros)
    return _apply_reduction(from_margin + from_input, reduction)


@autocast_op("soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    return _apply_reduction(softplus(-target * input), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=input.dim() - 1) / input.size(-1)
    return _apply_reduction(loss, reduction)


@autocast_op("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() not in (1, 2) or target.dim() != input1.dim() - 1:
        raise RuntimeError(f"cosine_embedding_loss: expected 1-D or 2-D inputs of the same dimension and a target "
                           f"of one dimension less, got {list(input1.shape)}, {list(input2.shape)} and "
                           f"{list(target.shape)}")
    dim = input1.dim() - 1
    eps = 1e-12
    dot = (input1 * input2).sum(dim)
    cos = dot / ((input1 * input1).sum(dim) + eps).mul((input2 * input2).sum(dim) + eps).sqrt()
    zeros = ember.zeros_like(cos)
    loss = ember.where(target == 1, 1 - cos, zeros) + ember.where(target == -1, (cos - margin).clamp(min=0), zeros)
    return _apply_reduction(loss, reduction)


@autocast_op("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        # Stirling's approximation of log(target!), for target > 1.
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + ember.where(target > 1, stirling, ember.zeros_like(stirling))
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, numbers.Number):
        var = ember.full_like(input, var)
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.shape[:-1] == var.shape[:-1] and var.size(-1) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with ember.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


@autocast_op("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = ember.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _apply_reduction((margin + d_pos - d_neg).clamp(min=0), reduction)


@autocast_op("multi_margin_loss")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.dim() == 2 else input.reshape([1, -1])
    y = target.reshape([-1])
    if y.numel() != x.size(0):
        raise RuntimeError(f"inconsistent target size, expected {x.size(0)} but got {list(target.shape)}")
    correct = x.gather(1, y.unsqueeze(1))
    margins = (margin - correct + x).clamp(min=0)
    if p == 2:
        margins = margins * margins
    if weight is not None:
        margins = margins * weight.index_select(0, y).unsqueeze(1)
    # the target's own column does not count
    margins = margins.scatter(1, y.unsqueeze(1), ember.zeros_like(correct))
    loss = margins.sum(1) / x.size(1)
    if input.dim() < 2:
        loss = loss.reshape(target.shape)
    return _apply_reduction(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         "instead")
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = ember.minimum(d_neg, distance(positive, negative))
    return _apply_reduction((margin + d_pos - d_neg).clamp(min=0), reduction)


@autocast_op("multilabel_margin_loss")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Each row's target lists class indices, ended by the first -1; every (target, non-target) pair adds
    max(0, 1 - (x[target] - x[other])), divided by the number of classes."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    x = input if input.dim() == 2 else input.reshape([1, -1])
    y = target if target.dim() == 2 else target.reshape([1, -1])
    if x.shape != y.shape:
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    # Entries before the first -1 name target classes.
    valid = (y >= 0).to(ember.int64).cumprod(1).to(ember.bool)
    counts = ember.zeros(x.shape, dtype=ember.int64, device=x.device)
    is_target = counts.scatter_add(1, y.clamp(min=0), valid.to(ember.int64)) > 0
    diff = 1 - x.unsqueeze(2) + x.unsqueeze(1)  # [n, j, i] = 1 - (x_j - x_i)
    pairs = is_target.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = (diff.clamp(min=0) * pairs.to(x.dtype)).sum((1, 2)) / x.size(1)
    if input.dim() < 2:
        loss = loss.reshape([])
    return _apply_reduction(loss, reduction)


# ---- attention ----------------------------------------------------------------------------------


def _repeat_heads(x, n_rep):
    if n_rep == 1:
        return x
    shape = list(x.shape)
    h = shape[-3]
    y = x.unsqueeze(-3).expand(shape[:-3] + [h, n_rep] + shape[-2:])
    return y.reshape(shape[:-3] + [h * n_rep] + shape[-2:])


def _fused_attention_applies(query, key, value, attn_mask, dropout_p):
    """Whether the fused CPU kernel (_scaled_dot_product_flash_attention_for_cpu)
    serves this call: float or double on the CPU, no dropout, one batch shape
    for the three operands, and a mask (bool or of the query's dtype) that
    needs no gradient. The composite below serves the rest."""
    if dropout_p != 0.0 or query.dim() not in (3, 4) or query.device.type not in ("cpu", "meta"):
        return False
    if query.dtype not in (ember.float32, ember.float64) or not (query.dtype == key.dtype == value.dtype):
        return False
    if not (key.dim() == value.dim() == query.dim() and query.shape[:-2] == key.shape[:-2] == value.shape[:-2]):
        return False
    if key.device != query.device or value.device != query.device:
        return False
    if attn_mask is None:
        return True
    return (attn_mask.dtype in (ember.bool, query.dtype) and attn_mask.device == query.device
            and not (attn_mask.requires_grad and ember.is_grad_enabled()))


@autocast_op("scaled_dot_product_attention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v, with torch's "safe" softmax: fully masked rows give zeros.
    On the CPU the fused kernel serves float and double without dropout (the
    flash backend's switch); the composite (math) serves the rest."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa:
        key = _repeat_heads(key, query.size(-3) // key.size(-3))
        value = _repeat_heads(value, query.size(-3) // value.size(-3))
    if ember.backends.cuda.flash_sdp_enabled() and _fused_attention_applies(query, key, value, attn_mask, dropout_p):
        unbatched = query.dim() == 3  # [N, L, E]: one head each
        if unbatched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if attn_mask is not None and attn_mask.dim() == 3:
                attn_mask = attn_mask.unsqueeze(1)
        out = ember._scaled_dot_product_flash_attention_for_cpu(query, key, value, 0.0, is_causal,
                                                                attn_mask=attn_mask, scale=scale)[0]
        return out.squeeze(1) if unbatched else out
    if not (ember.backends.cuda.math_sdp_enabled() or ember.backends.cuda.flash_sdp_enabled()):
        # With flash alone on, the composite stands in for what torch's CPU
        # flash kernel takes and the fused one does not (dropout, bfloat16).
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    attn = ember.matmul(query, key.transpose(-2, -1)) * scale_factor
    masked = False
    if is_causal:
        causal = ember.ones(L, S, dtype=ember.bool, device=query.device).tril()
        attn = attn.masked_fill(causal.logical_not(), float("-inf"))
        masked = True
    if attn_mask is not None:
        if attn_mask.dtype == ember.bool:
            attn = attn.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            attn = attn + attn_mask
        masked = True
    attn = ember._safe_softmax(attn, -1) if masked else ember.softmax(attn, -1)
    if dropout_p > 0.0:
        attn = ember.dropout(attn, dropout_p, True)
    return ember.matmul(attn, value)


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or ember.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    if mask is not None:
        _mask_dtype = mask.dtype
        _mask_is_float = mask.is_floating_point()
        if _mask_dtype != ember.bool and not _mask_is_float:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None:
            if _mask_dtype != other_type:
                warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
                              "for both instead.", stacklevel=2)
        if not _mask_is_float:
            mask = ember.zeros(list(mask.shape), dtype=target_type, device=mask.device).masked_fill(
                mask, float("-inf"))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        is_batched = True
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
    elif query.dim() == 2:
        is_batched = False
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                     f"found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                if attn_mask.shape != expected_shape:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected_shape} but got "
                                         f"{attn_mask.shape}")
    else:
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    return is_batched


def _in_projection_packed(q, k, v, w, b=None):
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            # (..., 3E) -> 3 x (..., E)
            proj = proj.reshape(list(proj.shape[:-1]) + [3, E]).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        if b is None:
            b_q = b_kv = None
        else:
            b_q, b_kv = b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.reshape(list(kv_proj.shape[:-1]) + [2, E]).unsqueeze(0).transpose(0, -2).squeeze(-2)
        kv_proj = kv_proj.contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    if b is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """torch.nn.functional.multi_head_attention_forward, sequence-first (L, N, E)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]

    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False

    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q/k/v_proj_weight is None")
        if in_proj_bias is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            correct_2d_size = (tgt_len, src_len)
            if attn_mask.shape != correct_2d_size:
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{correct_2d_size}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            correct_3d_size = (bsz * num_heads, tgt_len, src_len)
            if attn_mask.shape != correct_3d_size:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{correct_3d_size}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = ember.cat([k, bias_k.expand([1, bsz, embed_dim])])
        v = ember.cat([v, bias_v.expand([1, bsz, embed_dim])])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be set or both be None")

    q = q.reshape([tgt_len, bsz * num_heads, head_dim]).transpose(0, 1)
    if static_k is None:
        k = k.reshape([k.shape[0], bsz * num_heads, head_dim]).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.reshape([v.shape[0], bsz * num_heads, head_dim]).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v

    if add_zero_attn:
        zero_attn_shape = [bsz * num_heads, 1, head_dim]
        k = ember.cat([k, ember.zeros(zero_attn_shape, dtype=k.dtype, device=k.device)], 1)
        v = ember.cat([v, ember.zeros(zero_attn_shape, dtype=v.dtype, device=v.device)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.reshape([bsz, 1, 1, src_len]).expand(
            [bsz, num_heads, 1, src_len]).reshape([bsz * num_heads, 1, src_len])
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        attn_output_weights = ember.bmm(q_scaled, k.transpose(-2, -1))
        if attn_mask is not None:
            attn_output_weights = attn_mask + attn_output_weights
        attn_output_weights = ember.softmax(attn_output_weights, -1)
        if dropout_p > 0.0:
            attn_output_weights = dropout(attn_output_weights, p=dropout_p)
        attn_output = ember.bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).reshape([tgt_len * bsz, embed_dim])
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.reshape([tgt_len, bsz, attn_output.size(1)])
        attn_output_weights = attn_output_weights.reshape([bsz, num_heads, tgt_len, src_len])
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape([bsz, num_heads, -1, src_len])
    q = q.reshape([bsz, num_heads, tgt_len, head_dim])
    k = k.reshape([bsz, num_heads, src_len, head_dim])
    v = v.reshape([bsz, num_heads, src_len, head_dim])
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape([bsz * tgt_len, embed_dim])
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.reshape([tgt_len, bsz, attn_output.size(1)])
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None


# Convolution and pooling over any number of spatial dims (composed; see _windows.py).
from ._windows import (  # noqa: E402
    adaptive_avg_pool3d, adaptive_max_pool3d, avg_pool3d, conv3d, conv_transpose1d, conv_transpose3d,
    fractional_max_pool2d, fractional_max_pool3d, lp_pool1d, lp_pool2d, lp_pool3d, max_pool3d, max_unpool1d,
    max_unpool2d, max_unpool3d,
)
from ._windows import adaptive_max_with_indices as _adaptive_max_with_indices  # noqa: E402


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return ember.conv_transpose2d(input, weight, bias, _pair(stride), _pair(padding), _pair(output_padding), groups,
                                  _pair(dilation))


from ._embedding_bag import embedding_bag  # noqa: E402
from ._sampling import affine_grid, grid_sample  # noqa: E402
from ._ctc import ctc_loss  # noqa: E402


# ---- deprecated spellings that scripts still use ----------------------------------------------


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate, as in torch."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- distances and relaxed sampling ------------------------------------------------------------


@autocast_op("pdist")
def pdist(input, p=2):
    """The p-norm distance between every pair of rows (i < j) of an (N, M) input, as a flat N*(N-1)/2 vector."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.size(0)
    rows, cols = ember.triu_indices(n, n, 1, device=input.device)
    return ember.cdist(input, input, p)[rows, cols]


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax (concrete) distribution; hard=True returns one-hot samples whose
    gradient is the soft sample's (straight-through)."""
    gumbels = -ember.empty_like(logits).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    one_hot_sample = ember.zeros_like(logits).scatter_(dim, index, 1.0)
    return one_hot_sample - soft.detach() + soft


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=True,
                                       _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=True,
                                       _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool3d(input, output_size, return_indices=True)



from ._linear_cross_entropy import linear_cross_entropy  # noqa: E402  (its own file: it builds on this one)
