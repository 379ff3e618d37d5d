"""Turning a list of samples into a batch (default_collate) and NumPy data
into tensors (default_convert), with torch.utils.data's rules: the batch
has the samples' structure (dicts, tuples, named tuples, lists) with tensors
stacked along a new first dim at the leaves."""

import collections.abc
import copy
import re

import ember

from .worker import get_worker_info

__all__ = ["default_collate", "default_convert"]

# NumPy dtypes that cannot become tensors: bytes, str, unicode, object.
_NUMPY_NOT_NUMBERS = re.compile(r"[SaUO]")

_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_numpy(x):
    return type(x).__module__ == "numpy"


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _rebuild(like, items):
    """A container of `like`'s type holding `items` (a dict for a mapping, a
    list for a sequence), or a plain dict or list if that type cannot be
    built so."""
    if isinstance(like, collections.abc.MutableMapping):
        clone = copy.copy(like)  # keeps a defaultdict's factory, an OrderedDict's class
        clone.update(items)
        return clone
    try:
        return type(like)(items)
    except TypeError:
        return dict(items) if isinstance(like, collections.abc.Mapping) else list(items)


def default_convert(data):
    """NumPy arrays and NumPy numbers inside `data` become tensors (without a
    copy where NumPy allows it); everything else stays as it is."""
    if isinstance(data, ember.Tensor):
        return data
    if _is_numpy(data) and hasattr(data, "dtype"):
        if getattr(data, "ndim", 0) > 0 and _NUMPY_NOT_NUMBERS.search(data.dtype.str):
            return data
        return ember.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # tuples become lists, as in torch
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def _stack(batch):
    batch = list(batch)
    first = batch[0]
    if get_worker_info() is not None and all(
            t.device.type == "cpu" and t.dtype == first.dtype and t.shape == first.shape and not t.requires_grad
            for t in batch):
        # In a worker: stack straight into shared memory, so that sending the
        # batch to the main process copies nothing.
        out = ember._C._empty_shared([len(batch)] + list(first.shape), first.dtype)
        return ember.cat([t.unsqueeze(0) for t in batch], 0, out=out)
    return ember.stack(batch, 0)


def default_collate(batch):
    """Stacks a list of samples into a batch, keeping their structure."""
    elem = batch[0]
    if isinstance(elem, ember.Tensor):
        return _stack(batch)
    if _is_numpy(elem) and hasattr(elem, "dtype"):
        if _NUMPY_NOT_NUMBERS.search(elem.dtype.str):
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        if type(elem).__name__ in ("ndarray", "memmap"):
            return _stack(ember.as_tensor(b) for b in batch)
        import numpy  # NumPy numbers: one array keeps their dtype

        return ember.as_tensor(numpy.array(batch))
    if isinstance(elem, bool):
        return ember.tensor(batch)
    if isinstance(elem, float):
        return ember.tensor(batch, dtype=ember.float64)
    if isinstance(elem, int):
        return ember.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # tuples become lists, as in torch
        return _rebuild(elem, columns)
    raise TypeError(_COLLATE_ERROR.format(type(elem)))
