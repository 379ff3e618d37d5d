"""affine_grid and grid_sample (spatial transformers): sampling an image at
arbitrary normalized coordinates in [-1, 1], bilinear/trilinear or nearest,
with zeros, border or reflection padding. Composed from gather, so the
gradient reaches both the image and the grid.

Re-exported by ember.nn.functional.
"""

import itertools
import warnings

import ember
from ember.amp._python_ops import autocast_op

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _align(align_corners):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        return False
    return bool(align_corners)


def _base_coordinates(steps, align_corners, dtype, device):
    """The normalized coordinate of each of ``steps`` pixel centres (or corners with align_corners)."""
    if steps <= 1:
        return ember.zeros(max(steps, 0), dtype=dtype, device=device)
    line = ember.linspace(-1.0, 1.0, steps, dtype=dtype, device=device)
    return line if align_corners else line * ((steps - 1) / steps)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) that the affine maps theta (N, 2, 3) or (N, 3, 4)
    give for an output of ``size`` (N, C, H, W) or (N, C, D, H, W)."""
    align_corners = _align(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    nd = len(size) - 2
    if nd not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {tuple(size)}.")
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (nd, nd + 1) or theta.shape[0] != size[0]:
        raise ValueError(f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} for size "
                         f"{tuple(size)}. Got {theta.shape}.")
    if min(size[2:]) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {tuple(size)}")
    spatial = size[2:]
    # Coordinates in (x, y[, z]) order: x runs along the last dim.
    axes = [_base_coordinates(s, align_corners, theta.dtype, theta.device) for s in reversed(spatial)]
    columns = []
    for i, axis in enumerate(axes):
        shape = [1] * nd
        shape[nd - 1 - i] = spatial[nd - 1 - i]
        columns.append(axis.reshape(shape).expand(spatial))
    columns.append(ember.ones(spatial, dtype=theta.dtype, device=theta.device))
    base = ember.stack(columns, -1).reshape([1, -1, nd + 1])  # (1, prod(spatial), nd + 1)
    grid = base.matmul(theta.transpose(1, 2))  # (N, prod(spatial), nd)
    return grid.reshape([size[0], *spatial, nd])


def _unnormalize(coordinate, size, align_corners):
    if align_corners:
        return (coordinate + 1) / 2 * (size - 1)
    return ((coordinate + 1) * size - 1) / 2


def _cubic_weights(t, a=-0.75):
    """The weights of the four taps at -1, 0, 1, 2 for a fraction t in [0, 1) (Keys' cubic convolution)."""
    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _reflect(x, twice_low, twice_high):
    """x folded back into [low, high] by mirror reflections."""
    if twice_low == twice_high:
        return ember.zeros_like(x)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (x - low).abs()
    flips = (distance / span).floor()
    extra = distance - flips * span
    return ember.where(flips.remainder(2) == 0, extra + low, span - extra + low)


def _source_coordinate(coordinate, size, padding_mode, align_corners):
    return _pad_coordinate(_unnormalize(coordinate, size, align_corners), size, padding_mode, align_corners)


def _pad_coordinate(x, size, padding_mode, align_corners):
    """A pixel coordinate moved inside the image as the padding mode says (zeros: left as it is)."""
    if padding_mode == "border":
        x = x.clamp(0, size - 1)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


@autocast_op("grid_sampler")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) or (N, C, D, H, W) sampled at grid (N, H', W', 2) or (N, D', H', W', 3), whose last
    dim holds normalized (x, y[, z]) in [-1, 1]."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align(align_corners)
    nd = input.dim() - 2
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if nd not in (2, 3) or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    n, channels = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])  # (D,) H, W
    out_spatial = list(grid.shape[1:-1])
    flat_input = input.reshape([n, channels, -1])
    # Source coordinates per input dim, in the input's dim order (grid holds x first).
    coords = [_source_coordinate(grid[..., nd - 1 - d].reshape([n, 1, -1]), sizes[d], padding_mode, align_corners)
              for d in range(nd)]
    strides = [1] * nd
    for d in range(nd - 2, -1, -1):
        strides[d] = strides[d + 1] * sizes[d + 1]

    def sample(corner):
        """Values at integer positions ``corner`` (one tensor per dim), zero where outside the input."""
        inside = None
        flat = None
        for d, position in enumerate(corner):
            ok = (position >= 0) & (position <= sizes[d] - 1)
            inside = ok if inside is None else inside & ok
            clamped = position.clamp(0, sizes[d] - 1).to(ember.int64) * strides[d]
            flat = clamped if flat is None else flat + clamped
        values = flat_input.gather(2, flat.expand([n, channels, flat.shape[-1]]))
        return values * inside.to(input.dtype)

    if mode == "nearest":
        out = sample([c.round() for c in coords])
    elif mode == "bicubic":
        # A 4x4 neighbourhood weighted by Keys' cubic kernel (A = -0.75); each tap is padded on its own.
        raw = [_unnormalize(grid[..., nd - 1 - d].reshape([n, 1, -1]), sizes[d], align_corners) for d in range(nd)]
        lows = [c.floor() for c in raw]
        weights = [_cubic_weights(c - low) for c, low in zip(raw, lows)]
        out = None
        for a, b in itertools.product(range(4), repeat=2):  # a along the first (height) dim, b along width
            taps = [_pad_coordinate(lows[0] + (a - 1), sizes[0], padding_mode, align_corners),
                    _pad_coordinate(lows[1] + (b - 1), sizes[1], padding_mode, align_corners)]
            term = sample([t.floor() for t in taps]) * (weights[0][a] * weights[1][b])
            out = term if out is None else out + term
    else:
        lows = [c.floor() for c in coords]
        fractions = [c - low for c, low in zip(coords, lows)]
        out = None
        for corner in itertools.product((0, 1), repeat=nd):
            weight = None
            for d, bit in enumerate(corner):
                w = fractions[d] if bit else 1 - fractions[d]
                weight = w if weight is None else weight * w
            term = sample([low + bit for low, bit in zip(lows, corner)]) * weight
            out = term if out is None else out + term
    return out.reshape([n, channels, *out_spatial])
