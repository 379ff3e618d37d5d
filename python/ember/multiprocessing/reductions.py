"""How tensors are pickled between processes: their storage moves into
shared memory, and the other process maps it from a descriptor
(file_descriptor strategy) or by name (file_system)."""

import multiprocessing.reduction
import os
import weakref

import ember
from ember import _C

# (device, inode) or name of a segment -> a tensor of this process over it: views of
# one storage arriving in one message (or while an earlier one is alive)
# are rebuilt over one storage, as they were in the sender.
_received = weakref.WeakValueDictionary()

_NON_LEAF_ERROR = ("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not "
                   "support crossing process boundaries.  If you just want to transfer the data, call detach() on "
                   "the tensor before serializing (e.g., putting it on the queue).")


def rebuild_meta_tensor(cls, dtype, size, stride, requires_grad):
    t = ember.empty_strided(size, stride, dtype=dtype, device="meta")
    return _finish(cls, t, requires_grad)


def rebuild_shared_tensor(cls, dup_fd, nbytes, dtype, size, stride, offset, requires_grad):
    fd = dup_fd.detach()
    try:
        stat = os.fstat(fd)
        key = (stat.st_dev, stat.st_ino)
        base = _received.get(key)
        if base is None:
            t = _C._tensor_from_shared_fd(fd, nbytes, dtype, list(size), list(stride), offset)
            _received[key] = t
        else:
            _C._shared_decref(base)  # the sender's reference for this copy
            t = _C._tensor_on_storage_of(base, dtype, list(size), list(stride), offset)
    finally:
        os.close(fd)
    return _finish(cls, t, requires_grad)


def rebuild_named_tensor(cls, name, nbytes, dtype, size, stride, offset, requires_grad):
    base = _received.get(name)
    if base is None:
        t = _C._tensor_from_shared_name(name, nbytes, dtype, list(size), list(stride), offset)
        _received[name] = t
    else:
        _C._shared_decref(base)  # the sender's reference for this copy
        t = _C._tensor_on_storage_of(base, dtype, list(size), list(stride), offset)
    return _finish(cls, t, requires_grad)


def _finish(cls, t, requires_grad):
    if cls is not ember.Tensor:
        t = cls(t, requires_grad) if issubclass(cls, ember.nn.Parameter) else t.as_subclass(cls)
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(_NON_LEAF_ERROR)
    cls = type(t)
    if t.device.type == "meta":
        return rebuild_meta_tensor, (cls, t.dtype, tuple(t.shape), t.stride(), t.requires_grad)
    if t.device.type != "cpu":
        raise RuntimeError(f"ember.multiprocessing: sharing {t.device.type} tensors between processes is not "
                           f"supported yet; move the tensor to the CPU first")
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()  # the bits are per tensor, not in the shared bytes
    from . import get_sharing_strategy  # the package imports this module

    if get_sharing_strategy() == "file_system":
        name, nbytes = _C._share_filename(t)
        return rebuild_named_tensor, (cls, name, nbytes, t.dtype, tuple(t.shape), t.stride(), t.storage_offset(),
                                      t.requires_grad)
    fd, nbytes = _C._share_fd(t)
    return rebuild_shared_tensor, (cls, multiprocessing.reduction.DupFd(fd), nbytes, t.dtype, tuple(t.shape),
                                   t.stride(), t.storage_offset(), t.requires_grad)


def init_reductions():
    """Makes multiprocessing's pickler (queues, pipes, process arguments,
    pools) send tensors through shared memory."""
    multiprocessing.reduction.ForkingPickler.register(ember.Tensor, reduce_tensor)
    multiprocessing.reduction.ForkingPickler.register(ember.nn.Parameter, reduce_tensor)
