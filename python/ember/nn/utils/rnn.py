"""Variable-length sequences for the recurrent layers: PackedSequence and the
functions that pack, pad and unpad (torch.nn.utils.rnn).

A packed sequence keeps the steps of a batch sorted by length, longest
first, step after step: step t holds batch_sizes[t] rows. Packing and
unpacking are one index_select / index_put over the padded tensor seen as
(steps * batch) rows, so both are differentiable."""

from collections import namedtuple

import ember

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_PackedSequenceBase = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    r"""The data and batch sizes of a packed batch of sequences (see pack_padded_sequence).

    sorted_indices orders the original batch by decreasing length; unsorted_indices undoes it."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # PackedSequence((data, batch_sizes)) as torch also accepts.
            if not isinstance(data, (list, tuple)) or len(data) != 2:
                raise TypeError("PackedSequence: expected data and batch_sizes")
            data, batch_sizes = data
        if batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn.")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data):
        if data is self.data:
            return self
        indices = [i if i is None else i.to(data.device) for i in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *indices)

    def to(self, *args, **kwargs):
        return self._with_data(self.data.to(*args, **kwargs))

    def cpu(self):
        return self._with_data(self.data.cpu())

    def cuda(self, *args, **kwargs):
        return self._with_data(self.data.cuda(*args, **kwargs))

    def double(self):
        return self.to(dtype=ember.float64)

    def float(self):
        return self.to(dtype=ember.float32)

    def half(self):
        return self.to(dtype=ember.float16)

    def long(self):
        return self.to(dtype=ember.int64)

    def int(self):
        return self.to(dtype=ember.int32)

    def short(self):
        return self.to(dtype=ember.int16)

    def char(self):
        return self.to(dtype=ember.int8)

    def byte(self):
        return self.to(dtype=ember.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    output = ember.empty_like(permutation)
    output.scatter_(0, permutation, ember.arange(permutation.numel(), device=permutation.device))
    return output


def _lengths_list(lengths):
    if isinstance(lengths, ember.Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"lengths must be a 1D tensor, got {lengths.dim()}D")
        return [int(v) for v in lengths.cpu().tolist()]
    return [int(v) for v in lengths]


def _batch_sizes(lengths):
    """batch_sizes[t]: how many of the (decreasing) lengths exceed t."""
    sizes = []
    count = len(lengths)
    for t in range(lengths[0] if lengths else 0):
        while count > 0 and lengths[count - 1] <= t:
            count -= 1
        sizes.append(count)
    return sizes


def _row_index(batch_sizes, steps, batch, batch_first, device):
    """Positions of the packed rows in the padded tensor seen as (steps * batch) or (batch * steps) rows."""
    sizes = ember.tensor(batch_sizes, dtype=ember.int64)
    step = ember.repeat_interleave(ember.arange(len(batch_sizes)), sizes)
    row = ember.arange(step.numel()) - ember.repeat_interleave(sizes.cumsum(0) - sizes, sizes)
    return (row * steps + step if batch_first else step * batch + row).to(device)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    r"""Packs a padded batch (T, B, *) (or (B, T, *) with batch_first) of sequences with the given lengths."""
    lengths = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if input.dim() < 2:
        raise ValueError(f"pack_padded_sequence: expected input of at least 2 dimensions, got {input.dim()}")
    if len(lengths) != input.size(batch_dim):
        raise ValueError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                         f"(batch_size={input.size(batch_dim)})")
    if any(n <= 0 for n in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    steps = input.size(1 - batch_dim)
    if max(lengths) > steps:
        raise RuntimeError(f"pack_padded_sequence: a length of {max(lengths)} exceeds the {steps} steps of input")
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = ember.tensor(order, dtype=ember.int64, device=input.device)
        lengths = [lengths[i] for i in order]
        input = input.index_select(batch_dim, sorted_indices)
    batch = input.size(batch_dim)
    batch_sizes = _batch_sizes(lengths)
    rows = input.reshape([steps * batch] + list(input.shape[2:]))
    data = rows.index_select(0, _row_index(batch_sizes, steps, batch, batch_first, input.device))
    return PackedSequence(data, ember.tensor(batch_sizes, dtype=ember.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    r"""The inverse of pack_padded_sequence: (padded tensor, lengths as an int64 tensor)."""
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    batch = batch_sizes[0] if batch_sizes else 0
    shape = [steps * batch] + list(data.shape[1:])
    padded = ember.full(shape, padding_value, dtype=data.dtype, device=data.device)
    index = _row_index(batch_sizes, steps, batch, batch_first, data.device)
    padded = padded.index_put_((index,), data)
    padded = padded.reshape(([batch, steps] if batch_first else [steps, batch]) + list(data.shape[1:]))
    lengths = ember.tensor([sum(1 for size in batch_sizes if size > b) for b in range(batch)], dtype=ember.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    r"""Stacks sequences of shapes (L_i, *) into (max L, B, *) (or (B, max L, *)), padding with padding_value."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, ember.Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.size(0) for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.size(0)
        if missing:
            fill = ember.full([missing] + list(s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = ember.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return ember.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    r"""The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    r"""Packs a list of sequences of shapes (L_i, *)."""
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    r"""The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
