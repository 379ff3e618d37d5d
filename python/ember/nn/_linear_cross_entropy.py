"""linear_cross_entropy: cross entropy of a linear projection's logits,
optionally computed over the batch in chunks (LinearCrossEntropyOptions) so
that the full (batch, classes) logits are never held at once: each chunk's
logits are recomputed in backward (activation checkpointing) instead of
kept. The chunked result equals the reference one up to summation order."""

import dataclasses
import warnings

import ember

__all__ = ["LinearCrossEntropyOptions", "linear_cross_entropy"]

# Logits one chunk may hold when no batch_chunk_size is given (elements).
_CHUNK_LOGITS = 1 << 20


@dataclasses.dataclass
class LinearCrossEntropyOptions:
    """Opts linear_cross_entropy into the chunked computation.
    ``batch_chunk_size`` rows per chunk (default: about a million logits per
    chunk); the other fields are accepted for torch's signature; Ember
    accumulates in the input's dtype."""

    allow_retain_graph: bool = False
    batch_chunk_size: int = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None


def _logits(input, linear_weight, linear_bias):
    classes_and_dims = tuple(linear_weight.shape[:-1])
    flat_bias = None if linear_bias is None else linear_bias.reshape(-1)
    flat = ember.nn.functional.linear(input, linear_weight.reshape(-1, linear_weight.shape[-1]), flat_bias)
    return flat.reshape(*input.shape[:-1], *classes_and_dims)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``, with
    ``ignore_index=None`` meaning -100 for class-index targets."""
    F = ember.nn.functional
    class_indices = not target.is_floating_point()
    kwargs = {"weight": weight, "reduction": reduction, "label_smoothing": label_smoothing}
    if class_indices:
        kwargs["ignore_index"] = -100 if ignore_index is None else ignore_index
    if options is None:
        return F.cross_entropy(_logits(input, linear_weight, linear_bias), target, **kwargs)
    if not (class_indices and input.dim() == 2 and linear_weight.dim() == 2 and reduction in ("mean", "sum")):
        warnings.warn("linear_cross_entropy: the chunked computation takes 2-d input, class-index targets, a "
                      "(classes, features) weight and reduction 'mean' or 'sum'; using the reference computation")
        return F.cross_entropy(_logits(input, linear_weight, linear_bias), target, **kwargs)
    rows = input.shape[0]
    chunk = options.batch_chunk_size or max(1, _CHUNK_LOGITS // max(1, linear_weight.shape[0]))
    kwargs["reduction"] = "sum"

    def chunk_loss(x, t):
        return F.cross_entropy(_logits(x, linear_weight, linear_bias), t, **kwargs)

    total = None
    for start in range(0, rows, chunk):
        x, t = input[start:start + chunk], target[start:start + chunk]
        part = ember.utils.checkpoint.checkpoint(chunk_loss, x, t, use_reentrant=False)
        total = part if total is None else total + part
    if total is None:  # an empty batch
        total = chunk_loss(input, target)
    if reduction == "sum":
        return total
    counted = target != kwargs["ignore_index"]
    denominator = counted.sum() if weight is None else weight[target.masked_select(counted)].sum()
    return total / denominator.to(total.dtype)
