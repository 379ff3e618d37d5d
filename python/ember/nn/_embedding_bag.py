"""embedding_bag: the rows of a lookup table gathered per bag and reduced
(sum, mean or max) without materializing the per-bag lists. Composed from
embedding (so sparse gradients and padding_idx work as for Embedding),
index_add for sums and a padded (bags x longest bag) block for max.

Re-exported by ember.nn.functional.
"""

import ember

from . import functional as F

_MODES = ("sum", "mean", "max")


def _bags_of(op, input, offsets, include_last_offset):
    """(flat indices, the bag of each, how many bags, the position of each in its bag)."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        bags, length = input.shape
        bag_of = ember.arange(bags, device=input.device).repeat_interleave(length)
        position = ember.arange(length, device=input.device).repeat(bags)
        return input.reshape([-1]), bag_of, bags, position
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if offsets is None or not isinstance(offsets, ember.Tensor) or offsets.dim() != 1:
        got = "None" if offsets is None else f"a {offsets.dim()}D Tensor" if isinstance(offsets, ember.Tensor) \
            else type(offsets).__name__
        raise ValueError(f"offsets has to be a 1D Tensor but got {got}")
    if offsets.dtype not in (ember.int64, ember.int32):
        raise RuntimeError(f"{op}: offsets must be an int64 or int32 tensor, got {offsets.dtype}")
    offsets = offsets.to(ember.int64)
    n = input.numel()
    if offsets.numel():
        if int(offsets[0]) != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                               f"position 0. However, got {int(offsets[0])}")
        if int(offsets[-1]) > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                               f"{int(offsets[-1])}")
        if offsets.numel() > 1 and bool((offsets[1:] < offsets[:-1]).any()):
            raise RuntimeError(f"{op}: offsets must be non-decreasing, got {offsets.tolist()}")
    starts = offsets[:-1] if include_last_offset and offsets.numel() else offsets
    end = int(offsets[-1]) if include_last_offset and offsets.numel() else n
    flat = input[:end]
    if starts.numel() == 0:
        empty = ember.zeros(0, dtype=ember.int64, device=input.device)
        return flat[:0], empty, 0, empty
    bag_of = ember.bucketize(ember.arange(end, device=input.device), starts, right=True) - 1
    position = ember.arange(end, device=input.device) - starts[bag_of]
    return flat, bag_of, starts.numel(), position


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embedding rows, as torch.nn.functional.embedding_bag."""
    op = "embedding_bag"
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      "on GitHub.")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(f"embedding_bag: per_sample_weights of shape {list(per_sample_weights.shape)} must have "
                             f"the shape of input {list(input.shape)}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.size(0)
    flat, bag_of, bags, position = _bags_of(op, input, offsets, include_last_offset)
    rows = F.embedding(flat, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape([-1])[:flat.numel()].unsqueeze(1)
    if padding_idx is not None:  # padding entries take no part in their bag
        keep = flat != padding_idx
        rows, bag_of, position = rows[keep], bag_of[keep], position[keep]
    width = weight.size(1)
    if mode == "max":
        if rows.size(0) == 0:
            return ember.zeros(bags, width, dtype=weight.dtype, device=weight.device)
        longest = int(position.max()) + 1
        block = ember.full([bags, longest, width], float("-inf"), dtype=weight.dtype, device=weight.device)
        block.index_put_((bag_of, position), rows)
        filled = ember.bincount(bag_of, minlength=bags) > 0
        return block.max(1).values.masked_fill(~filled.unsqueeze(1), 0)
    total = ember.zeros(bags, width, dtype=weight.dtype, device=weight.device).index_add(0, bag_of, rows)
    if mode == "sum":
        return total
    counts = ember.bincount(bag_of, minlength=bags).clamp(min=1).to(weight.dtype)
    return total / counts.unsqueeze(1)
