"""ember.distributed: process groups and collectives, as torch.distributed.

This is the home of Ember's distributed training. Process-group backends
(Gloo for CPU tensors, NCCL for CUDA) are not built yet, so
``is_available()`` is False and ``init_process_group`` says so; everything
else behaves as torch's does in a process that never joined a group:
``is_initialized()`` is False and the calls that need the default group
raise torch's ValueError. Single-process scripts that only ask (``if
dist.is_initialized(): ...``) run unchanged.
"""

import enum

__all__ = [
    "Backend", "ReduceOp", "all_gather", "all_reduce", "barrier", "broadcast", "destroy_process_group",
    "get_backend", "get_rank", "get_world_size", "init_process_group", "is_available", "is_initialized",
    "new_group", "reduce", "all_gather_object", "broadcast_object_list",
]

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class ReduceOp(enum.IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


class Backend(str):
    """A backend name, lower-cased and checked (``Backend('GLOO') == 'gloo'``)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return super().__new__(cls, name.lower())


def is_available():
    """Whether a process-group backend is built into Ember (not yet)."""
    return False


def is_initialized():
    """Whether this process has joined a default process group."""
    return False


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    raise RuntimeError("ember.distributed.init_process_group: Ember has no process-group backend yet (Gloo and NCCL "
                       "are not built); run the script as a single process")


def _default_group(group):
    if group is None:
        raise ValueError(_NOT_INITIALIZED)
    return group


def destroy_process_group(group=None):
    if group is None:
        raise AssertionError("Process group cannot be None")
    _default_group(None)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    _default_group(None)


def get_rank(group=None):
    _default_group(group)


def get_world_size(group=None):
    _default_group(group)


def get_backend(group=None):
    _default_group(group)


def barrier(group=None, async_op=False, device_ids=None):
    _default_group(group)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _default_group(group)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _default_group(group)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _default_group(group)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _default_group(group)


def all_gather_object(object_list, obj, group=None):
    _default_group(group)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    _default_group(group)
