"""ctc_loss: the negative log-likelihood of a target sequence under every
alignment of it to the input frames (blanks between and around labels,
repeats merged), by the forward (alpha) recursion in log space over the
extended label sequence. Autograd differentiates the recursion, which gives
the alpha-beta gradient.

Re-exported by ember.nn.functional.
"""

import ember
from ember.amp._python_ops import autocast_op

# Impossible paths carry this instead of -inf, so that no logsumexp of only
# -inf terms turns the backward pass into NaN; losses past half of it are
# reported as inf.
_NEVER = -1e30


def _lengths(name, value, batch, device):
    t = value if isinstance(value, ember.Tensor) else ember.tensor(list(value), dtype=ember.int64)
    t = t.to(device=device, dtype=ember.int64).reshape([-1])
    if t.numel() != batch:
        raise RuntimeError(f"ctc_loss: expected {name} to have {batch} entries (one per batch element), got "
                           f"{t.numel()}")
    return t


@autocast_op("ctc_loss.IntList")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss, as torch.nn.functional.ctc_loss: log_probs (T, N, C)
    (or (T, C)), targets (N, S) padded or concatenated 1-D."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_loss: expected log_probs of 2 or 3 dims (T, [N,] C), got {log_probs.dim()}")
    frames, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError(f"ctc_loss: blank must be in label range, got blank={blank} for {classes} classes")
    device = log_probs.device
    input_lengths = _lengths("input_lengths", input_lengths, batch, device)
    target_lengths = _lengths("target_lengths", target_lengths, batch, device)
    if batch and (int(input_lengths.max()) > frames or int(input_lengths.min()) < 0):
        raise RuntimeError(f"ctc_loss: expected input_lengths to have value at most {frames}, but got value "
                           f"{int(input_lengths.max())}")
    if batch and int(target_lengths.min()) < 0:
        raise RuntimeError("ctc_loss: target lengths must be non-negative")
    longest = int(target_lengths.max()) if batch else 0
    if targets.dim() == 1:  # concatenated: cut into rows, padded with blanks
        if int(target_lengths.sum()) > targets.numel():
            raise RuntimeError(f"ctc_loss: targets holds {targets.numel()} labels but target_lengths add up to "
                               f"{int(target_lengths.sum())}")
        starts = ember.cumsum(target_lengths, 0) - target_lengths
        offsets = ember.arange(longest, device=device).unsqueeze(0)
        valid = offsets < target_lengths.unsqueeze(1)
        index = (starts.unsqueeze(1) + offsets).clamp(max=max(targets.numel() - 1, 0))
        padded = targets.to(ember.int64)[index] if targets.numel() else ember.zeros(batch, longest, dtype=ember.int64)
        targets = ember.where(valid, padded, ember.full_like(padded, blank))
    else:
        if targets.shape[0] != batch or targets.shape[1] < longest:
            raise RuntimeError(f"ctc_loss: expected targets of shape ({batch}, >= {longest}), got "
                               f"{list(targets.shape)}")
        targets = targets[:, :longest].to(ember.int64)
    if targets.numel() and (int(targets.min()) < 0 or int(targets.max()) >= classes):
        raise RuntimeError(f"ctc_loss: target labels must be in [0, {classes}), got values in "
                           f"[{int(targets.min())}, {int(targets.max())}]")

    # Extended labels: blank, l1, blank, l2, ..., blank.
    width = 2 * longest + 1
    extended = ember.full([batch, width], blank, dtype=ember.int64, device=device)
    if longest:
        extended[:, 1::2] = targets
    frame_scores = log_probs.gather(2, extended.unsqueeze(0).expand([frames, batch, width]))
    positions = ember.arange(width, device=device)
    skip = (positions >= 2) & (extended != blank)
    skip[:, 2:] &= extended[:, 2:] != extended[:, :-2]
    never = ember.full([batch, 1], _NEVER, dtype=log_probs.dtype, device=device)

    alpha = ember.full([batch, width], _NEVER, dtype=log_probs.dtype, device=device)
    start = positions.unsqueeze(0) < ember.where(target_lengths > 0, 2, 1).unsqueeze(1)
    alpha = ember.where(start, frame_scores[0], alpha) if frames else alpha
    for t in range(1, frames):
        stay = alpha
        step = ember.cat([never, alpha[:, :-1]], 1)
        jump = ember.where(skip, ember.cat([never, never, alpha[:, :-2]], 1), ember.full_like(alpha, _NEVER)) \
            if width > 2 else ember.full_like(alpha, _NEVER)
        moved = ember.stack([stay, step, jump]).logsumexp(0) + frame_scores[t]
        alpha = ember.where((t < input_lengths).unsqueeze(1), moved, alpha)

    last = (2 * target_lengths).unsqueeze(1)
    ends = alpha.gather(1, last)
    before = ember.where(target_lengths.unsqueeze(1) > 0, alpha.gather(1, (last - 1).clamp(min=0)),
                         ember.full_like(ends, _NEVER))
    losses = -ember.cat([ends, before], 1).logsumexp(1)
    if frames == 0:
        losses = ember.where(target_lengths == 0, ember.zeros_like(losses), ember.full_like(losses, -_NEVER))
    impossible = losses > -_NEVER / 2
    inf = ember.full_like(losses, float("inf"))
    losses = ember.where(impossible, ember.zeros_like(losses) if zero_infinity else inf, losses)
    if reduction == "none":
        return losses.squeeze(0) if unbatched else losses
    if reduction == "sum":
        return losses.sum()
    return (losses / target_lengths.clamp(min=1).to(losses.dtype)).mean()
